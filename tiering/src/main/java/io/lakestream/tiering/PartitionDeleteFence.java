package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.CommitConflictCheck;
import io.lakestream.log.CommitMarkers;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The log side of "a partition delete and a write planned from a read never both land" (docs/writes.md "Partition
 * deletes and writes planned from a read"): a {@link CommitConflictCheck} that an UPDATE / MERGE / row-level DELETE
 * commits with, around its row check. It runs inside the log commit, on the very version the write is published on
 * top of, and fails the write when a partition delete's marker ({@link CommitMarkers#partitionDelete}) is in the log
 * and the lake the write read does not hold that delete: the delete may land (or has landed) in the lake, and then
 * it removed rows this write read, or would remove rows the write's read assumed. Markers up to the log version of
 * the lake the write read are ignored: {@link PartitionDelete} commits only onto a lake whose log version is below its
 * marker, so such a delete can no longer land unless the read lake already holds it.
 *
 * <p>Conservative on partitions: any partition delete of the table conflicts, whatever partitions it selected.
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
     * For a write that read the lake at {@code lakeSnapshotId} (empty: the lake had no snapshot) and the log after it.
     * {@code rows} is the write's row check ({@code WriteConflictCheck}).
     */
    public static CommitConflictCheck afterReading(
            LakestreamTable table, OptionalLong lakeSnapshotId, CommitConflictCheck rows) {
        return new PartitionDeleteFence(table, new ReadLake(true, lakeSnapshotId, -1), rows);
    }

    /**
     * For a write that read no row (its scan was never planned) at log version {@code readLogVersion}: only a delete
     * whose marker came after that version can be ordered between its start and its commit.
     */
    public static CommitConflictCheck afterReadingNothing(
            LakestreamTable table, long readLogVersion, CommitConflictCheck rows) {
        return new PartitionDeleteFence(table, new ReadLake(false, OptionalLong.empty(), readLogVersion), rows);
    }

    @Override
    public Optional<String> findConflict(List<StagedSegment> segments, LogSnapshot checkedFrom, LogSnapshot current) {
        Optional<String> delete = partitionDelete(current);
        if (delete.isPresent()) {
            return delete;
        }
        if (current.version() <= checkedFrom.version()) {
            return Optional.empty();
        }
        return rows.findConflict(segments, checkedFrom, current);
    }

    private Optional<String> partitionDelete(LogSnapshot current) {
        SortedMap<Long, String> markers =
                CommitMarkers.find(current, CommitMarkers.PARTITION_DELETE_PREFIX, 0, current.version());
        boolean windowFull = !CommitMarkers.covers(current, current.version());
        if (markers.isEmpty() && !windowFull) {
            return Optional.empty();
        }
        Table lake = table.lake();
        long after = readLake.logVersionBound(lake);
        if (!CommitMarkers.covers(current, after)) {
            return Optional.of(
                    "more commits were made than the log remembers since the lake this write read (log version %s), so a partition delete among them cannot be ruled out"
                            .formatted(after));
        }
        Set<String> held = readLake.deletesHeld(lake);
        for (Map.Entry<Long, String> marker : markers.tailMap(after + 1).entrySet()) {
            if (!held.contains(marker.getValue())) {
                return Optional.of(
                        "deleted whole partitions (partition delete %s, marked at log version %s) that this write's read did not see deleted"
                                .formatted(marker.getValue(), marker.getKey()));
            }
        }
        return Optional.empty();
    }

    /**
     * What the write read of the lake.
     *
     * @param pinned whether it read a lake (else it read no row, at log version {@code logVersion})
     * @param snapshotId the lake snapshot it read; empty for an empty lake
     */
    private record ReadLake(boolean pinned, OptionalLong snapshotId, long logVersion) {
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

        /** The ids of the partition deletes in the read lake's history. */
        Set<String> deletesHeld(Table lake) {
            Set<String> ids = new HashSet<>();
            if (!pinned || snapshotId.isEmpty() || snapshot(lake).isEmpty()) {
                // read nothing, or an expired snapshot: counts as holding no delete (only more conflicts)
                return ids;
            }
            for (Snapshot snapshot : SnapshotUtil.ancestorsOf(snapshotId.getAsLong(), lake::snapshot)) {
                String id =
                        snapshot.summary() == null ? null : snapshot.summary().get(PartitionDelete.SUMMARY_DELETE_ID);
                if (id != null) {
                    ids.add(id);
                }
            }
            return ids;
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
