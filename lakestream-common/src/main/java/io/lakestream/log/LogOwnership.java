package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;
import static io.lakestream.common.LakestreamError.TABLE_ALREADY_EXISTS;
import static io.lakestream.common.LakestreamError.TABLE_DROPPED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamProperties;
import java.io.IOException;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a log handle to the table it was opened for: the log's identity record ({@link LogIdentity})
 * must name that table's UUID. A table that is dropped loses its log directory (and with it the
 * record); a table re-created at the same location gets a new record with a new UUID. So a writer
 * that loaded the old table finds out before it publishes, and again right after (the table may be
 * dropped between the check and the publish): its commit is refused with {@code TABLE_DROPPED}, and a
 * commit that did land in another table's log carries this table's UUID, so that table's readers
 * skip it.
 *
 * <p>Thread-safe.
 */
final class LogOwnership {
    private static final Logger log = LoggerFactory.getLogger(LogOwnership.class);

    private final LogPaths paths;
    private final LogFileSystem fileSystem;
    private final LogIdentity expected;
    private final String tableName;
    /** Set once the record was read and names this table: it never changes while the table exists. */
    private volatile Optional<LogIdentity> confirmed = Optional.empty();
    /** Adoption is tried once per handle: a store that refused the write is not asked on every query. */
    private volatile boolean adoptionTried;

    LogOwnership(LogPaths paths, LogFileSystem fileSystem, LogIdentity expected, String tableName) {
        this.paths = requireNonNull(paths, "paths is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.expected = requireNonNull(expected, "expected is null");
        this.tableName = requireNonNull(tableName, "tableName is null");
    }

    UUID tableUuid() {
        return expected.tableUuid();
    }

    /** The identity record as it is on storage now. */
    Optional<LogIdentity> read() {
        String file = paths.identity();
        Optional<byte[]> json;
        try {
            json = fileSystem.readIfExists(file);
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR, "Could not read the log identity record %s: %s".formatted(file, e.getMessage()), e);
        }
        if (json.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(LogJson.read(json.get(), LogIdentity.class));
        } catch (IOException | RuntimeException e) {
            throw new LakestreamException(
                    LOG_CORRUPT,
                    "The log identity record %s is corrupt (%s); restore it from a backup"
                            .formatted(file, e.getMessage()),
                    e);
        }
    }

    /** The identity record, read once it names this table; empty while it is missing. */
    Optional<LogIdentity> identity() {
        Optional<LogIdentity> known = confirmed;
        if (known.isPresent()) {
            return known;
        }
        Optional<LogIdentity> read = read();
        if (read.isPresent() && read.get().tableUuid().equals(expected.tableUuid())) {
            confirmed = read;
        }
        return read;
    }

    /**
     * Writes the identity record of a new table's log. The location must not hold another log: a
     * leftover of a dropped table whose files could not all be deleted, or the log of another table
     * configured with the same log path. Reading it as the new table's would show foreign rows. Commits
     * that carry another table's UUID are no obstacle: the new table's readers skip them.
     */
    void create() {
        byte[] record = LogJson.write(expected);
        boolean created;
        try {
            created = !hasUnboundCommits() && fileSystem.createExclusive(paths.identity(), record);
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR,
                    "Could not write the log identity record %s of new table %s: %s"
                            .formatted(paths.identity(), tableName, e.getMessage()),
                    e);
        }
        if (created) {
            confirmed = Optional.of(expected);
            return;
        }
        String owner =
                read().map(identity -> "of table UUID " + identity.tableUuid()).orElse("of an earlier table");
        throw new LakestreamException(
                TABLE_ALREADY_EXISTS,
                ("Cannot create table %s: its log location %s already holds a log %s. If that table was dropped, delete the "
                                + "directory %s and create the table again; otherwise give this table another location or %s")
                        .formatted(tableName, paths.root(), owner, paths.root(), LakestreamProperties.LOG_PATH));
    }

    /** A first commit that names no table: a log written before logs had an identity record. */
    private boolean hasUnboundCommits() throws IOException {
        Optional<byte[]> first = fileSystem.readIfExists(paths.commit(1));
        if (first.isEmpty()) {
            return false;
        }
        try {
            return LogJson.read(first.get(), LogCommit.class).tableUuid().isEmpty();
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Writes the identity record of a log that has none: a table created before logs had one. Only for
     * a table just loaded from the catalog (so it exists), never on the commit path: a late writer of a
     * dropped table must not bring its log back.
     */
    void adopt() {
        if (adoptionTried || identity().isPresent()) {
            return;
        }
        adoptionTried = true;
        try {
            if (fileSystem.createExclusive(paths.identity(), LogJson.write(expected))) {
                log.info(
                        "Wrote the identity record of the log of table {} (table UUID {}) at {}",
                        tableName,
                        expected.tableUuid(),
                        paths.identity());
            }
        } catch (IOException e) {
            // e.g. a read-only store: reads go on; a write checks ownership and fails with a clear error
            log.warn(
                    "Could not write the identity record of the log of table {} at {}", tableName, paths.identity(), e);
        }
    }

    /** Whether the record on storage, read now, names this table. */
    boolean ownedNow() {
        return read().map(identity -> identity.tableUuid().equals(expected.tableUuid()))
                .orElse(false);
    }

    /** Before a commit is published: the log still belongs to this table. Never cached. */
    void checkOwnedBeforePublish() {
        Optional<LogIdentity> onStorage = read();
        if (onStorage.isEmpty()) {
            throw new LakestreamException(
                    TABLE_DROPPED,
                    ("Table %s was dropped after this write loaded it: its log at %s is gone (no identity record %s). "
                                    + "Nothing was committed; if the table was re-created, load it again and re-run the write")
                            .formatted(tableName, paths.root(), LogPaths.IDENTITY));
        }
        checkSameTable(onStorage.get(), "Nothing was committed");
        if (onStorage.get().bucketCount() != expected.bucketCount()) {
            throw new LakestreamException(
                    LAKE_LAYOUT_MISMATCH,
                    ("Table %s has %s = %s, but its log at %s was created with %s buckets: the table property was changed "
                                    + "outside Lakestream. Nothing was committed; set %s back to %s")
                            .formatted(
                                    tableName,
                                    LakestreamProperties.BUCKET_NUM,
                                    expected.bucketCount(),
                                    paths.root(),
                                    onStorage.get().bucketCount(),
                                    LakestreamProperties.BUCKET_NUM,
                                    onStorage.get().bucketCount()));
        }
    }

    /**
     * After a commit was published: the log it landed in was still this table's. If the table was
     * dropped meanwhile, the commit is in a dead log or carries a UUID the new table's readers skip.
     */
    void checkOwnedAfterPublish(long version) {
        String outcome =
                "Log version %s was published, but it is not part of any live table and nothing of this write is visible"
                        .formatted(version);
        Optional<LogIdentity> onStorage = read();
        if (onStorage.isEmpty()) {
            throw new LakestreamException(
                    TABLE_DROPPED,
                    "Table %s was dropped while this write committed: its log at %s is gone. %s; if the table was re-created, load it again and re-run the write"
                            .formatted(tableName, paths.root(), outcome));
        }
        checkSameTable(onStorage.get(), outcome);
    }

    /**
     * True for a commit another table's writer published into this log, which readers skip; fails with
     * {@code TABLE_DROPPED} if instead this handle's table is the one that no longer owns the log.
     */
    boolean isForeign(LogCommit commit) {
        if (commit.tableUuid().isEmpty() || commit.tableUuid().get().equals(expected.tableUuid())) {
            return false;
        }
        Optional<LogIdentity> onStorage = read();
        if (onStorage.isPresent()) {
            checkSameTable(onStorage.get(), "Nothing more of it can be read");
        }
        return true;
    }

    /** True for a checkpoint written for another table (a writer that raced a drop and re-create). */
    boolean isForeign(LogSnapshot checkpoint) {
        return checkpoint.tableUuid().isPresent()
                && !checkpoint.tableUuid().get().equals(expected.tableUuid());
    }

    private void checkSameTable(LogIdentity onStorage, String outcome) {
        if (!onStorage.tableUuid().equals(expected.tableUuid())) {
            throw new LakestreamException(
                    TABLE_DROPPED,
                    ("Table %s was dropped and re-created after it was loaded: its log at %s now belongs to the new table "
                                    + "(table UUID %s; the loaded table was %s). %s; load the table again and re-run the write or query")
                            .formatted(tableName, paths.root(), onStorage.tableUuid(), expected.tableUuid(), outcome));
        }
    }
}
