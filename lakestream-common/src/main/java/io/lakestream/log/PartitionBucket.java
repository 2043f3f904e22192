package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Comparator;

/**
 * One change log of a partitioned table: a bucket of a partition (docs/format.md "The log of a partitioned table").
 * Its offsets count from 0 independently of every other (partition, bucket). Written as {@code <partitionId>/<bucket>}
 * in offset maps.
 *
 * @param partitionId the dense id the first commit writing into the partition assigned to it
 * @param bucket the bucket
 */
public record PartitionBucket(int partitionId, int bucket) implements Comparable<PartitionBucket> {
    private static final Comparator<PartitionBucket> ORDER =
            Comparator.comparingInt(PartitionBucket::partitionId).thenComparingInt(PartitionBucket::bucket);

    public PartitionBucket {
        checkArgument(partitionId >= 0, "partitionId is negative");
        checkArgument(bucket >= 0, "bucket is negative");
    }

    /** The key of an offset map entry: {@code <partitionId>/<bucket>}. */
    public String key() {
        return partitionId + "/" + bucket;
    }

    /** Whether an offset map key names a (partition, bucket) rather than a bucket of an unpartitioned table. */
    public static boolean isKey(String key) {
        return key.indexOf('/') >= 0;
    }

    /** {@link #parseKey}, under the name Jackson looks for when a map is introspected with these keys. */
    public static PartitionBucket valueOf(String key) {
        return parseKey(key);
    }

    public static PartitionBucket parseKey(String key) {
        int slash = key.indexOf('/');
        checkArgument(slash > 0, "not a <partitionId>/<bucket> key: %s", key);
        return new PartitionBucket(
                Integer.parseInt(key.substring(0, slash)), Integer.parseInt(key.substring(slash + 1)));
    }

    @Override
    public int compareTo(PartitionBucket other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return key();
    }
}
