package io.lakestream.catalog;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one Lakestream connection to a SQLite catalog that this copy of Lakestream keeps open between
 * operations (opening one costs about ten times the query itself). Operations on one database are
 * serialized ({@link SqliteCatalogLock}), so one is enough. It is only used while the lock is held, and
 * closed once it has not been used for {@link #IDLE_CLOSE_NANOS}: a process that stopped using the
 * catalog (e.g. because another engine's client holds the lock) does not keep the database open, which is
 * the evidence {@link OpenFileScan} looks for. The holder of the lock closes its own copy's connection
 * before looking ({@link #closeIdle}).
 */
final class SqliteConnectionSlot {
    static final long IDLE_CLOSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final ConcurrentMap<Path, SqliteConnectionSlot> SLOTS = new ConcurrentHashMap<>();
    private static final ScheduledExecutorService CLOSER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "lakestream-sqlite-idle-close");
        thread.setDaemon(true);
        return thread;
    });

    static {
        CLOSER.scheduleWithFixedDelay(
                () -> SLOTS.values().forEach(slot -> slot.closeIfIdleSince(System.nanoTime() - IDLE_CLOSE_NANOS)),
                250,
                250,
                TimeUnit.MILLISECONDS);
    }

    private final AtomicReference<Idle> idle = new AtomicReference<>();

    private SqliteConnectionSlot() {}

    static SqliteConnectionSlot of(Path database) {
        return SLOTS.computeIfAbsent(database, ignored -> new SqliteConnectionSlot());
    }

    /** The kept connection if it is one to {@code url} with {@code properties}, or a new one. */
    Connection take(String url, Properties properties) throws SQLException {
        Idle kept = idle.getAndSet(null);
        if (kept != null) {
            if (kept.url().equals(url) && kept.properties().equals(properties)) {
                return kept.connection();
            }
            close(kept.connection());
        }
        return DriverManager.getConnection(url, properties);
    }

    /** Keeps a connection that ended its operation cleanly (no transaction open); closes one that did not. */
    void giveBack(Connection connection, String url, Properties properties) {
        try {
            if (!connection.getAutoCommit() || connection.isClosed()) {
                close(connection);
                return;
            }
        } catch (SQLException e) {
            close(connection);
            return;
        }
        Idle previous = idle.getAndSet(new Idle(connection, url, properties, System.nanoTime()));
        if (previous != null) {
            close(previous.connection());
        }
    }

    /** Closes the kept connection now. */
    void closeIdle() {
        Idle kept = idle.getAndSet(null);
        if (kept != null) {
            close(kept.connection());
        }
    }

    private void closeIfIdleSince(long nanos) {
        Idle kept = idle.get();
        if (kept != null && kept.since() - nanos < 0 && idle.compareAndSet(kept, null)) {
            close(kept.connection());
        }
    }

    private static void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // nothing of it is needed any more
        }
    }

    private record Idle(Connection connection, String url, Properties properties, long since) {}
}
