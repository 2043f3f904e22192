package io.lakestream.merge;

import java.util.Arrays;

/**
 * Sorts {@code long}s by their bytes, least significant first (an LSD radix sort): a few linear passes
 * instead of a comparison sort's {@code n log n} comparisons, for the keys of a log tail that a merge in
 * key order sorts once per split (tens of thousands of keys; session 6's profile put {@link
 * Arrays#sort(long[])} there at a quarter of the merge's own cost). A pass whose byte is the same in every
 * value is skipped, so keys of a narrow range (ids, dates) take two or three passes.
 *
 * <p>{@link #sortPairs} sorts keys with a value each, stably: values of equal keys keep their order, so a
 * log tail's (key, change) pairs in offset order come out as one run per key that ends with its last
 * change ({@link SortedLongChanges}).
 */
final class LongRadixSort {
    /** Below this many values, the comparison sort is faster than counting 8 x 256 buckets. */
    static final int MIN_VALUES = 1024;
    /** Below this many pairs, an insertion sort (stable, no allocation) is faster; it is quadratic above. */
    static final int MIN_PAIRS = 64;

    private static final int BYTES = Long.BYTES;
    private static final int BUCKETS = 256;

    private LongRadixSort() {}

    /** Sorts {@code values} ascending, as signed longs. */
    static void sort(long[] values) {
        if (values.length < MIN_VALUES) {
            Arrays.sort(values);
            return;
        }
        radixSort(values, null, values.length);
    }

    /**
     * Sorts {@code keys[0, size)} ascending, as signed longs, and moves {@code values[i]} along with {@code
     * keys[i]}; pairs of equal keys keep their order (a stable sort).
     */
    static void sortPairs(long[] keys, long[] values, int size) {
        if (size < MIN_PAIRS) {
            insertionSortPairs(keys, values, size);
            return;
        }
        radixSort(keys, values, size);
    }

    /** Stable, and fast for the few pairs of a very short tail. */
    private static void insertionSortPairs(long[] keys, long[] values, int size) {
        for (int i = 1; i < size; i++) {
            long key = keys[i];
            long value = values[i];
            int j = i - 1;
            while (j >= 0 && keys[j] > key) {
                keys[j + 1] = keys[j];
                values[j + 1] = values[j];
                j--;
            }
            keys[j + 1] = key;
            values[j + 1] = value;
        }
    }

    /** The LSD passes over {@code keys[0, n)}, moving {@code values} (if not null) along. */
    private static void radixSort(long[] keys, long[] values, int n) {
        // one pass counts the buckets of every byte; the sign bit is flipped so that negatives sort first
        int[] counts = new int[BYTES * BUCKETS];
        for (int i = 0; i < n; i++) {
            long bits = keys[i] ^ Long.MIN_VALUE;
            for (int digit = 0; digit < BYTES; digit++) {
                counts[digit * BUCKETS + (int) ((bits >>> (digit * 8)) & 0xFF)]++;
            }
        }
        long[] sourceKeys = keys;
        long[] targetKeys = new long[n];
        long[] sourceValues = values;
        long[] targetValues = values == null ? null : new long[n];
        for (int digit = 0; digit < BYTES; digit++) {
            int base = digit * BUCKETS;
            int shift = digit * 8;
            if (counts[base + (int) (((sourceKeys[0] ^ Long.MIN_VALUE) >>> shift) & 0xFF)] == n) {
                continue; // every key has the same byte here: the order stays
            }
            int start = 0;
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                int count = counts[base + bucket];
                counts[base + bucket] = start;
                start += count;
            }
            if (sourceValues == null) {
                for (int i = 0; i < n; i++) {
                    long key = sourceKeys[i];
                    targetKeys[counts[base + (int) (((key ^ Long.MIN_VALUE) >>> shift) & 0xFF)]++] = key;
                }
            } else {
                for (int i = 0; i < n; i++) {
                    long key = sourceKeys[i];
                    int to = counts[base + (int) (((key ^ Long.MIN_VALUE) >>> shift) & 0xFF)]++;
                    targetKeys[to] = key;
                    targetValues[to] = sourceValues[i];
                }
                long[] sortedValues = targetValues;
                targetValues = sourceValues;
                sourceValues = sortedValues;
            }
            long[] sortedKeys = targetKeys;
            targetKeys = sourceKeys;
            sourceKeys = sortedKeys;
        }
        if (sourceKeys != keys) {
            System.arraycopy(sourceKeys, 0, keys, 0, n);
            if (values != null) {
                System.arraycopy(sourceValues, 0, values, 0, n);
            }
        }
    }
}
