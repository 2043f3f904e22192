package io.lakestream.merge;

import java.util.SplittableRandom;

/** The inputs of the kernel benchmarks: seeded, so every run and every fork measures the same keys. */
final class KernelData {
    private KernelData() {}

    /** {@code count} distinct keys drawn from {@code [0, range)}, in random order. */
    static long[] distinctKeys(int range, int count, long seed) {
        if (count > range) {
            throw new IllegalArgumentException("cannot draw %s distinct keys from %s".formatted(count, range));
        }
        // a partial Fisher-Yates shuffle of 0..range-1
        int[] values = new int[range];
        for (int i = 0; i < range; i++) {
            values[i] = i;
        }
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            int j = i + random.nextInt(range - i);
            int swap = values[j];
            values[j] = values[i];
            values[i] = swap;
            keys[i] = swap;
        }
        return keys;
    }

    /** {@code count} keys drawn from {@code [0, range)} with repeats, in random order. */
    static long[] randomKeys(int range, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            keys[i] = random.nextInt(range);
        }
        return keys;
    }

    /** The keys {@code 0..count-1} in order: a lake file written in key order. */
    static long[] ascendingKeys(int count) {
        long[] keys = new long[count];
        for (int i = 0; i < count; i++) {
            keys[i] = i;
        }
        return keys;
    }

    /**
     * The tail's change values as the merge packs them: the change's offset shifted left by one, the low bit
     * set for a delete (every seventh change here).
     */
    static long[] changeValues(int count) {
        long[] values = new long[count];
        for (int i = 0; i < count; i++) {
            values[i] = (long) i << 1 | (i % 7 == 0 ? 1 : 0);
        }
        return values;
    }
}
