package io.lakestream.merge;

import java.util.Arrays;

/**
 * Sorts {@code long}s by their bytes, least significant first (an LSD radix sort): a few linear passes
 * instead of a comparison sort's {@code n log n} comparisons, for the changed keys of a log tail that a
 * merge in key order sorts once per split (tens of thousands of keys; session 6's profile put
 * {@link Arrays#sort(long[])} there at a quarter of the merge's own cost). A pass whose byte is the same
 * in every value is skipped, so keys of a narrow range (ids, dates) take two or three passes.
 */
final class LongRadixSort {
    /** Below this many values, the comparison sort is faster than counting 8 x 256 buckets. */
    static final int MIN_VALUES = 1024;

    private static final int BYTES = Long.BYTES;
    private static final int BUCKETS = 256;

    private LongRadixSort() {}

    /** Sorts {@code values} ascending, as signed longs. */
    static void sort(long[] values) {
        int n = values.length;
        if (n < MIN_VALUES) {
            Arrays.sort(values);
            return;
        }
        // one pass counts the buckets of every byte; the sign bit is flipped so that negatives sort first
        int[] counts = new int[BYTES * BUCKETS];
        for (long value : values) {
            long bits = value ^ Long.MIN_VALUE;
            for (int digit = 0; digit < BYTES; digit++) {
                counts[digit * BUCKETS + (int) ((bits >>> (digit * 8)) & 0xFF)]++;
            }
        }
        long[] source = values;
        long[] target = new long[n];
        for (int digit = 0; digit < BYTES; digit++) {
            int base = digit * BUCKETS;
            int shift = digit * 8;
            if (counts[base + (int) (((source[0] ^ Long.MIN_VALUE) >>> shift) & 0xFF)] == n) {
                continue; // every value has the same byte here: the order stays
            }
            int start = 0;
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                int count = counts[base + bucket];
                counts[base + bucket] = start;
                start += count;
            }
            for (long value : source) {
                target[counts[base + (int) (((value ^ Long.MIN_VALUE) >>> shift) & 0xFF)]++] = value;
            }
            long[] sorted = target;
            target = source;
            source = sorted;
        }
        if (source != values) {
            System.arraycopy(source, 0, values, 0, n);
        }
    }
}
