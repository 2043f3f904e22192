package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import io.lakestream.common.LakestreamException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The JDBC URL of a SQLite catalog, with the locking that every process and every copy of SQLite
 * using the catalog must share: SQLite's dot-file locking ({@code vfs=unix-dotfile}).
 *
 * <p>SQLite's default locking on Unix uses POSIX record locks, which belong to the process: two
 * copies of the SQLite library in one JVM (a Trino server gives the Lakestream plugin and the stock
 * Iceberg plugin a class loader each, and sqlite-jdbc loads a native library per class loader) do
 * not see each other's locks, and closing a file in one copy drops the locks the other holds. A
 * reader in one copy then takes a commit in progress in the other for a crashed writer's journal,
 * rolls it back and deletes it. A lock directory ({@code <database>.lock}, created and removed
 * atomically) excludes copies in one process and processes alike. It allows one connection at a
 * time, readers included; catalog transactions last milliseconds, and {@code busy_timeout} makes
 * the others wait for the lock instead of failing at once.
 */
final class SqliteCatalogUri {
    static final String PREFIX = "jdbc:sqlite:";
    static final String VFS = "unix-dotfile";
    /** Milliseconds a connection waits for another one's lock before it fails with SQLITE_BUSY. */
    static final int BUSY_TIMEOUT_MILLIS = 10_000;
    /** The VFS of Lakestream's own connections, which run only while {@link SqliteCatalogLock} is held. */
    static final String LOCKED_VFS = "unix-none";

    private SqliteCatalogUri() {}

    /** The URL of the SQLite database file {@code database}. */
    static String of(Path database) {
        return withLocking(PREFIX + database.toAbsolutePath());
    }

    /**
     * {@code uri} with the shared locking if it is a SQLite file URL (a plain path or a {@code file:}
     * URI, which becomes a {@code file:} URI with the parameters added); any other URL unchanged.
     */
    static String withLocking(String uri) {
        if (!uri.startsWith(PREFIX)) {
            return uri;
        }
        String target = uri.substring(PREFIX.length());
        if (target.isEmpty() || target.startsWith(":memory:") || target.contains("mode=memory")) {
            // an in-memory database: no file, no locks, nobody else to share it with
            return uri;
        }
        int query = target.indexOf('?');
        String file = query < 0 ? target : target.substring(0, query);
        List<String> parameters = new ArrayList<>();
        if (query >= 0) {
            parameters.addAll(List.of(target.substring(query + 1).split("&")));
        }
        String vfs = parameters.stream()
                .filter(parameter -> parameter.startsWith("vfs="))
                .findFirst()
                .orElse("");
        if (vfs.isEmpty()) {
            parameters.add("vfs=" + VFS);
        } else if (!vfs.equals("vfs=" + VFS)) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    ("The SQLite catalog URL %s sets %s: Lakestream opens a SQLite catalog with dot-file locking (vfs=%s),"
                                    + " the only SQLite locking that keeps several copies of SQLite in one process apart"
                                    + " (Trino's Lakestream and Iceberg plugins); remove the parameter or set vfs=%s")
                            .formatted(uri, vfs, VFS, VFS));
        }
        if (parameters.stream().noneMatch(parameter -> parameter.startsWith("busy_timeout="))) {
            parameters.add("busy_timeout=" + BUSY_TIMEOUT_MILLIS);
        }
        // URI parameters reach SQLite only in a URI file name; the path is percent-encoded as a URI's is
        String fileUri = file.startsWith("file:")
                ? file
                : "file:" + Path.of(file).toAbsolutePath().toUri().getRawPath();
        return PREFIX + fileUri + "?" + String.join("&", parameters);
    }

    /**
     * The database file of a SQLite URL with the shared locking ({@link #withLocking}), or empty for any
     * other URL (PostgreSQL, an in-memory SQLite database).
     */
    static Optional<Path> databaseFile(String lockedUri) {
        if (!lockedUri.startsWith(PREFIX + "file:") || !lockedUri.contains("vfs=" + VFS)) {
            return Optional.empty();
        }
        String fileUri = lockedUri.substring(PREFIX.length());
        int query = fileUri.indexOf('?');
        return Optional.of(Path.of(URI.create("file://" + fileUri.substring("file:".length(), query))
                .getPath()));
    }

    /**
     * The URL Lakestream's own connections use: the same file without SQLite's locking, because {@link
     * SqliteCatalogLock} holds the dot-file lock for the whole catalog operation itself (a connection with
     * dot-file locking would wait for that very directory). SQLite still rolls back the journal a killed
     * writer left, at the first read: with no lock of its own, nothing tells it the journal is in use.
     */
    static String lockedConnectionUrl(String lockedUri) {
        int query = lockedUri.indexOf('?');
        String parameters = List.of(lockedUri.substring(query + 1).split("&")).stream()
                .filter(parameter -> !parameter.startsWith("busy_timeout="))
                .map(parameter -> parameter.equals("vfs=" + VFS) ? "vfs=" + LOCKED_VFS : parameter)
                .collect(Collectors.joining("&"));
        return lockedUri.substring(0, query) + "?" + parameters;
    }

    /** How long a Lakestream connection waits for a lock held by someone else: the URL's {@code busy_timeout}. */
    static Duration busyTimeout(String lockedUri) {
        int query = lockedUri.indexOf('?');
        return List.of(lockedUri.substring(query + 1).split("&")).stream()
                .filter(parameter -> parameter.startsWith("busy_timeout="))
                .map(parameter -> Duration.ofMillis(Long.parseLong(parameter.substring("busy_timeout=".length()))))
                .findFirst()
                .orElse(Duration.ofMillis(BUSY_TIMEOUT_MILLIS));
    }
}
