package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.BucketLog;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One change log of a pinned log version (a bucket, or a bucket of a partition of a partitioned table) with the
 * lake's offset in it: what union-read planning and its checks go through, so that every bucket of every partition
 * is planned and checked as a bucket of an unpartitioned table is.
 *
 * @param partition the partition, for a bucket of a partitioned table's log
 * @param bucket the bucket
 * @param log the bucket's live range and segments at the pinned version
 * @param lakeOffset the next offset of this log not in the lake
 */
public record LogTail(Optional<PartitionLog> partition, int bucket, BucketLog log, long lakeOffset) {
    public LogTail {
        requireNonNull(partition, "partition is null");
        requireNonNull(log, "log is null");
    }

    /** Every bucket of {@code log}, then every bucket of each of its partitions, with their offsets in {@code lake}. */
    public static List<LogTail> of(OffsetMap lake, LogSnapshot log) {
        List<LogTail> tails = new ArrayList<>();
        for (int bucket = 0; bucket < log.bucketCount(); bucket++) {
            tails.add(new LogTail(Optional.empty(), bucket, log.bucket(bucket), lake.offset(bucket)));
        }
        for (PartitionLog partition : log.partitions()) {
            for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
                tails.add(new LogTail(
                        Optional.of(partition),
                        bucket,
                        partition.bucket(bucket),
                        lake.offset(new PartitionBucket(partition.id(), bucket))));
            }
        }
        return tails;
    }

    /** {@code [from, to)} of this log. */
    public LogRange range(long from, long to) {
        return new LogRange(bucket, from, to, partition.map(PartitionLog::id));
    }

    /** Names the log in messages: {@code bucket 3}, or {@code bucket 3 of partition ts_day=2026-12-01}. */
    public String describe() {
        return partition
                .map(p -> "bucket %s of partition %s".formatted(bucket, p.path()))
                .orElse("bucket " + bucket);
    }
}
