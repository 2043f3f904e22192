package io.lakestream.catalog;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcCatalogPool;

/**
 * A separate JVM inside a transaction on a warehouse's SQLite catalog: {@code <client> <warehouse> <what>}.
 *
 * <p>client: {@code lakestream} (a connection of Lakestream's own catalog, inside one catalog operation) or
 * {@code stock} (plain sqlite-jdbc with the catalog URL a user gives another engine, as Trino's Iceberg
 * connector uses it). what: {@code write} (a write transaction large enough that SQLite spills it into the
 * database file before the commit: a namespace property {@code child=written} and a table {@code scratch})
 * or {@code read} (a query with an open result). It prints {@code IN_TRANSACTION} and then either waits to be
 * killed, or, given a line on standard input, commits, prints {@code COMMITTED} and exits.
 */
public final class CatalogTransactionProcess {
    static final String IN_TRANSACTION = "IN_TRANSACTION";
    static final String COMMITTED = "COMMITTED";
    static final int SCRATCH_ROWS = 400;

    private CatalogTransactionProcess() {}

    public static void main(String[] args) throws Exception {
        String client = args[0];
        CatalogConfig config = CatalogConfig.embedded(Path.of(args[1]));
        boolean write = args[2].equals("write");
        if (client.equals("stock")) {
            try (Connection connection =
                    DriverManager.getConnection(config.icebergProperties().get(CatalogProperties.URI))) {
                inTransaction(connection, write);
            }
        } else {
            try (LakestreamCatalog catalog = LakestreamCatalog.open(config)) {
                JdbcCatalogPool.of((JdbcCatalog) catalog.icebergCatalog()).run(connection -> {
                    try {
                        inTransaction(connection, write);
                    } catch (Exception e) {
                        throw new SQLException(e);
                    }
                    return null;
                });
            }
        }
        System.exit(0);
    }

    private static void inTransaction(Connection connection, boolean write) throws Exception {
        try (Statement statement = connection.createStatement()) {
            // a cache of a few pages: the transaction's pages spill into the database file before the commit
            statement.execute("PRAGMA cache_size = 4");
        }
        connection.setAutoCommit(false);
        ResultSet open = null;
        try (Statement statement = connection.createStatement()) {
            if (write) {
                statement.execute(
                        "INSERT INTO iceberg_namespace_properties VALUES ('lakestream', 's', 'child', 'written')");
                statement.execute("CREATE TABLE scratch (payload BLOB)");
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO scratch VALUES (?)")) {
                    for (int row = 0; row < SCRATCH_ROWS; row++) {
                        insert.setBytes(1, new byte[4096]);
                        insert.executeUpdate();
                    }
                }
            } else {
                open = statement.executeQuery("SELECT * FROM sqlite_master");
                open.next();
            }
            System.out.println(IN_TRANSACTION);
            System.out.flush();
            // a line from the parent: commit; end of input or a kill: nothing more
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (line == null) {
                Thread.sleep(Long.MAX_VALUE);
            }
            if (open != null) {
                open.close();
            }
            connection.commit();
            System.out.println(COMMITTED);
            System.out.flush();
        }
    }
}
