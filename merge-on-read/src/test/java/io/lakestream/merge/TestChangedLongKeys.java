package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link ChangedLongKeys#retainUnchanged}: rows in key order take the merge walk ({@link AscendingLongKeys}),
 * every row of a batch in key order the galloping search, others the hash probe; all against a set of the
 * changed keys as the oracle.
 */
@ExtendWith(Seeds.class)
class TestChangedLongKeys {
    private static final long[] EDGES = {
        0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1
    };

    @Test
    void ascendingAndUnorderedRowsKeepExactlyTheUnchangedKeys() {
        Random random = Seeds.random(5);
        for (int round = 0; round < 400; round++) {
            int range = 1 + random.nextInt(round % 3 == 0 ? 50 : 100_000);
            // changed keys: updates of lake keys, and keys the lake does not have (new keys, deletes of absent keys)
            Set<Long> changed = randomKeys(random, range, random.nextInt(2_000));
            ChangedLongKeys keys = changedKeys(changed, random.nextBoolean());

            long[] rowKeys = new long[random.nextInt(3_000)];
            for (int i = 0; i < rowKeys.length; i++) {
                rowKeys[i] = randomKey(random, range);
            }
            int[] rows = rows(random, rowKeys.length);
            int size = rows.length;
            switch (random.nextInt(3)) {
                // a sorted lake file: the keys ascend along the rows (duplicates too)
                case 0 -> sortAlong(rowKeys, rows, size);
                // a sorted file with one row out of order: the hash probe
                case 1 -> {
                    sortAlong(rowKeys, rows, size);
                    if (size > 1) {
                        rowKeys[rows[size - 1]] = rowKeys[rows[0]] - 1;
                    }
                }
                default -> {}
            }
            int[] expected = Arrays.stream(rows, 0, size)
                    .filter(row -> !changed.contains(rowKeys[row]))
                    .toArray();
            boolean inOrder = size >= AscendingLongKeys.MIN_ROWS
                    && IntStream.range(1, size).allMatch(i -> rowKeys[rows[i - 1]] <= rowKeys[rows[i]]);
            int kept = keys.retainUnchanged(rowKeys, rows, size);
            assertThat(Arrays.copyOf(rows, kept)).as("round %s", round).containsExactly(expected);
            assertThat(keys.rowsInKeyOrder()).as("round %s", round).isEqualTo(inOrder ? size : 0);
        }
    }

    /**
     * {@link ChangedLongKeys#retainUnchangedInAscendingRange}: a range of a file whose keys ascend (duplicates,
     * extremes, changed keys below, among and above the rows, dense and sparse), against a set of the changed
     * keys as the oracle; the kept rows are offsets from the range's start.
     */
    @Test
    void ascendingRangesKeepExactlyTheUnchangedKeys() {
        Random random = Seeds.random(11);
        for (int round = 0; round < 2_000; round++) {
            int range = 1 + random.nextInt(round % 3 == 0 ? 50 : 100_000);
            Set<Long> changed = randomKeys(random, range, random.nextInt(round % 4 == 0 ? 5 : 3_000));
            ChangedLongKeys keys = changedKeys(changed, random.nextBoolean());
            long[] fileKeys = new long[random.nextInt(3_000)];
            for (int i = 0; i < fileKeys.length; i++) {
                fileKeys[i] = randomKey(random, range);
            }
            Arrays.sort(fileKeys);
            assertThat(ChangedLongKeys.ascending(fileKeys)).isTrue();
            int from = fileKeys.length == 0 ? 0 : random.nextInt(fileKeys.length);
            int to = from + random.nextInt(fileKeys.length - from + 1);
            int[] expected = IntStream.range(from, to)
                    .filter(row -> !changed.contains(fileKeys[row]))
                    .map(row -> row - from)
                    .toArray();
            int[] kept = new int[to - from];
            int count = keys.retainUnchangedInAscendingRange(fileKeys, from, to, kept);
            assertThat(Arrays.copyOf(kept, count)).as("round %s", round).containsExactly(expected);
            assertThat(keys.rowsInKeyOrder()).isEqualTo(to - from);
        }
    }

    @Test
    void gallopingFindsTheFirstRowAtOrAboveAKey() {
        long[] rowKeys = {Long.MIN_VALUE, -5, -5, 0, 3, 3, 3, 9, 100, Long.MAX_VALUE, Long.MAX_VALUE};
        for (int from = 0; from <= rowKeys.length; from++) {
            for (int to = from; to <= rowKeys.length; to++) {
                for (long key : new long[] {Long.MIN_VALUE, -6, -5, -4, 0, 3, 4, 9, 10, 101, Long.MAX_VALUE}) {
                    int expected = from;
                    while (expected < to && rowKeys[expected] < key) {
                        expected++;
                    }
                    assertThat(AscendingLongKeys.firstAtLeast(rowKeys, from, to, key))
                            .as("from %s to %s key %s", from, to, key)
                            .isEqualTo(expected);
                }
            }
        }
        assertThat(ChangedLongKeys.ascending(new long[] {1, 1, 2})).isTrue();
        assertThat(ChangedLongKeys.ascending(new long[] {1, 2, 1})).isFalse();
        assertThat(ChangedLongKeys.ascending(new long[0])).isTrue();
    }

    @Test
    void ascendingRowsBeyondEveryChangedKeyAndAmongThem() {
        ChangedLongKeys keys = new ChangedLongKeys(new long[] {Long.MIN_VALUE, 0, 10, 20, 30, Long.MAX_VALUE});
        long[] below = LongStream.range(-100, -80).toArray();
        assertThat(keys.retainUnchanged(below, identity(below.length), below.length))
                .isEqualTo(below.length);
        long[] above = LongStream.range(31, 60).toArray();
        assertThat(keys.retainUnchanged(above, identity(above.length), above.length))
                .isEqualTo(above.length);
        long[] among = LongStream.range(-5, 35).toArray();
        int[] rows = identity(among.length);
        int kept = keys.retainUnchanged(among, rows, among.length);
        assertThat(Arrays.stream(rows, 0, kept).mapToLong(row -> among[row]))
                .doesNotContain(0L, 10L, 20L, 30L)
                .hasSize(among.length - 4);
        long[] extremes = new long[20];
        Arrays.fill(extremes, 0, 10, Long.MIN_VALUE);
        Arrays.fill(extremes, 10, 20, Long.MAX_VALUE);
        assertThat(keys.retainUnchanged(extremes, identity(20), 20)).isZero();
    }

    private static Set<Long> randomKeys(Random random, int range, int count) {
        Set<Long> keys = new HashSet<>();
        for (int i = 0; i < count; i++) {
            keys.add(randomKey(random, range));
        }
        return keys;
    }

    /** The keys as a log tail gives them (sorted), or as equality delete files do (a hash index, {@link ChangedLongKeys#of}). */
    private static ChangedLongKeys changedKeys(Set<Long> keys, boolean fromHashIndex) {
        if (fromHashIndex) {
            LongKeyIndex index = new LongKeyIndex(1);
            keys.forEach(key -> index.put(key, 0));
            return ChangedLongKeys.of(index);
        }
        return new ChangedLongKeys(
                keys.stream().mapToLong(Long::longValue).sorted().toArray());
    }

    private static long randomKey(Random random, int range) {
        return random.nextInt(20) == 0 ? EDGES[random.nextInt(EDGES.length)] : random.nextInt(range) - range / 4;
    }

    /** Rows of {@code 0..count-1}, ascending: all, or some skipped (a filter ran before). */
    private static int[] rows(Random random, int count) {
        boolean all = random.nextBoolean();
        return IntStream.range(0, count)
                .filter(row -> all || random.nextInt(4) != 0)
                .toArray();
    }

    /** Sorts the keys of {@code rows[0, size)} so that they ascend along the rows. */
    private static void sortAlong(long[] keys, int[] rows, int size) {
        long[] sorted = new long[size];
        for (int i = 0; i < size; i++) {
            sorted[i] = keys[rows[i]];
        }
        Arrays.sort(sorted);
        for (int i = 0; i < size; i++) {
            keys[rows[i]] = sorted[i];
        }
    }

    private static int[] identity(int size) {
        return IntStream.range(0, size).toArray();
    }
}
