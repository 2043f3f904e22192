package io.lakestream.sqltests;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.testing.TestingPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real PostgreSQL server ({@link TestingPostgres}: loopback only, password authentication) whose catalog
 * role's password is the one the build gives the test JVM ({@link ServerCatalog#PASSWORD_VARIABLE}), and the
 * catalogs on it as every part of the system is configured for them.
 */
final class PostgresServer implements AutoCloseable {
    static final String USER = TestingPostgres.USER;

    private final TestingPostgres postgres;
    private final String password;

    private PostgresServer(TestingPostgres postgres, String password) {
        this.postgres = postgres;
        this.password = password;
    }

    /** Starts a server whose data directory is under {@code directory}. */
    static PostgresServer start(Path directory) throws IOException {
        String password = ServerCatalog.secret(ServerCatalog.PASSWORD_VARIABLE);
        return new PostgresServer(TestingPostgres.start(directory, password), password);
    }

    /** A new database owned by the catalog's role, for one catalog. */
    void createDatabase(String database) {
        postgres.createDatabase(database);
    }

    String jdbcUrl(String database) {
        return postgres.jdbcUrl(database);
    }

    /**
     * The catalog {@code name} in database {@code database} (which {@link #createDatabase} made), with tables
     * under {@code warehouse}. The Trino catalogs name the password as an environment variable reference.
     */
    ServerCatalog catalog(String name, String database, Path warehouse) {
        String url = jdbcUrl(database);
        String passwordReference = ServerCatalog.trinoReference(ServerCatalog.PASSWORD_VARIABLE);
        CatalogConfig config = new CatalogConfig(
                "jdbc", warehouse.toString(), Optional.of(url), Map.of("jdbc.user", USER, "jdbc.password", password));
        return new ServerCatalog(
                name,
                config,
                Map.of(
                        "lakestream.catalog.type", "jdbc",
                        "lakestream.warehouse", warehouse.toString(),
                        "lakestream.catalog.uri", url,
                        "lakestream.catalog.user", USER,
                        "lakestream.catalog.password", passwordReference),
                Map.of(
                        "iceberg.catalog.type",
                        "jdbc",
                        "iceberg.jdbc-catalog.driver-class",
                        "org.postgresql.Driver",
                        "iceberg.jdbc-catalog.connection-url",
                        url,
                        "iceberg.jdbc-catalog.connection-user",
                        USER,
                        "iceberg.jdbc-catalog.connection-password",
                        passwordReference,
                        "iceberg.jdbc-catalog.catalog-name",
                        LakestreamCatalog.DEFAULT_NAME,
                        "iceberg.jdbc-catalog.default-warehouse-dir",
                        config.warehouseLocation(),
                        "fs.local.enabled",
                        "true",
                        "local.location",
                        "/"),
                Map.of(
                        "type", "jdbc",
                        "warehouse", warehouse.toString(),
                        "uri", url,
                        "jdbc.user", USER,
                        "jdbc.password", password),
                List.of(password));
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
