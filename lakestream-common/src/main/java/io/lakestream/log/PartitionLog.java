package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.Collections;
import java.util.List;

/**
 * The live log of one partition of a partitioned table at a version: each bucket's range and segments, as {@link
 * BucketLog} is for a bucket of an unpartitioned table.
 *
 * @param id the dense id the first commit writing into the partition assigned (0, 1, 2, ... in commit order)
 * @param path the partition's values as the lake's partition path, e.g. {@code ts_day=2026-12-01/region=eu} (the
 *     user's partition fields only, without the bucket field)
 * @param buckets one entry per bucket of the table
 */
public record PartitionLog(int id, String path, List<BucketLog> buckets) {
    public PartitionLog {
        checkArgument(id >= 0, "partition id is negative");
        requireNonNull(path, "path is null");
        buckets = ImmutableList.copyOf(requireNonNull(buckets, "buckets is null"));
    }

    /** A partition that no commit has written into yet. */
    static PartitionLog empty(int id, String path, int bucketCount) {
        return new PartitionLog(id, path, Collections.nCopies(bucketCount, BucketLog.EMPTY));
    }

    public BucketLog bucket(int bucket) {
        checkArgument(bucket >= 0 && bucket < buckets.size(), "bucket %s out of range [0, %s)", bucket, buckets.size());
        return buckets.get(bucket);
    }

    PartitionLog withBucket(int bucket, BucketLog log) {
        List<BucketLog> next = new java.util.ArrayList<>(buckets);
        next.set(bucket, log);
        return new PartitionLog(id, path, next);
    }
}
