package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LAKE_AHEAD_OF_LOG;
import static io.lakestream.common.LakestreamError.LAKE_OFFSETS_INVALID;
import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.BucketLog;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.plan.LogTail;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Plans a round: for every bucket the range {@code [O[b], min(E[b], O[b] + max))} between the lake
 * offset and the pinned log end. Offsets are per bucket, so a capped range is a valid new offset.
 * Refuses bad states (lake ahead of the log, untiered changes removed by retention) instead of
 * tiering around them: both would silently lose or duplicate data.
 */
public final class TieringPlanner {
    private TieringPlanner() {}

    public static TieringPlan plan(String table, LakePosition lake, LogSnapshot log, long maxRecordsPerBucket) {
        OffsetMap lakeOffsets = lake.offsets();
        int bucketCount = log.bucketCount();
        if (!lakeOffsets.offsets().isEmpty() && lakeOffsets.offsets().lastKey() >= bucketCount) {
            throw new LakestreamException(
                    LAKE_OFFSETS_INVALID,
                    "Lake snapshot %s of table %s records offsets for bucket %s, but the table has %s buckets; the lake was written for another bucket count. Restore the table's bucket count or roll the lake back"
                            .formatted(
                                    lake.snapshotId().orElse(-1),
                                    table,
                                    lakeOffsets.offsets().lastKey(),
                                    bucketCount));
        }
        String operationId = UUID.randomUUID().toString();
        List<BucketTask> tasks = new ArrayList<>();
        Map<Integer, Long> newOffsets = new HashMap<>();
        Map<PartitionBucket, Long> newPartitionOffsets = new HashMap<>();
        // every bucket, and every bucket of every partition of a partitioned table's log (one task per log)
        for (LogTail tail : LogTail.of(lakeOffsets, log)) {
            long from = tail.lakeOffset();
            BucketLog bucketLog = tail.log();
            if (from > bucketLog.endOffset()) {
                throw new LakestreamException(
                        LAKE_AHEAD_OF_LOG,
                        ("Table %s: lake snapshot %s holds %s up to offset %s, but the log (version %s) ends at %s. "
                                        + "The log was replaced, truncated or restored from an older backup. Tiering of this table stopped; "
                                        + "restore the log, or roll the lake back to a snapshot whose offsets the log holds")
                                .formatted(
                                        table,
                                        lake.snapshotId().orElse(-1),
                                        tail.describe(),
                                        from,
                                        log.version(),
                                        bucketLog.endOffset()));
            }
            if (from < bucketLog.startOffset()) {
                throw new LakestreamException(
                        LOG_RANGE_REMOVED,
                        ("Table %s: offsets [%s, %s) of %s were removed from the log before they were tiered into the lake. "
                                        + "Tiering of this table stopped so the gap is not skipped silently; restore the removed log segments from a backup, "
                                        + "or accept the loss by resetting the lake offsets")
                                .formatted(table, from, bucketLog.startOffset(), tail.describe()));
            }
            long to = Math.min(bucketLog.endOffset(), from + Math.min(maxRecordsPerBucket, Long.MAX_VALUE - from));
            Optional<Integer> partitionId = tail.partition().map(PartitionLog::id);
            if (partitionId.isPresent()) {
                newPartitionOffsets.put(new PartitionBucket(partitionId.get(), tail.bucket()), to);
            } else {
                newOffsets.put(tail.bucket(), to);
            }
            if (to > from) {
                tasks.add(new BucketTask(
                        tail.bucket(),
                        from,
                        to,
                        log.version(),
                        operationId,
                        partitionId.isPresent(),
                        partitionId.orElse(0)));
            }
        }
        // partitions expiry removed from the log whose lake files are not deleted yet: their keys stay until the
        // expiry's lake commit drops them together with the files (docs/tiering.md "Partition expiry")
        lakeOffsets.partitionOffsets().forEach((key, offset) -> {
            if (key.partitionId() < log.nextPartitionId()
                    && log.partition(key.partitionId()).isEmpty()) {
                newPartitionOffsets.put(key, offset);
            }
        });
        return new TieringPlan(lake, log, tasks, new OffsetMap(newOffsets, newPartitionOffsets));
    }
}
