package org.apache.iceberg.jdbc;

/** The connection pool of an Iceberg JDBC catalog (package-private in Iceberg), for tests that run SQL inside it. */
public final class JdbcCatalogPool {
    private JdbcCatalogPool() {}

    public static JdbcClientPool of(JdbcCatalog catalog) {
        return catalog.connectionPool();
    }
}
