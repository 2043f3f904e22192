package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.Seeds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class TestLongKeyIndex {
    private static final long[] EDGES = {
        0,
        1,
        -1,
        Long.MIN_VALUE,
        Long.MAX_VALUE,
        Long.MIN_VALUE + 1,
        Long.MAX_VALUE - 1,
        Integer.MIN_VALUE,
        Integer.MAX_VALUE
    };

    @Test
    void behavesLikeAHashMapThroughManyResizes() {
        Random random = Seeds.random(11);
        // sized for one key: every key after the first few grows the table
        LongKeyIndex index = new LongKeyIndex(1);
        Map<Long, Long> oracle = new HashMap<>();
        List<Long> keys = new ArrayList<>();
        for (int i = 0; i < 300_000; i++) {
            long key = switch (random.nextInt(4)) {
                case 0 -> EDGES[random.nextInt(EDGES.length)];
                case 1 -> random.nextLong();
                // dense keys, positive and negative: the common primary key
                case 2 -> random.nextInt(100_000) - 50_000;
                // multiples of a large power of two: the same low bits
                default -> (long) random.nextInt(1000) << 40;
            };
            long value = random.nextLong() & Long.MAX_VALUE;
            Long previous = oracle.put(key, value);
            assertThat(index.put(key, value)).isEqualTo(previous == null ? -1 : previous);
            keys.add(key);
        }
        assertThat(index.size()).isEqualTo(oracle.size());
        for (Map.Entry<Long, Long> entry : oracle.entrySet()) {
            assertThat(index.get(entry.getKey())).isEqualTo(entry.getValue());
            assertThat(index.contains(entry.getKey())).isTrue();
        }
        assertThat(java.util.Arrays.stream(index.values()).sorted().boxed().toList())
                .isEqualTo(oracle.values().stream().sorted().toList());
        for (int i = 0; i < 100_000; i++) {
            long key = random.nextLong();
            assertThat(index.contains(key)).isEqualTo(oracle.containsKey(key));
            assertThat(index.get(key)).isEqualTo(oracle.getOrDefault(key, -1L));
        }
    }

    @Test
    void edgeKeysAreDistinctAndZeroIsAKeyLikeAnyOther() {
        LongKeyIndex index = new LongKeyIndex();
        for (long key : EDGES) {
            assertThat(index.contains(key)).isFalse();
            assertThat(index.get(key)).isEqualTo(-1);
        }
        for (int i = 0; i < EDGES.length; i++) {
            assertThat(index.put(EDGES[i], i)).isEqualTo(-1);
        }
        for (int i = 0; i < EDGES.length; i++) {
            assertThat(index.get(EDGES[i])).isEqualTo(i);
        }
        assertThat(index.size()).isEqualTo(EDGES.length);
        // the last change of a key wins, zero included
        assertThat(index.put(0, 100)).isEqualTo(0);
        assertThat(index.put(Long.MIN_VALUE, 101)).isEqualTo(3);
        assertThat(index.get(0)).isEqualTo(100);
        assertThat(index.size()).isEqualTo(EDGES.length);
        assertThat(index.values()).contains(100L, 101L).hasSize(EDGES.length);
    }

    @Test
    void zeroKeySurvivesResizes() {
        LongKeyIndex index = new LongKeyIndex(1);
        index.put(0, 7);
        for (long key = 1; key <= 10_000; key++) {
            index.put(-key, key);
        }
        assertThat(index.contains(0)).isTrue();
        assertThat(index.get(0)).isEqualTo(7);
        int[] rows = {0, 1, 2};
        // keys by row: 0 (present), 5 (absent), -5 (present)
        assertThat(index.retainAbsent(new long[] {0, 5, -5}, rows, 3)).isEqualTo(1);
        assertThat(rows[0]).isEqualTo(1);
    }

    @Test
    void retainAbsentKeepsTheRowsWhoseKeyIsMissingInOrder() {
        Random random = Seeds.random(3);
        LongKeyIndex index = new LongKeyIndex(100);
        for (int i = 0; i < 5_000; i++) {
            index.put(random.nextInt(50_000) - 25_000, i);
        }
        long[] keys = new long[8192];
        for (int row = 0; row < keys.length; row++) {
            keys[row] = random.nextInt(50_000) - 25_000;
        }
        // every third row is selected on entry
        int[] rows = new int[keys.length];
        int size = 0;
        for (int row = 0; row < keys.length; row += 3) {
            rows[size++] = row;
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            if (!index.contains(keys[rows[i]])) {
                expected.add(rows[i]);
            }
        }
        int kept = index.retainAbsent(keys, rows, size);
        assertThat(kept).isLessThan(size);
        List<Integer> actual = new ArrayList<>();
        for (int i = 0; i < kept; i++) {
            actual.add(rows[i]);
        }
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void negativeValuesAreRefused() {
        assertThatThrownBy(() -> new LongKeyIndex().put(1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
