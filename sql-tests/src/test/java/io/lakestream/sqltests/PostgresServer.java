package io.lakestream.sqltests;

import com.google.common.collect.ImmutableMap;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.testing.TestingPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
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
        return catalog(name, database, WarehouseStorage.local(warehouse));
    }

    /** The catalog {@code name} in database {@code database}, with tables in {@code storage} (e.g. on S3). */
    ServerCatalog catalog(String name, String database, WarehouseStorage storage) {
        String url = jdbcUrl(database);
        String passwordReference = ServerCatalog.trinoReference(ServerCatalog.PASSWORD_VARIABLE);
        Map<String, String> javaProperties = new HashMap<>(storage.catalogProperties());
        javaProperties.put("jdbc.user", USER);
        javaProperties.put("jdbc.password", password);
        CatalogConfig config = new CatalogConfig("jdbc", storage.location(), Optional.of(url), javaProperties);
        Map<String, String> sparkOptions = new HashMap<>(javaProperties);
        sparkOptions.putAll(Map.of("type", "jdbc", "warehouse", storage.location(), "uri", url));
        return new ServerCatalog(
                name,
                config,
                ImmutableMap.<String, String>builder()
                        .put("lakestream.catalog.type", "jdbc")
                        .put("lakestream.warehouse", storage.location())
                        .put("lakestream.catalog.uri", url)
                        .put("lakestream.catalog.user", USER)
                        .put("lakestream.catalog.password", passwordReference)
                        .putAll(storage.lakestreamTrinoProperties())
                        .buildOrThrow(),
                ImmutableMap.<String, String>builder()
                        .put("iceberg.catalog.type", "jdbc")
                        .put("iceberg.jdbc-catalog.driver-class", "org.postgresql.Driver")
                        .put("iceberg.jdbc-catalog.connection-url", url)
                        .put("iceberg.jdbc-catalog.connection-user", USER)
                        .put("iceberg.jdbc-catalog.connection-password", passwordReference)
                        .put("iceberg.jdbc-catalog.catalog-name", LakestreamCatalog.DEFAULT_NAME)
                        .put("iceberg.jdbc-catalog.default-warehouse-dir", config.warehouseLocation())
                        .putAll(storage.stockIcebergTrinoProperties())
                        .buildOrThrow(),
                sparkOptions,
                List.of(password));
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
