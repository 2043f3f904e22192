package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LogSchema;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The writer's conversion of list, map and struct values: which Java values a nested column accepts, the
 * canonical (Iceberg generic) value it keeps, with every primitive inside converted as a top-level column
 * converts it, the values it refuses (a wrong element type, a null where the type requires a value, an unknown
 * field), and what {@link ColumnWriter} writes into the column's Arrow vector, nulls at every level.
 */
class TestNestedValueConverter {
    private static final Types.ListType INTS = Types.ListType.ofOptional(2, Types.IntegerType.get());
    private static final Types.ListType REQUIRED_INTS = Types.ListType.ofRequired(2, Types.IntegerType.get());
    private static final Types.MapType MAP =
            Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.DecimalType.of(9, 2));
    private static final Types.StructType POINT = Types.StructType.of(
            Types.NestedField.optional(2, "x", Types.DoubleType.get()),
            Types.NestedField.required(3, "day", Types.DateType.get()));

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void listsConvertEveryElementAndKeepNulls() {
        assertThat(convert(INTS, Arrays.asList(1, null, (short) 3))).isEqualTo(Arrays.asList(1, null, 3));
        assertThat(convert(INTS, List.of())).isEqualTo(List.of());
        assertThat(convert(INTS, List.of(1, "2"))).isNull();
        assertThat(convert(INTS, 1)).isNull();
        assertThat(convert(REQUIRED_INTS, Arrays.asList(1, null))).isNull();
    }

    @Test
    void mapsConvertKeysAndValuesAndRefuseNullKeys() {
        Map<String, Object> input = new LinkedHashMap<>();
        input.put("a", new BigDecimal("1.5"));
        input.put("b", null);
        input.put("c", 7L);
        Map<Object, Object> expected = new LinkedHashMap<>();
        expected.put("a", new BigDecimal("1.50"));
        expected.put("b", null);
        expected.put("c", new BigDecimal("7.00"));
        assertThat(convert(MAP, input)).isEqualTo(expected);
        Map<String, Object> nullKey = new HashMap<>();
        nullKey.put(null, BigDecimal.ONE);
        assertThat(convert(MAP, nullKey)).isNull();
        assertThat(convert(MAP, Map.of("a", new BigDecimal("1.234")))).isNull();
    }

    @Test
    void structsByNameOrRecordAndRequiredFields() {
        LocalDate day = LocalDate.of(2026, 12, 1);
        GenericRecord expected = GenericRecord.create(POINT);
        expected.set(0, 1.5);
        expected.set(1, day);
        assertThat(convert(POINT, Map.of("x", 1.5f, "day", day))).isEqualTo(expected);
        Record record = GenericRecord.create(POINT);
        record.setField("x", 1.5);
        record.setField("day", day);
        assertThat(convert(POINT, record)).isEqualTo(expected);
        // x is optional, day required
        GenericRecord withoutX = GenericRecord.create(POINT);
        withoutX.set(1, day);
        assertThat(convert(POINT, Map.of("day", day))).isEqualTo(withoutX);
        assertThat(convert(POINT, Map.of("x", 1.5))).isNull();
        assertThat(convert(POINT, Map.of("day", day, "y", 1))).isNull();
        assertThat(ValueConverter.expectedJavaTypes(POINT))
                .isEqualTo("Record, StructLike or Map<String, ?> with fields x: Double or Float, day (not null): "
                        + "LocalDate from -5877641-06-23 to +5881580-07-11 (days since 1970-01-01 as an int)");
    }

    @Test
    void columnWriterWritesNullsAtEveryLevel() {
        Types.NestedField column = Types.NestedField.optional(1, "tags", INTS);
        ValueConverter converter = ValueConverter.forType(INTS);
        RowBatch batch = new RowBatch(1, 4, new boolean[] {true});
        List<Object> values = Arrays.asList(List.of(1, 2), null, List.of(), Arrays.asList(null, 4));
        for (Object value : values) {
            if (value != null) {
                assertThat(converter.convert(value, batch, 0)).isTrue();
                batch.nulls[0][batch.size()] = false;
            }
            batch.finishRow((byte) 0, 0);
        }
        try (FieldVector vector = LogSchema.arrowField(column).createVector(allocator)) {
            vector.allocateNew();
            new ColumnWriter(converter, 0).write(vector, 0, 0, batch, new int[] {0, 1, 2, 3}, 0, 4, 0);
            vector.setValueCount(4);
            assertThat(vector.getObject(0)).isEqualTo(List.of(1, 2));
            assertThat(vector.isNull(1)).isTrue();
            assertThat(vector.getObject(2)).isEqualTo(List.of());
            assertThat(vector.getObject(3)).isEqualTo(Arrays.asList(null, 4));
        }
    }

    private static Object convert(Type type, Object value) {
        ValueConverter converter = ValueConverter.forType(type);
        RowBatch batch = new RowBatch(1, 1, new boolean[] {true});
        if (!converter.convert(value, batch, 0)) {
            return null;
        }
        batch.nulls[0][0] = false;
        return converter.icebergValue(batch, 0, 0);
    }
}
