package io.lakestream.tiering;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import io.lakestream.plan.LogRange;
import java.io.Serializable;
import java.util.Optional;

/**
 * The unit of tiering work: turn the log range {@code [fromOffset, toOffset)} of one bucket, read at
 * a pinned log version, into lake files. Plain values only, so a distributed job (a Spark task) can
 * receive it (serialized) and run {@link BucketRangeWriter} on an executor; the driver commits the
 * {@link BucketFiles} of all tasks in one lake commit.
 *
 * @param bucket the bucket
 * @param fromOffset first offset to tier (the lake's offset)
 * @param toOffset first offset not tiered by this task
 * @param logVersion the log version the range was planned at
 * @param operationId unique per planning attempt; part of every file name, so retries never collide
 * @param partitioned whether the range is of a bucket of a partition of a partitioned table's log (plain values, not
 *     an {@code Optional}, so the task stays serializable)
 * @param partitionId that partition's id, when {@code partitioned} (0 otherwise)
 */
public record BucketTask(
        int bucket,
        long fromOffset,
        long toOffset,
        long logVersion,
        String operationId,
        boolean partitioned,
        int partitionId)
        implements Serializable {
    public BucketTask {
        checkArgument(bucket >= 0, "bucket is negative");
        checkArgument(0 <= fromOffset && fromOffset < toOffset, "invalid range [%s, %s)", fromOffset, toOffset);
        requireNonNull(operationId, "operationId is null");
        checkArgument(partitionId >= 0 && (partitioned || partitionId == 0), "invalid partitionId %s", partitionId);
    }

    /** A range of a bucket of an unpartitioned table's log. */
    public BucketTask(int bucket, long fromOffset, long toOffset, long logVersion, String operationId) {
        this(bucket, fromOffset, toOffset, logVersion, operationId, false, 0);
    }

    /** The log range this task tiers. */
    public LogRange range() {
        return new LogRange(bucket, fromOffset, toOffset, partitioned ? Optional.of(partitionId) : Optional.empty());
    }

    public long records() {
        return toOffset - fromOffset;
    }
}
