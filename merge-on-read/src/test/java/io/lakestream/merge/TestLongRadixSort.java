package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/** {@link LongRadixSort} against the JDK's comparison sort, over sizes and value distributions that take or skip passes. */
class TestLongRadixSort {
    @Test
    void sortsLikeArraysSort() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        LongSupplier[] distributions = {
            random::nextLong,
            // dense ids: two or three bytes vary
            () -> random.nextInt(3_000_000),
            // negatives and positives around zero: the sign byte varies
            () -> random.nextInt(200_000) - 100_000,
            // only high bytes vary: the low passes are skipped
            () -> (long) random.nextInt(1000) << 40,
            // the extremes and their neighbours
            () -> switch (random.nextInt(4)) {
                case 0 -> Long.MIN_VALUE + random.nextInt(3);
                case 1 -> Long.MAX_VALUE - random.nextInt(3);
                case 2 -> -1 - random.nextInt(3);
                default -> random.nextInt(3);
            },
            // one value repeated: every pass is skipped
            () -> 42
        };
        int[] sizes = {0, 1, 2, LongRadixSort.MIN_VALUES - 1, LongRadixSort.MIN_VALUES, 5000, 37_500, 200_000};
        for (int d = 0; d < distributions.length; d++) {
            for (int size : sizes) {
                long[] values = new long[size];
                for (int i = 0; i < size; i++) {
                    values[i] = distributions[d].getAsLong();
                }
                long[] expected = values.clone();
                Arrays.sort(expected);
                LongRadixSort.sort(values);
                assertThat(values)
                        .as("seed %d, distribution %d, size %d", seed, d, size)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void sortedKeysOfAnIndexAscend() {
        LongKeyIndex index = new LongKeyIndex(16);
        long[] keys =
                new Random(3).longs(50_000, -1_000_000, 1_000_000).distinct().toArray();
        for (long key : keys) {
            index.put(key, 1);
        }
        // zero is kept beside the hash table
        index.put(0, 1);
        long[] expected = java.util.stream.LongStream.concat(Arrays.stream(keys), java.util.stream.LongStream.of(0))
                .distinct()
                .sorted()
                .toArray();
        assertThat(index.sortedKeys()).isEqualTo(expected);
    }
}
