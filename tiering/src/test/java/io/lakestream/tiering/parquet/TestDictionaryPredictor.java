package io.lakestream.tiering.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Predictions against parquet-mr's first-page rule, for columns whose outcome is clear either way. */
@ExtendWith(Seeds.class)
class TestDictionaryPredictor {
    private static final int ROWS = 8192;
    private static final int PAGE_ROWS = 20_000;
    private static final long PAGE_BYTES = 1 << 20;

    @Test
    void uniqueAndMostlyUniqueColumnsFallBack() {
        Random random = Seeds.random(1);
        try (BufferAllocator allocator = new RootAllocator();
                BigIntVector ids = longs(allocator, i -> 1_000_000L + i);
                VarCharVector names = strings(allocator, i -> "name-" + random.nextInt(1_000_000))) {
            assertThat(predict(ids, Types.LongType.get())).isTrue();
            assertThat(predict(names, Types.StringType.get())).isTrue();
        }
    }

    @Test
    void repeatingColumnsKeepTheirDictionary() {
        Random random = Seeds.random(2);
        try (BufferAllocator allocator = new RootAllocator();
                IntVector scores = ints(allocator, i -> random.nextInt(1000));
                VarCharVector countries = strings(allocator, i -> "country-" + random.nextInt(200));
                // Long values drawn from 30,000: 94% distinct in the sample, but a 10,000-row page of them
                // repeats enough that the dictionary pays off, and parquet-mr keeps it.
                VarCharVector urls =
                        strings(allocator, i -> "https://example.com/" + "x".repeat(70) + random.nextInt(30_000))) {
            assertThat(predict(scores, Types.IntegerType.get())).isFalse();
            assertThat(predict(countries, Types.StringType.get())).isFalse();
            assertThat(predict(urls, Types.StringType.get())).isFalse();
        }
    }

    @Test
    void pageDistinctExtrapolation() {
        // 4096 rows drawn from 1000 values show ~983 distinct; a page of 20,000 then holds about all 1000.
        assertThat(DictionaryPredictor.pageDistinct(4096, 983, 20_000)).isBetween(990.0, 1000.0);
        assertThat(DictionaryPredictor.pageDistinct(4096, 4096, 20_000)).isEqualTo(20_000);
    }

    @Test
    void distinctCountEqualsASetsSize() {
        Random random = Seeds.random(3);
        for (int round = 0; round < 200; round++) {
            int count = random.nextInt(5000);
            int range = 1 + random.nextInt(round % 2 == 0 ? 100 : Integer.MAX_VALUE);
            int[] values = new int[count + random.nextInt(10)]; // values past count are not counted
            Set<Integer> oracle = new HashSet<>();
            for (int i = 0; i < values.length; i++) {
                values[i] = random.nextInt(range) - range / 2;
                if (i < count) {
                    oracle.add(values[i]);
                }
            }
            assertThat(DictionaryPredictor.distinctCount(values, count)).isEqualTo(oracle.size());
        }
    }

    private static boolean predict(org.apache.arrow.vector.FieldVector vector, org.apache.iceberg.types.Type type) {
        return DictionaryPredictor.wouldFallBack(vector, ROWS, type, PAGE_ROWS, PAGE_BYTES);
    }

    private static BigIntVector longs(BufferAllocator allocator, IntFunction<Long> value) {
        BigIntVector vector = new BigIntVector("v", allocator);
        vector.allocateNew(ROWS);
        for (int i = 0; i < ROWS; i++) {
            vector.set(i, value.apply(i));
        }
        vector.setValueCount(ROWS);
        return vector;
    }

    private static IntVector ints(BufferAllocator allocator, IntFunction<Integer> value) {
        IntVector vector = new IntVector("v", allocator);
        vector.allocateNew(ROWS);
        for (int i = 0; i < ROWS; i++) {
            vector.set(i, value.apply(i));
        }
        vector.setValueCount(ROWS);
        return vector;
    }

    private static VarCharVector strings(BufferAllocator allocator, IntFunction<String> value) {
        VarCharVector vector = new VarCharVector("v", allocator);
        vector.allocateNew();
        for (int i = 0; i < ROWS; i++) {
            vector.setSafe(i, value.apply(i).getBytes(StandardCharsets.UTF_8));
        }
        vector.setValueCount(ROWS);
        return vector;
    }
}
