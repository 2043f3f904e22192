package io.lakestream.plan;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static io.lakestream.common.LakestreamError.LAKE_AHEAD_OF_LOG;
import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The pinned state of a read: a log version and a lake snapshot whose offsets do not pass the
 * log's ends, so that lake plus log tail is exactly the table at that log version.
 *
 * <p>A pin is only readable if the log still holds what the lake does not: every bucket's lake offset
 * at or after the log's start. Retention removes only ranges the lake already holds, so a lake offset
 * before the log's start usually means the table's handle on the lake is out of date (an Iceberg
 * table loaded before another process tiered and retention then ran): {@link #resolve} refreshes the
 * lake and pins again, a few times, before {@link #validateForUnionRead} reports the range as lost.
 *
 * @param log the pinned log version
 * @param lake the pinned lake snapshot and its offset map
 * @param lakeCommitMillis commit time of the lake snapshot
 */
public record ReadPin(LogSnapshot log, LakePosition lake, OptionalLong lakeCommitMillis) {
    /**
     * Pins tried before a lake behind the log's start is reported: each retry follows a lake that moved,
     * so more are needed only while tiering and retention keep overtaking the read.
     */
    public static final int MAX_PIN_ATTEMPTS = 4;

    public ReadPin {
        requireNonNull(log, "log is null");
        requireNonNull(lake, "lake is null");
        requireNonNull(lakeCommitMillis, "lakeCommitMillis is null");
    }

    /**
     * Pins what {@code options} asks for: the newest state, a log version, or the state as of a time. If
     * the lake it finds is behind the log's start, the table's lake is refreshed (in place, for a table
     * loaded from the catalog; a table pinned at one metadata file does not move) and the read pinned
     * again, lake first, then log.
     */
    public static ReadPin resolve(LakestreamTable table, ReadOptions options) {
        for (int attempt = 1; ; attempt++) {
            ReadPin pin = resolveOnce(table, options);
            if (!lakeBehindLog(pin.lake(), pin.log()) || attempt >= MAX_PIN_ATTEMPTS || !refreshLake(table)) {
                return pin;
            }
        }
    }

    /**
     * Whether some bucket's lake offset is before the log's start: the log no longer holds changes the
     * lake does not, so lake plus log tail would miss them.
     */
    public static boolean lakeBehindLog(LakePosition lake, LogSnapshot log) {
        for (LogTail tail : LogTail.of(lake.offsets(), log)) {
            if (tail.lakeOffset() < tail.log().startOffset()) {
                return true;
            }
        }
        return false;
    }

    /** Refreshes the table's lake; whether it moved to another metadata version. */
    private static boolean refreshLake(LakestreamTable table) {
        Table lake = table.lake();
        Object before = version(lake);
        lake.refresh();
        return !before.equals(version(lake));
    }

    private static Object version(Table lake) {
        if (lake instanceof HasTableOperations operations) {
            String location = operations.operations().current().metadataFileLocation();
            if (location != null) {
                return location;
            }
        }
        Snapshot current = lake.currentSnapshot();
        return current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId());
    }

    private static ReadPin resolveOnce(LakestreamTable table, ReadOptions options) {
        if (options.logVersion().isPresent() && options.asOfTimestampMillis().isPresent()) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS, "Read as of a log version or as of a timestamp, not both");
        }
        if (options.asOfTimestampMillis().isPresent()) {
            long timestamp = options.asOfTimestampMillis().getAsLong();
            String created = table.lake().properties().get(LakestreamProperties.CREATED_AT_MILLIS);
            if (created != null && timestamp < Long.parseLong(created)) {
                throw new LakestreamException(
                        INVALID_READ_OPTIONS,
                        "Table %s did not exist at %s: it was created at %s"
                                .formatted(
                                        table,
                                        Instant.ofEpochMilli(timestamp),
                                        Instant.ofEpochMilli(Long.parseLong(created))));
            }
            return atLogVersion(table, table.log().snapshot(table.log().versionAsOf(timestamp)));
        }
        if (options.logVersion().isPresent()) {
            long version = options.logVersion().getAsLong();
            long newest = table.log().latestSnapshot().version();
            if (version < 0 || version > newest) {
                throw new LakestreamException(
                        INVALID_READ_OPTIONS,
                        "Log version %s of table %s does not exist: versions go from 0 to %s"
                                .formatted(version, table, newest));
            }
            return atLogVersion(table, table.log().snapshot(version));
        }
        LogSnapshot log = table.log().latestSnapshot();
        Snapshot current = table.lake().currentSnapshot();
        return new ReadPin(
                log,
                LakePosition.current(table.lake()),
                current == null ? OptionalLong.empty() : OptionalLong.of(current.timestampMillis()));
    }

    /**
     * The newest lake snapshot (of the current ancestry) that holds no change at or after the log's ends and has
     * exactly the partition deletes made at or before the version: a delete of whole partitions moves their offsets
     * to its pinned log ends, which a version before it may have too, so offsets alone cannot tell. Partition
     * expiry's lake commit counts as a delete at the log version it was planned on: it drops the partitions' offsets,
     * which reads as "nothing tiered" to a version whose log still has them, and whose segments expiry removed.
     */
    private static ReadPin atLogVersion(LakestreamTable table, LogSnapshot log) {
        Snapshot current = table.lake().currentSnapshot();
        if (current != null) {
            List<Snapshot> ancestry = new ArrayList<>();
            SnapshotUtil.ancestorsOf(current.snapshotId(), table.lake()::snapshot)
                    .forEach(ancestry::add);
            // index (newest first) of the oldest partition delete made after the version, and of the newest made
            // at or before it: a snapshot must be older than the first and not older than the second
            int oldestLaterDelete = -1;
            int newestEarlierDelete = ancestry.size();
            for (int i = ancestry.size() - 1; i >= 0; i--) {
                OptionalLong deleted = partitionDeleteVersion(ancestry.get(i));
                if (deleted.isPresent() && deleted.getAsLong() > log.version() && oldestLaterDelete < 0) {
                    oldestLaterDelete = i;
                }
                if (deleted.isPresent() && deleted.getAsLong() <= log.version()) {
                    newestEarlierDelete = i;
                }
            }
            // a read with the schema of an earlier time may need an older snapshot than the newest that fits
            boolean preferOlder = !LakeSnapshotSchema.holds(table, table.lake().schema());
            ReadPin newest = null;
            for (int i = oldestLaterDelete + 1; i < ancestry.size() && i <= newestEarlierDelete; i++) {
                Snapshot snapshot = ancestry.get(i);
                LakePosition position = LakePosition.at(table.lake(), snapshot.snapshotId());
                if (!notPast(position, log)) {
                    continue;
                }
                ReadPin pin = new ReadPin(log, position, OptionalLong.of(snapshot.timestampMillis()));
                if (newest == null) {
                    newest = pin;
                    if (!preferOlder || LakeSnapshotSchema.holds(table, snapshot)) {
                        break;
                    }
                } else if (lakeBehindLog(position, table.log().newestSnapshot())) {
                    // retention removed its tail (since the version, too), and an older snapshot's too
                    break;
                } else if (LakeSnapshotSchema.holds(table, snapshot)) {
                    // the newest was tiered after an ALTER dropped or widened a column the read has: this one's files
                    // and the log tail give the values of that time
                    newest = pin;
                    break;
                }
            }
            if (newest != null) {
                return requireTailsNotExpired(table, newest);
            }
            if (newestEarlierDelete < ancestry.size()) {
                // the log from offset 0 would still hold the deleted partitions' rows
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        "Table %s as of log version %s cannot be read: no lake snapshot holds the table at that version after the delete of whole partitions in snapshot %s. Read a newer version"
                                .formatted(
                                        table,
                                        log.version(),
                                        ancestry.get(newestEarlierDelete).snapshotId()));
            }
        }
        return requireTailsNotExpired(table, new ReadPin(log, LakePosition.EMPTY, OptionalLong.empty()));
    }

    /**
     * A time-travel pin whose log tail lies in a partition that expiry has removed from the log since: expiry deleted
     * its segments (and, in the lake, its files), so those changes are in neither layer any more. Caught here, with
     * the cause named, rather than as a missing segment file while reading.
     */
    private static ReadPin requireTailsNotExpired(LakestreamTable table, ReadPin pin) {
        LogSnapshot newest = null;
        for (LogTail tail : LogTail.of(pin.lake().offsets(), pin.log())) {
            if (tail.partition().isEmpty() || tail.lakeOffset() >= tail.log().endOffset()) {
                continue;
            }
            if (newest == null) {
                newest = table.log().latestSnapshot();
            }
            if (newest.partition(tail.partition().get().id()).isEmpty()) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        ("Table %s as of log version %s cannot be read: offsets [%s, %s) of %s are gone, removed with their"
                                        + " partition by partition expiry ('%s'), and no lake snapshot in the lake's history holds"
                                        + " the table at that version. Read a newer version")
                                .formatted(
                                        table,
                                        pin.log().version(),
                                        tail.lakeOffset(),
                                        tail.log().endOffset(),
                                        tail.describe(),
                                        PartitionExpiration.PROPERTY));
            }
        }
        return pin;
    }

    /** The log version of a delete of whole partitions, or of partition expiry's lake commit (the same rule holds). */
    private static OptionalLong partitionDeleteVersion(Snapshot snapshot) {
        if (snapshot.summary() == null) {
            return OptionalLong.empty();
        }
        String version = snapshot.summary().get(LakestreamProperties.SUMMARY_PARTITION_DELETE_VERSION);
        if (version == null) {
            version = snapshot.summary().get(LakestreamProperties.SUMMARY_EXPIRY_LOG_VERSION);
        }
        return version == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(version));
    }

    private static boolean notPast(LakePosition position, LogSnapshot log) {
        for (LogTail tail : LogTail.of(position.offsets(), log)) {
            if (tail.lakeOffset() > tail.log().endOffset()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Checks that lake plus log tail can be read: the lake holds no more than the log, and the log
     * still holds every change the lake does not. Call it on a pin from {@link #resolve}, which has
     * already followed a lake that moved: a lake still behind the log's start really lacks the range.
     *
     * @param options what the pin was resolved for: a time-travel read gets its own advice
     */
    public void validateForUnionRead(LakestreamTable table, ReadOptions options) {
        for (LogTail tail : LogTail.of(lake.offsets(), log)) {
            long lakeOffset = tail.lakeOffset();
            long end = tail.log().endOffset();
            long start = tail.log().startOffset();
            String bucket = tail.describe();
            if (lakeOffset > end) {
                throw new LakestreamException(
                        LAKE_AHEAD_OF_LOG,
                        ("Lake snapshot %s of table %s holds %s up to offset %s, but the log (version %s) ends at %s: "
                                        + "the log was replaced or truncated. Restore the log, or read the lake alone with read mode 'lake'")
                                .formatted(
                                        lake.snapshotId().orElse(-1), table, bucket, lakeOffset, log.version(), end));
            }
            if (lakeOffset < start && isTimeTravel(options)) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        ("Table %s as of log version %s cannot be read: offsets [%s, %s) of %s were removed by retention, "
                                        + "and no lake snapshot in the lake's history holds the table at that version (lake maintenance "
                                        + "expired it, or the lake was rolled back). Read a newer version")
                                .formatted(table, log.version(), lakeOffset, start, bucket));
            }
            if (lakeOffset < start) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        ("Table %s: log offsets [%s, %s) of %s were removed by retention before tiering put them in the lake "
                                        + "(the newest lake snapshot, %s, holds the bucket up to offset %s). "
                                        + "Read the lake alone with read mode 'lake', and make retention wait for tiering")
                                .formatted(
                                        table,
                                        lakeOffset,
                                        start,
                                        bucket,
                                        lake.snapshotId().isPresent()
                                                ? Long.toString(
                                                        lake.snapshotId().getAsLong())
                                                : "none",
                                        lakeOffset));
            }
        }
    }

    private static boolean isTimeTravel(ReadOptions options) {
        return options.logVersion().isPresent() || options.asOfTimestampMillis().isPresent();
    }
}
