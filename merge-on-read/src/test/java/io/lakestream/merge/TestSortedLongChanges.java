package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.log.ChangeType;
import io.lakestream.testing.Seeds;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SortedLongChanges}: a log tail's changes in offset order, sorted once, against a sorted map that
 * keeps the last change per key as the oracle (keys repeating many times or never, extremes, sizes on both
 * sides of the sort's thresholds, an expected size far too small).
 */
@ExtendWith(Seeds.class)
class TestSortedLongChanges {
    private static final long[] EDGES = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1};

    @Test
    void keepsTheLastChangeOfEveryKeyInKeyOrder() {
        long seed = Seeds.seed(20261202);
        Random random = new Random(seed);
        int[] sizes = {0, 1, 2, 10, LongRadixSort.MIN_PAIRS, 1_000, LongRadixSort.MIN_VALUES + 1, 20_000, 150_000};
        for (int round = 0; round < 60; round++) {
            int size = sizes[round % sizes.length];
            // few distinct keys (many changes per key) to unique ones
            long range = new long[] {2, 50, 10_000, 3_000_000, Long.MAX_VALUE}[random.nextInt(5)];
            int expected = random.nextBoolean() ? size : 1;
            SortedLongChanges.Builder builder = new SortedLongChanges.Builder(expected);
            Map<Long, Long> oracle = new TreeMap<>();
            long offset = random.nextInt(1_000);
            for (int i = 0; i < size; i++) {
                long key = random.nextInt(30) == 0
                        ? EDGES[random.nextInt(EDGES.length)]
                        : range == Long.MAX_VALUE ? random.nextLong() : random.nextLong(range) - range / 2;
                long change = TailKeys.change(offset++, random.nextInt(4) == 0 ? ChangeType.DELETE : ChangeType.UPSERT);
                builder.add(key, change);
                oracle.put(key, change);
            }
            SortedLongChanges sorted = builder.build();
            String description = "seed %d, round %d, %d changes of keys in %d".formatted(seed, round, size, range);
            assertThat(sorted.size()).as(description).isEqualTo(oracle.size());
            assertThat(sorted.keys())
                    .as(description)
                    .isEqualTo(
                            oracle.keySet().stream().mapToLong(Long::longValue).toArray());
            assertThat(sorted.changes())
                    .as(description)
                    .isEqualTo(
                            oracle.values().stream().mapToLong(Long::longValue).toArray());
        }
    }

    @Test
    void sortsOnce() {
        SortedLongChanges.Builder builder = new SortedLongChanges.Builder(4);
        builder.add(3, 10);
        builder.build();
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sorted already");
    }
}
