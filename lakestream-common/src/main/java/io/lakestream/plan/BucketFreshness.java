package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How far the lake lags behind the log in one bucket (one bucket of one partition, for a partitioned table's log).
 *
 * @param partition the partition path, for a bucket of a partitioned table's log; empty for a per-bucket log
 * @param partitionId the partition's id in the log (its offset-map keys are {@code <partitionId>/<bucket>})
 * @param bucket the bucket
 * @param lakeOffset next offset not yet in the lake
 * @param logEndOffset next offset not yet in the log
 * @param recordsBehind changes in the log that the lake does not hold
 * @param oldestUntieredCommitMillis when the oldest change the lake does not hold was committed; empty when none
 */
public record BucketFreshness(
        Optional<String> partition,
        Optional<Integer> partitionId,
        int bucket,
        long lakeOffset,
        long logEndOffset,
        long recordsBehind,
        OptionalLong oldestUntieredCommitMillis) {
    public BucketFreshness {
        requireNonNull(partition, "partition is null");
        requireNonNull(partitionId, "partitionId is null");
        requireNonNull(oldestUntieredCommitMillis, "oldestUntieredCommitMillis is null");
    }

    /** This log's offset in {@code offsets} (a lake's offset map). */
    public long offsetIn(OffsetMap offsets) {
        return partitionId.isPresent()
                ? offsets.offset(new PartitionBucket(partitionId.get(), bucket))
                : offsets.offset(bucket);
    }
}
