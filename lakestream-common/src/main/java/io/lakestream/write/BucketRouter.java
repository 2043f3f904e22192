package io.lakestream.write;

import io.lakestream.bucket.BucketFunction;
import java.util.Arrays;
import java.util.Optional;

/**
 * Finds the bucket of every row of a {@link RowBatch} and groups the rows by bucket, each bucket's
 * rows in the order they were written ({@link #rows()}, from {@link #start} to {@link #end}). The
 * bucket is the shared bucket function's of the row's bucket key, hashed from the batch's values
 * ({@link ValueConverter#bucketHash}); a table without a bucket key spreads rows round-robin.
 */
final class BucketRouter {
    /** Empty for a table without a bucket key. */
    private final Optional<BucketFunction> bucketFunction;

    private final int[] keyPositions;
    private final ValueConverter[] keyConverters;
    private final int[] keyHashes;
    private final int bucketCount;
    private final int[] buckets;
    private final int[] rows;
    /** Bucket {@code b}'s rows are {@code rows[starts[b]]} to {@code rows[starts[b + 1] - 1]}. */
    private final int[] starts;

    private int nextRoundRobinBucket;

    BucketRouter(
            Optional<BucketFunction> bucketFunction,
            int[] keyPositions,
            ValueConverter[] converters,
            int bucketCount,
            int batchCapacity,
            int firstRoundRobinBucket) {
        this.bucketFunction = bucketFunction;
        this.keyPositions = keyPositions.clone();
        this.keyConverters =
                Arrays.stream(keyPositions).mapToObj(i -> converters[i]).toArray(ValueConverter[]::new);
        this.keyHashes = new int[keyPositions.length];
        this.bucketCount = bucketCount;
        this.buckets = new int[batchCapacity];
        this.rows = new int[batchCapacity];
        this.starts = new int[bucketCount + 1];
        this.nextRoundRobinBucket = firstRoundRobinBucket;
    }

    /** Routes the batch's rows; then {@link #rows}, {@link #start} and {@link #end} describe them. */
    void route(RowBatch batch) {
        int size = batch.size();
        assignBuckets(batch, size);
        // a stable counting sort of the row numbers by bucket
        Arrays.fill(starts, 0);
        for (int row = 0; row < size; row++) {
            starts[buckets[row] + 1]++;
        }
        for (int bucket = 0; bucket < bucketCount; bucket++) {
            starts[bucket + 1] += starts[bucket];
        }
        for (int row = 0; row < size; row++) {
            rows[starts[buckets[row]]++] = row;
        }
        // each start has moved to its bucket's end, which is the next bucket's start
        System.arraycopy(starts, 0, starts, 1, bucketCount);
        starts[0] = 0;
    }

    int[] rows() {
        return rows;
    }

    int start(int bucket) {
        return starts[bucket];
    }

    int end(int bucket) {
        return starts[bucket + 1];
    }

    private void assignBuckets(RowBatch batch, int size) {
        if (bucketFunction.isEmpty()) {
            for (int row = 0; row < size; row++) {
                buckets[row] = nextRoundRobinBucket;
                nextRoundRobinBucket = (nextRoundRobinBucket + 1) % bucketCount;
            }
            return;
        }
        BucketFunction function = bucketFunction.get();
        if (keyPositions.length == 1) {
            // one column: one loop over its values
            ValueConverter converter = keyConverters[0];
            int column = keyPositions[0];
            for (int row = 0; row < size; row++) {
                buckets[row] = function.bucketOfHash(converter.bucketHash(batch, column, row));
            }
            return;
        }
        for (int row = 0; row < size; row++) {
            for (int i = 0; i < keyPositions.length; i++) {
                keyHashes[i] = keyConverters[i].bucketHash(batch, keyPositions[i], row);
            }
            buckets[row] = function.bucketOfHashes(keyHashes);
        }
    }
}
