package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.log.ChangeType;
import io.lakestream.reader.LogBatch;
import io.lakestream.testing.Seeds;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.LongFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The primitive long layout of a tail index against the generic byte-encoded one: the same changes
 * give the same winners and hide the same lake rows, in one pass and across several.
 */
@ExtendWith(Seeds.class)
class TestTailKeys {
    private static final long[] EDGES = {
        0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1
    };

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void singleLongKeyIsChosenForIntegralKeysOnly() {
        for (Type type : List.of(
                Types.LongType.get(),
                Types.IntegerType.get(),
                Types.DateType.get(),
                Types.TimeType.get(),
                Types.TimestampType.withZone(),
                Types.TimestampType.withoutZone())) {
            assertThat(TailKeys.forKeyTypes(List.of(type), 10))
                    .as(type.toString())
                    .isInstanceOf(TailKeys.SingleLong.class);
        }
        assertThat(TailKeys.forKeyTypes(List.of(Types.StringType.get()), 10)).isInstanceOf(TailKeys.Generic.class);
        assertThat(TailKeys.forKeyTypes(List.of(Types.LongType.get(), Types.LongType.get()), 10))
                .isInstanceOf(TailKeys.Generic.class);
        assertThat(TailKeys.forKeyTypes(List.of(Types.DecimalType.of(10, 2)), 10))
                .isInstanceOf(TailKeys.Generic.class);
    }

    @Test
    void longKeysMatchTheGenericIndex() {
        Random random = Seeds.random(5);
        compare(
                random,
                Types.LongType.get(),
                () -> new BigIntVector("id", allocator),
                (vector, row, key) -> ((BigIntVector) vector).set(row, key),
                this::longKey);
    }

    @Test
    void intKeysMatchTheGenericIndex() {
        Random random = Seeds.random(6);
        compare(
                random,
                Types.IntegerType.get(),
                () -> new IntVector("id", allocator),
                (vector, row, key) -> ((IntVector) vector).set(row, (int) key),
                seed -> (long) (int) longKey(seed));
    }

    @Test
    void dateKeysMatchTheGenericIndex() {
        Random random = Seeds.random(7);
        compare(
                random,
                Types.DateType.get(),
                () -> new DateDayVector("day", allocator),
                (vector, row, key) -> ((DateDayVector) vector).set(row, (int) key),
                seed -> (long) (int) longKey(seed));
    }

    @Test
    void noChangeIsAddedAfterTheIndexIsRead() {
        TailKeys keys = TailKeys.forKeyTypes(List.of(Types.LongType.get()), 4);
        keys.values();
        try (LogBatch batch = logBatch(new long[] {1, 2})) {
            assertThatThrownBy(() -> keys.add(List.of(batch.column(0)), batch, 0, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("after the index was read");
        }
    }

    private LogBatch logBatch(long[] keys) {
        TinyIntVector types = new TinyIntVector("__change_type", allocator);
        TimeStampMicroTZVector times = new TimeStampMicroTZVector("__timestamp", allocator, "UTC");
        BigIntVector key = new BigIntVector("id", allocator);
        types.allocateNew(keys.length);
        times.allocateNew(keys.length);
        key.allocateNew(keys.length);
        for (int row = 0; row < keys.length; row++) {
            types.set(row, ChangeType.UPSERT.code());
            times.set(row, 0);
            key.set(row, keys[row]);
        }
        types.setValueCount(keys.length);
        times.setValueCount(keys.length);
        key.setValueCount(keys.length);
        return new LogBatch(0, 0, 0, new VectorSchemaRoot(List.of(types, times, key)));
    }

    /** A key from a random long: mostly a small range (so that keys repeat), sometimes an edge value, sometimes null. */
    private long longKey(long seed) {
        int choice = (int) Math.floorMod(seed, 10);
        if (choice == 0) {
            return EDGES[(int) Math.floorMod(seed >>> 8, EDGES.length)];
        }
        return Math.floorMod(seed >>> 8, 400) - 200;
    }

    @FunctionalInterface
    private interface Setter {
        void set(FieldVector vector, int row, long key);
    }

    private void compare(
            Random random,
            Type type,
            java.util.function.Supplier<BaseFixedWidthVector> vectors,
            Setter setter,
            LongFunction<Long> keys) {
        for (int passes : new int[] {1, 2, 3}) {
            // changes: batches of log rows, some null keys, upserts and deletes
            List<LogBatch> log = new ArrayList<>();
            long offset = 1000;
            for (int b = 0; b < 4; b++) {
                int rows = 1 + random.nextInt(300);
                TinyIntVector types = new TinyIntVector("__change_type", allocator);
                TimeStampMicroTZVector times = new TimeStampMicroTZVector("__timestamp", allocator, "UTC");
                BaseFixedWidthVector key = vectors.get();
                types.allocateNew(rows);
                times.allocateNew(rows);
                key.allocateNew(rows);
                for (int row = 0; row < rows; row++) {
                    types.set(row, random.nextInt(4) == 0 ? ChangeType.DELETE.code() : ChangeType.UPSERT.code());
                    times.set(row, 0);
                    if (random.nextInt(50) == 0) {
                        key.setNull(row);
                    } else {
                        setter.set(key, row, keys.apply(random.nextLong()));
                    }
                }
                types.setValueCount(rows);
                times.setValueCount(rows);
                key.setValueCount(rows);
                log.add(new LogBatch(0, offset, 0, new VectorSchemaRoot(List.of(types, times, key))));
                offset += rows;
            }
            // lake rows: with and without null keys, and in key order (a compacted file: merged with the sorted keys)
            List<BaseFixedWidthVector> lake = new ArrayList<>();
            for (String kind : List.of("unordered", "nulls", "ascending")) {
                int rows = 2000;
                long[] values = new long[rows];
                for (int row = 0; row < rows; row++) {
                    values[row] = keys.apply(random.nextLong());
                }
                if (kind.equals("ascending")) {
                    java.util.Arrays.sort(values);
                }
                BaseFixedWidthVector key = vectors.get();
                key.allocateNew(rows);
                for (int row = 0; row < rows; row++) {
                    if (kind.equals("nulls") && random.nextInt(20) == 0) {
                        key.setNull(row);
                    } else {
                        setter.set(key, row, values[row]);
                    }
                }
                key.setValueCount(rows);
                lake.add(key);
            }
            try {
                Set<Long> keptInSomePass = new HashSet<>();
                long hiddenTotal = 0;
                for (int pass = 0; pass < passes; pass++) {
                    TailKeys primitive = TailKeys.forKeyTypes(List.of(type), 16);
                    TailKeys generic = new TailKeys.Generic(List.of(type));
                    assertThat(primitive).isInstanceOf(TailKeys.SingleLong.class);
                    long primitiveAdded = 0;
                    long genericAdded = 0;
                    for (LogBatch batch : log) {
                        List<FieldVector> keyVectors = List.of(batch.column(0));
                        primitiveAdded += primitive.add(keyVectors, batch, pass, passes);
                        genericAdded += generic.add(keyVectors, batch, pass, passes);
                    }
                    if (passes == 1) {
                        assertThat(primitiveAdded).isEqualTo(genericAdded).isEqualTo(offset - 1000);
                        assertThat(sorted(primitive.values())).isEqualTo(sorted(generic.values()));
                    }
                    for (int l = 0; l < lake.size(); l++) {
                        BaseFixedWidthVector key = lake.get(l);
                        Selection selection = Selection.all(key.getValueCount());
                        int hidden = primitive.retainUnchanged(List.of(key), selection, pass, passes);
                        hiddenTotal += hidden;
                        for (int i = 0; i < selection.size(); i++) {
                            assertThat(keptInSomePass.add(l * 1_000_000L + selection.row(i)))
                                    .as("a lake row is kept in one pass only")
                                    .isTrue();
                        }
                        if (passes == 1) {
                            Selection expected = Selection.all(key.getValueCount());
                            int expectedHidden = generic.retainUnchanged(List.of(key), expected, pass, passes);
                            assertThat(hidden).isEqualTo(expectedHidden);
                            assertThat(rows(selection)).isEqualTo(rows(expected));
                        }
                    }
                }
                // over all passes: exactly the rows a one-pass generic index keeps
                TailKeys generic = new TailKeys.Generic(List.of(type));
                for (LogBatch batch : log) {
                    generic.add(List.of(batch.column(0)), batch, 0, 1);
                }
                Set<Long> expectedKept = new HashSet<>();
                long expectedHidden = 0;
                for (int l = 0; l < lake.size(); l++) {
                    Selection expected = Selection.all(lake.get(l).getValueCount());
                    expectedHidden += generic.retainUnchanged(List.of(lake.get(l)), expected, 0, 1);
                    for (int row : rows(expected)) {
                        expectedKept.add(l * 1_000_000L + row);
                    }
                }
                assertThat(keptInSomePass).as("%s passes", passes).isEqualTo(expectedKept);
                assertThat(hiddenTotal).isEqualTo(expectedHidden).isPositive();
            } finally {
                log.forEach(LogBatch::close);
                lake.forEach(BaseFixedWidthVector::close);
            }
        }
    }

    private static List<Long> sorted(long[] values) {
        return java.util.Arrays.stream(values).sorted().boxed().toList();
    }

    private static List<Integer> rows(Selection selection) {
        List<Integer> rows = new ArrayList<>();
        for (int i = 0; i < selection.size(); i++) {
            rows.add(selection.row(i));
        }
        return rows;
    }
}
