package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.lake.LakePartitionDeletes;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.CommitConflictCheck;
import io.lakestream.log.CommitMarkers;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionDeleteMarker;
import io.lakestream.log.PartitionLog;
import io.lakestream.log.StagedSegment;
import io.lakestream.plan.LogPartitionPruner;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The log side of "a partition delete and a write planned from a read never both land" (docs/writes.md "Partition
 * deletes and writes planned from a read"): a {@link CommitConflictCheck} that an UPDATE / MERGE / row-level DELETE
 * commits with, around its row check. It runs inside the log commit, on the very version the write is published on
 * top of, and fails the write when a partition delete's marker ({@link PartitionDeleteMarker}) is in the log, the
 * write touches a partition the marker names, and the lake the write read does not hold that delete: the delete may
 * land (or has landed) in the lake, and then it removed rows this write read, or would remove rows the write's read
 * assumed. Markers up to the log version of the lake the write read are ignored: {@link PartitionDelete} commits
 * only onto a lake whose log version is below its marker, so such a delete can no longer land unless the read lake
 * already holds it.
 *
 * <p>Per partition: the write touches a named partition when it publishes a change into it (a staged segment of
 * that partition path), or when its read may have read rows of it (its condition, projected through the partition
 * spec, may match the partition's values; {@code true} for a MERGE or a condition that was not pushed down). A
 * marker that names no partition (too many, or from before markers named them) counts as naming every one.
 *
 * <p>A marker whose delete was abandoned ({@link CommitMarkers#partitionDeleteAbandoned}), or whose delete the lake
 * as it is now shows can no longer land (its log version is at or past the marker and it does not hold the delete),
 * conflicts with nothing.
 */
public final class PartitionDeleteFence implements CommitConflictCheck {
    private final LakestreamTable table;
    private final ReadLake readLake;
    private final CommitConflictCheck rows;

    private PartitionDeleteFence(LakestreamTable table, ReadLake readLake, CommitConflictCheck rows) {
        this.table = requireNonNull(table, "table is null");
        this.readLake = requireNonNull(readLake, "readLake is null");
        this.rows = requireNonNull(rows, "rows is null");
    }

    /**
     * For a write that read the lake at {@code lakeSnapshotId} (empty: the lake had no snapshot) and the log after it,
     * through a scan whose rows all satisfy {@code condition} ({@code alwaysTrue} when unknown). {@code rows} is the
     * write's row check ({@code WriteConflictCheck}).
     */
    public static CommitConflictCheck afterReading(
            LakestreamTable table, OptionalLong lakeSnapshotId, Expression condition, CommitConflictCheck rows) {
        return new PartitionDeleteFence(
                table, new ReadLake(true, lakeSnapshotId, -1, requireNonNull(condition, "condition is null")), rows);
    }

    /**
     * For a write that read no row (its scan was never planned) at log version {@code readLogVersion}: only a delete
     * whose marker came after that version can be ordered between its start and its commit, and only through the
     * partitions the write publishes into.
     */
    public static CommitConflictCheck afterReadingNothing(
            LakestreamTable table, long readLogVersion, CommitConflictCheck rows) {
        return new PartitionDeleteFence(
                table, new ReadLake(false, OptionalLong.empty(), readLogVersion, Expressions.alwaysFalse()), rows);
    }

    @Override
    public Optional<String> findConflict(List<StagedSegment> segments, LogSnapshot checkedFrom, LogSnapshot current) {
        Optional<String> delete = partitionDelete(segments, current);
        if (delete.isPresent()) {
            return delete;
        }
        if (current.version() <= checkedFrom.version()) {
            return Optional.empty();
        }
        return rows.findConflict(segments, checkedFrom, current);
    }

    private Optional<String> partitionDelete(List<StagedSegment> segments, LogSnapshot current) {
        // nothing to check only while the key window still holds every keyed commit (so every marker) ever made
        if (CommitMarkers.covers(current, 0)
                && CommitMarkers.partitionDeletes(current, 0).isEmpty()) {
            return Optional.empty();
        }
        Table lake = table.lake();
        long after = readLake.logVersionBound(lake);
        if (!CommitMarkers.covers(current, after)) {
            return Optional.of(
                    "more commits were made than the log remembers since the lake this write read (log version %s), so a partition delete among them cannot be ruled out"
                            .formatted(after));
        }
        List<PartitionDeleteMarker> touched = CommitMarkers.partitionDeletes(current, after).stream()
                .filter(marker -> touches(marker, segments))
                .toList();
        if (touched.isEmpty()) {
            return Optional.empty();
        }
        List<PartitionDeleteMarker> unseen = readLake.notHeld(lake, touched);
        for (PartitionDeleteMarker marker : unseen) {
            if (!canNoLongerLand(lake, marker)) {
                return Optional.of(
                        "deleted whole partitions (partition delete %s, marked at log version %s) that this write reads or writes and whose delete its read did not see"
                                .formatted(marker.deleteId(), marker.version()));
            }
        }
        return Optional.empty();
    }

    /** Whether the write publishes into, or its read may have read, a partition the marker names. */
    private boolean touches(PartitionDeleteMarker marker, List<StagedSegment> segments) {
        if (marker.partitions().isEmpty()) {
            return true;
        }
        for (StagedSegment segment : segments) {
            // a segment without a partition cannot be placed: conservative
            if (segment.partition().map(marker::mayDelete).orElse(true)) {
                return true;
            }
        }
        LogPartitionPruner read = new LogPartitionPruner(table.definition(), readLake.condition());
        return marker.partitions().get().stream().anyMatch(path -> read.mayMatch(new PartitionLog(0, path, List.of())));
    }

    /**
     * Whether the lake as it is now proves that the marker's delete will never land: its log version is at or past
     * the marker (a delete lands only below its marker) and it does not hold the delete (had the delete landed, every
     * later snapshot would descend from it). Cheap: one catalog read, made only for a marker that would fail the
     * write; it lets a write go through once tiering passed the marker of a delete that died.
     */
    private static boolean canNoLongerLand(Table lake, PartitionDeleteMarker marker) {
        lake.refresh();
        Snapshot now = lake.currentSnapshot();
        if (now == null || LakePosition.current(lake).logVersion() < marker.version()) {
            return false;
        }
        return LakePartitionDeletes.notHeld(lake, now.snapshotId(), List.of(marker))
                        .size()
                == 1;
    }

    /**
     * What the write read of the lake.
     *
     * @param pinned whether it read a lake (else it read no row, at log version {@code logVersion})
     * @param snapshotId the lake snapshot it read; empty for an empty lake
     * @param condition every row it read satisfies it
     */
    private record ReadLake(boolean pinned, OptionalLong snapshotId, long logVersion, Expression condition) {
        /** Markers at or below this log version cannot be of a delete that lands after the read. */
        long logVersionBound(Table lake) {
            if (!pinned) {
                return logVersion;
            }
            if (snapshotId.isEmpty()) {
                return 0;
            }
            return snapshot(lake)
                    .map(snapshot ->
                            LakePosition.at(lake, snapshot.snapshotId()).logVersion())
                    .orElse(0L);
        }

        /** The markers whose delete the read lake does not hold. */
        List<PartitionDeleteMarker> notHeld(Table lake, List<PartitionDeleteMarker> markers) {
            if (!pinned || snapshotId.isEmpty() || snapshot(lake).isEmpty()) {
                // read nothing, or an expired snapshot: counts as holding no delete (only more conflicts)
                return markers;
            }
            return LakePartitionDeletes.notHeld(lake, snapshotId.getAsLong(), markers);
        }

        private Optional<Snapshot> snapshot(Table lake) {
            long id = snapshotId.getAsLong();
            if (lake.snapshot(id) == null) {
                lake.refresh();
            }
            return Optional.ofNullable(lake.snapshot(id));
        }
    }
}
