package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import java.util.OptionalLong;

/**
 * How far the lake lags behind the log in one bucket.
 *
 * @param bucket the bucket
 * @param lakeOffset next offset not yet in the lake
 * @param logEndOffset next offset not yet in the log
 * @param recordsBehind changes in the log that the lake does not hold
 * @param oldestUntieredCommitMillis when the oldest change the lake does not hold was committed; empty when none
 */
public record BucketFreshness(
        int bucket, long lakeOffset, long logEndOffset, long recordsBehind, OptionalLong oldestUntieredCommitMillis) {
    public BucketFreshness {
        requireNonNull(oldestUntieredCommitMillis, "oldestUntieredCommitMillis is null");
    }
}
