package io.lakestream.tiering;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.io.Serializable;

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
 */
public record BucketTask(int bucket, long fromOffset, long toOffset, long logVersion, String operationId)
        implements Serializable {
    public BucketTask {
        checkArgument(bucket >= 0, "bucket is negative");
        checkArgument(0 <= fromOffset && fromOffset < toOffset, "invalid range [%s, %s)", fromOffset, toOffset);
        requireNonNull(operationId, "operationId is null");
    }

    public long records() {
        return toOffset - fromOffset;
    }
}
