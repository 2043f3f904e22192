package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link LongRadixSort} against the JDK's sorts, over sizes and value distributions that take or skip passes. */
@ExtendWith(Seeds.class)
class TestLongRadixSort {
    @Test
    void sortsLikeArraysSort() {
        long seed = Seeds.seed(20261202);
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

    /**
     * {@link LongRadixSort#sortPairs}: the keys as {@link Arrays#sort} sorts them, each value still beside its
     * key, and the values of equal keys in their first order (stable): the value is the pair's index, so the
     * oracle is a stable sort of the indexes by key.
     */
    @Test
    void sortsPairsStablyByKey() {
        long seed = Seeds.seed(20261203);
        Random random = new Random(seed);
        int[] sizes = {
            0, 1, 2, LongRadixSort.MIN_PAIRS - 1, LongRadixSort.MIN_PAIRS, LongRadixSort.MIN_VALUES, 5000, 37_500
        };
        for (int size : sizes) {
            for (long range : new long[] {3, 1_000, 3_000_000, Long.MAX_VALUE}) {
                long[] keys = new long[size + random.nextInt(3)]; // the arrays may be longer than the pairs
                for (int i = 0; i < keys.length; i++) {
                    keys[i] = range == Long.MAX_VALUE ? random.nextLong() : random.nextLong(range) - range / 3;
                }
                long[] values = LongStream.range(0, keys.length).toArray();
                long[] original = keys.clone();
                Long[] expected = LongStream.range(0, size).boxed().toArray(Long[]::new);
                // a stable sort by key (Arrays.sort of objects is a merge sort)
                Arrays.sort(expected, Comparator.comparingLong(index -> original[(int) (long) index]));

                LongRadixSort.sortPairs(keys, values, size);
                String description = "seed %d, size %d, range %d".formatted(seed, size, range);
                assertThat(Arrays.copyOf(values, size)).as(description).containsExactly(unbox(expected));
                for (int i = 0; i < size; i++) {
                    assertThat(keys[i]).as(description).isEqualTo(original[(int) values[i]]);
                }
                // beyond the pairs, nothing moved
                for (int i = size; i < keys.length; i++) {
                    assertThat(keys[i]).isEqualTo(original[i]);
                    assertThat(values[i]).isEqualTo(i);
                }
            }
        }
    }

    @Test
    void sortedKeysOfAnIndexAscend() {
        LongKeyIndex index = new LongKeyIndex(16);
        long[] keys =
                Seeds.random(3).longs(50_000, -1_000_000, 1_000_000).distinct().toArray();
        for (long key : keys) {
            index.put(key, 1);
        }
        // zero is kept beside the hash table
        index.put(0, 1);
        long[] expected = LongStream.concat(Arrays.stream(keys), LongStream.of(0))
                .distinct()
                .sorted()
                .toArray();
        assertThat(index.sortedKeys()).isEqualTo(expected);
    }

    private static long[] unbox(Long[] values) {
        return Arrays.stream(values).mapToLong(Long::longValue).toArray();
    }
}
