package io.lakestream.catalog;

import java.util.Map;

/**
 * Loads the JDBC driver of a catalog URI through the class loader Lakestream itself runs in.
 *
 * <p>{@link java.sql.DriverManager} registers the drivers it finds once, through the context class
 * loader of whoever touches it first, and later hands a connection only to callers that see the
 * same driver class. In a Trino server (each plugin in its own class loader, e.g. Trino's Iceberg
 * plugin with its own SQLite driver) or an embedding application, the first caller may be someone
 * else, so the catalog would find "no suitable driver". Loading the driver class here registers the
 * copy our class loader sees.
 */
final class JdbcDrivers {
    private static final Map<String, String> DRIVERS =
            Map.of("jdbc:sqlite:", "org.sqlite.JDBC", "jdbc:postgresql:", "org.postgresql.Driver");

    private JdbcDrivers() {}

    static void register(String uri) {
        DRIVERS.forEach((prefix, driver) -> {
            if (uri.startsWith(prefix)) {
                try {
                    Class.forName(driver, true, JdbcDrivers.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    // not on the class path: DriverManager's own lookup reports the missing driver
                }
            }
        });
    }
}
