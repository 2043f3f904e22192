package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.CanonicalKeys;
import io.lakestream.testing.Seeds;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link ArrowKeyEncoder} (the log's side of every merge) makes the canonical key bytes of docs/merge.md
 * ({@link CanonicalKeys}, written from the spec): for every key type, nulls and keys of several columns, from
 * random values of a seed. Trino's and Spark's encoders are checked against the same reference in their modules
 * ({@code TestTrinoKeyEncoder}, {@code TestSparkKeyEncoder}), so all three make the same bytes.
 */
@ExtendWith(Seeds.class)
class TestArrowKeyEncoder {
    private static final LocalDateTime EPOCH = LocalDateTime.of(1970, 1, 1, 0, 0);

    @Test
    void encodesTheCanonicalBytesOfEveryKeyType() {
        Random random = Seeds.random(1919);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int round = 0; round < 300; round++) {
                List<Type> types = CanonicalKeys.keyTypesOfRound(random, round, CanonicalKeys.KEY_TYPES);
                List<List<Object>> values = CanonicalKeys.randomKeys(random, types);
                int rows = values.size();
                List<FieldVector> vectors = new ArrayList<>();
                try {
                    for (int column = 0; column < types.size(); column++) {
                        vectors.add(vector(allocator, types.get(column), column, values));
                    }
                    ArrowKeyEncoder encoder = new ArrowKeyEncoder(vectors, types);
                    KeyBuffer key = new KeyBuffer();
                    for (int row = 0; row < rows; row++) {
                        encoder.encode(row, key);
                        assertThat(HexFormat.of().formatHex(key.toByteArray()))
                                .as("key %s of types %s", values.get(row), types)
                                .isEqualTo(HexFormat.of().formatHex(CanonicalKeys.encode(types, values.get(row))));
                    }
                } finally {
                    vectors.forEach(FieldVector::close);
                }
            }
        }
    }

    @Test
    void fixedVectorsOfTheSpec() {
        // docs/merge.md: a null marker byte per column, little-endian fixed widths, length-prefixed strings
        assertThat(CanonicalKeys.encode(
                        List.of(Types.IntegerType.get(), Types.StringType.get(), Types.LongType.get()),
                        java.util.Arrays.asList(1, "ab", null)))
                .containsExactly(0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 'a', 'b', 1);
        assertThat(CanonicalKeys.encode(List.of(Types.DecimalType.of(9, 2)), List.of(new BigDecimal("-0.01"))))
                .containsExactly(0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    }

    private static FieldVector vector(BufferAllocator allocator, Type type, int column, List<List<Object>> values) {
        String name = "k" + column;
        FieldVector vector = switch (type.typeId()) {
            case INTEGER -> new IntVector(name, allocator);
            case LONG -> new BigIntVector(name, allocator);
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield new DecimalVector(name, allocator, decimal.precision(), decimal.scale());
            }
            case DATE -> new DateDayVector(name, allocator);
            case TIME -> new TimeMicroVector(name, allocator);
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? new TimeStampMicroTZVector(name, allocator, "UTC")
                        : new TimeStampMicroVector(name, allocator);
            case STRING -> new VarCharVector(name, allocator);
            case UUID -> new FixedSizeBinaryVector(name, allocator, 16);
            case FIXED -> new FixedSizeBinaryVector(name, allocator, ((Types.FixedType) type).length());
            case BINARY -> new VarBinaryVector(name, allocator);
            default -> throw new IllegalArgumentException(type.toString());
        };
        vector.allocateNew();
        for (int row = 0; row < values.size(); row++) {
            Object value = values.get(row).get(column);
            if (value == null) {
                vector.setNull(row);
                continue;
            }
            switch (vector) {
                case IntVector ints -> ints.setSafe(row, (Integer) value);
                case BigIntVector longs -> longs.setSafe(row, (Long) value);
                case DecimalVector decimals -> decimals.setSafe(row, (BigDecimal) value);
                case DateDayVector dates -> dates.setSafe(row, (int) ((LocalDate) value).toEpochDay());
                case TimeMicroVector times -> times.setSafe(row, ((LocalTime) value).toNanoOfDay() / 1000);
                case TimeStampMicroTZVector timestamps ->
                    timestamps.setSafe(
                            row,
                            micros(((OffsetDateTime) value)
                                    .withOffsetSameInstant(ZoneOffset.UTC)
                                    .toLocalDateTime()));
                case TimeStampMicroVector timestamps -> timestamps.setSafe(row, micros((LocalDateTime) value));
                case VarCharVector strings -> strings.setSafe(row, ((String) value).getBytes(StandardCharsets.UTF_8));
                case FixedSizeBinaryVector fixed ->
                    fixed.setSafe(row, value instanceof UUID uuid ? uuidBytes(uuid) : (byte[]) value);
                case VarBinaryVector binary -> binary.setSafe(row, (byte[]) value);
                default -> throw new IllegalArgumentException(vector.toString());
            }
        }
        vector.setValueCount(values.size());
        return vector;
    }

    private static long micros(LocalDateTime value) {
        return ChronoUnit.MICROS.between(EPOCH, value);
    }

    private static byte[] uuidBytes(UUID uuid) {
        return ByteBuffer.allocate(16)
                .putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits())
                .array();
    }
}
