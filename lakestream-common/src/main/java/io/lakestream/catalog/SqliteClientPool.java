package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;

import io.lakestream.common.LakestreamException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;

/**
 * The connections of Iceberg's {@link JdbcCatalog} to a SQLite catalog: each catalog operation (one {@code
 * run}) holds the {@link SqliteCatalogLock} while it uses the connection ({@link SqliteConnectionSlot}: one
 * kept open between operations, closed after a second unused).
 */
final class SqliteClientPool extends JdbcClientPool {
    private final SqliteCatalogLock lock;
    private final SqliteConnectionSlot connections;
    private final String connectionUrl;
    private final Properties connectionProperties;
    private final LongAdder operations;

    private SqliteClientPool(String uri, Map<String, String> properties, SqliteCatalogLock lock, LongAdder operations) {
        // the pool of the super class is never used: run() opens a connection per operation
        super(1, uri, properties);
        this.lock = lock;
        this.connections = lock.connections();
        this.connectionUrl = SqliteCatalogUri.lockedConnectionUrl(uri);
        this.operations = operations;
        this.connectionProperties = new Properties();
        properties.forEach((name, value) -> {
            if (name.startsWith(JdbcCatalog.PROPERTY_PREFIX)) {
                connectionProperties.put(name.substring(JdbcCatalog.PROPERTY_PREFIX.length()), value);
            }
        });
    }

    /**
     * The pool for {@code uri} (a SQLite URL with the shared locking) as the catalog's properties configure it; every
     * operation it runs is counted in {@code operations}.
     */
    static SqliteClientPool create(
            String uri, Map<String, String> properties, SqliteLockTiming timing, LongAdder operations) {
        SqliteCatalogLock lock = new SqliteCatalogLock(
                SqliteCatalogUri.databaseFile(uri).orElseThrow(),
                timing.clock(),
                SqliteCatalogUri.busyTimeout(uri),
                timing.staleAfter());
        return new SqliteClientPool(uri, properties, lock, operations);
    }

    @Override
    public <R> R run(Action<R, Connection, SQLException> action) throws SQLException, InterruptedException {
        return run(action, false);
    }

    @Override
    public <R> R run(Action<R, Connection, SQLException> action, boolean retry)
            throws SQLException, InterruptedException {
        operations.increment();
        try (SqliteCatalogLock.Held held = lock.acquire()) {
            Connection connection = connections.take(connectionUrl, connectionProperties);
            boolean clean = false;
            try {
                if (held.tookOverFrom().isPresent()) {
                    checkAfterTakeOver(connection, held.tookOverFrom().get());
                }
                R result = action.run(connection);
                clean = true;
                return result;
            } finally {
                if (clean) {
                    connections.giveBack(connection, connectionUrl, connectionProperties);
                } else {
                    // an operation that failed may have left a transaction open: not reused
                    connection.close();
                }
            }
        } catch (UncheckedIOException e) {
            throw new LakestreamException(
                    CATALOG_ERROR, "Cannot lock the SQLite catalog %s: %s".formatted(lock.lockDirectory(), e), e);
        }
    }

    /**
     * The first read after a take-over rolls back what the dead holder left unfinished (SQLite does so for a
     * journal no lock protects); then the database must be intact.
     */
    private void checkAfterTakeOver(Connection connection, String deadHolder) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet check = statement.executeQuery("PRAGMA quick_check")) {
            String result = check.next() ? check.getString(1) : "no result";
            if (!result.equals("ok")) {
                throw new LakestreamException(
                        CATALOG_ERROR,
                        ("The SQLite catalog is damaged after the lock of %s was taken over: quick_check says %s;"
                                        + " restore the catalog database from a backup")
                                .formatted(deadHolder, result));
            }
        }
    }

    /**
     * The clock and the patience of the SQLite catalog's lock.
     *
     * @param staleAfter how long a lock directory without owner record must stay unchanged before its holder is
     *     looked for
     */
    record SqliteLockTiming(Clock clock, Duration staleAfter) {
        static final SqliteLockTiming DEFAULT = new SqliteLockTiming(Clock.systemUTC(), Duration.ofSeconds(2));
    }
}
