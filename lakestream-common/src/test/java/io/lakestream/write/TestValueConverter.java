package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.bucket.BucketFunction;
import io.lakestream.log.LogSchema;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The writer's value conversion (validate, convert once into a {@link RowBatch}, write into the
 * Arrow vector with {@link ColumnWriter}, bucket hash) against the semantics it replaced: {@link Legacy} is the previous
 * conversion to Iceberg generic values followed by the previous per-type vector writes. For every
 * type and many values (decimals of precision up to 18 and above, negative values and scales,
 * timestamps before 1970, sub-microsecond nanos, widened inputs, wrong types) both must accept the
 * same values, yield the same canonical value and bucket hash, and leave identical vector buffers.
 */
class TestValueConverter {
    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void decimalsUpToPrecision18MatchThePreviousConversion() {
        for (Types.DecimalType type : List.of(
                Types.DecimalType.of(10, 2),
                Types.DecimalType.of(9, 2),
                Types.DecimalType.of(18, 0),
                Types.DecimalType.of(18, 6),
                Types.DecimalType.of(18, 18),
                Types.DecimalType.of(1, 0),
                Types.DecimalType.of(3, 3),
                Types.DecimalType.of(5, 2))) {
            assertThat(ValueConverter.forType(type).kind()).isEqualTo(ValueConverter.Kind.LONG_DECIMAL);
            assertSameAsLegacy(type, decimalValues(type));
        }
    }

    @Test
    void decimalsAbovePrecision18MatchThePreviousConversion() {
        for (Types.DecimalType type :
                List.of(Types.DecimalType.of(19, 2), Types.DecimalType.of(38, 10), Types.DecimalType.of(38, 0))) {
            assertThat(ValueConverter.forType(type).kind()).isEqualTo(ValueConverter.Kind.DECIMAL);
            assertSameAsLegacy(type, decimalValues(type));
        }
    }

    @Test
    void timestampsMatchThePreviousConversion() {
        List<Object> values = new ArrayList<>();
        List<LocalDateTime> local = new ArrayList<>(List.of(
                LocalDateTime.of(1970, 1, 1, 0, 0),
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999),
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 1),
                LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999),
                LocalDateTime.of(1900, 1, 1, 0, 0, 0, 1_000),
                LocalDateTime.of(1, 1, 1, 0, 0, 0, 123_456_789),
                LocalDateTime.of(-5000, 6, 15, 12, 0, 0, 500),
                LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123_456_789),
                LocalDateTime.of(2262, 4, 11, 23, 47, 16, 854_775_807),
                LocalDateTime.of(292_000, 1, 1, 0, 0)));
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 300; i++) {
            local.add(LocalDateTime.ofEpochSecond(
                    random.nextLong(-100_000_000_000L, 100_000_000_000L),
                    random.nextInt(1_000_000_000),
                    ZoneOffset.UTC));
        }
        for (LocalDateTime timestamp : local) {
            values.add(timestamp);
            values.add(timestamp.atOffset(ZoneOffset.UTC));
            values.add(timestamp.atOffset(ZoneOffset.ofHoursMinutes(-9, -30)));
            values.add(timestamp.atZone(ZoneId.of("Asia/Kolkata")));
            values.add(timestamp.toInstant(ZoneOffset.ofHours(3)));
        }
        values.add(LocalDate.of(2020, 1, 1));
        values.add("2020-01-01T00:00:00Z");
        values.add(1_000_000L);
        assertSameAsLegacy(Types.TimestampType.withoutZone(), values);
        assertSameAsLegacy(Types.TimestampType.withZone(), values);
    }

    @Test
    void timestampsOutsideTheMicrosRangeAreInvalid() {
        // The previous writer accepted these and then failed with an ArithmeticException while writing
        // the row; now they are rejected like any value the column cannot hold.
        for (Type type : List.of(Types.TimestampType.withoutZone(), Types.TimestampType.withZone())) {
            ValueConverter converter = ValueConverter.forType(type);
            RowBatch row = batch(converter, 1);
            for (Object value : List.of(
                    LocalDateTime.MAX,
                    LocalDateTime.MIN,
                    LocalDateTime.of(300_000, 1, 1, 0, 0),
                    OffsetDateTime.MAX,
                    OffsetDateTime.MIN,
                    Instant.MAX,
                    Instant.MIN)) {
                assertThat(converter.convert(value, row, 0))
                        .as("%s %s", type, value)
                        .isFalse();
            }
        }
    }

    @Test
    void otherTypesMatchThePreviousConversion() {
        SplittableRandom random = new SplittableRandom(2);
        List<Object> numbers = new ArrayList<>(List.of(
                0,
                -1,
                Integer.MIN_VALUE,
                Integer.MAX_VALUE,
                0L,
                Long.MIN_VALUE,
                Long.MAX_VALUE,
                (short) -7,
                (byte) 5,
                1.5f,
                -0.0f,
                Float.NaN,
                Float.MIN_VALUE,
                2.5d,
                -0.0d,
                Double.NaN,
                Double.NEGATIVE_INFINITY,
                Double.MAX_VALUE,
                true,
                false,
                "1",
                BigDecimal.ONE));
        for (int i = 0; i < 100; i++) {
            numbers.add(random.nextInt());
            numbers.add(random.nextLong());
            numbers.add(Float.intBitsToFloat(random.nextInt()));
            numbers.add(Double.longBitsToDouble(random.nextLong()));
        }
        for (Type type : List.of(
                Types.BooleanType.get(),
                Types.IntegerType.get(),
                Types.LongType.get(),
                Types.FloatType.get(),
                Types.DoubleType.get())) {
            assertSameAsLegacy(type, numbers);
        }

        List<Object> dates = new ArrayList<>();
        List<Object> times = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            dates.add(LocalDate.ofEpochDay(random.nextLong(-1_000_000, 1_000_000)));
            times.add(LocalTime.ofNanoOfDay(random.nextLong(86_400_000_000_000L)));
        }
        dates.addAll(List.of(LocalDate.of(1969, 12, 31), LocalDate.EPOCH, LocalDate.of(1, 1, 1), "2020-01-01", 5));
        times.addAll(List.of(LocalTime.MIN, LocalTime.MAX, LocalTime.of(0, 0, 0, 999), LocalTime.NOON, 5L));
        assertSameAsLegacy(Types.DateType.get(), dates);
        assertSameAsLegacy(Types.TimeType.get(), times);

        assertSameAsLegacy(
                Types.StringType.get(),
                List.of("", "abc", "Grüße, 世界 🌍", new StringBuilder("built"), 'c', 7, new byte[] {1}));
        assertSameAsLegacy(
                Types.UUIDType.get(),
                List.of(UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"), new UUID(-1, 0), "uuid"));
        List<Object> bytes = List.of(
                new byte[0],
                new byte[] {1, 2, 3},
                new byte[] {1, 2, 3, 4},
                ByteBuffer.wrap(new byte[] {0, (byte) 0xff, 7}),
                ByteBuffer.wrap(new byte[] {9, 9, 9, 9, 9}, 1, 3),
                "abc");
        assertSameAsLegacy(Types.FixedType.ofLength(3), bytes);
        assertSameAsLegacy(Types.BinaryType.get(), bytes);
    }

    @Test
    void utf8ValuesAreWrittenAndHashedLikeTheirStrings() {
        Type type = Types.StringType.get();
        ValueConverter converter = ValueConverter.forType(type);
        List<String> strings = List.of("", "abc", "Grüße, 世界 🌍", "x".repeat(1000));
        try (VarCharVector expected = (VarCharVector) LogSchema.arrowField(Types.NestedField.optional(1, "c", type))
                        .createVector(allocator);
                VarCharVector actual = (VarCharVector) LogSchema.arrowField(Types.NestedField.optional(1, "c", type))
                        .createVector(allocator)) {
            expected.allocateNew();
            actual.allocateNew();
            RowBatch fromString = batch(converter, strings.size());
            RowBatch fromUtf8 = batch(converter, strings.size());
            for (String value : strings) {
                int row = fromUtf8.size();
                assertThat(converter.convert(value, fromString, 0)).isTrue();
                assertThat(converter.convert(new Utf8Value(value.getBytes(StandardCharsets.UTF_8)), fromUtf8, 0))
                        .isTrue();
                fromString.nulls[0][row] = false;
                fromUtf8.nulls[0][row] = false;
                assertThat(converter.icebergValue(fromUtf8, 0, row)).isEqualTo(value);
                assertThat(converter.bucketHash(fromUtf8, 0, row)).isEqualTo(BucketFunction.hash(type, value));
                fromString.finishRow((byte) 0, 0);
                fromUtf8.finishRow((byte) 0, 0);
            }
            writeColumn(converter, expected, fromString);
            writeColumn(converter, actual, fromUtf8);
            expected.setValueCount(strings.size());
            actual.setValueCount(strings.size());
            for (int i = 0; i < strings.size(); i++) {
                assertThat(actual.get(i)).isEqualTo(expected.get(i));
                assertThat(new String(actual.get(i), StandardCharsets.UTF_8)).isEqualTo(strings.get(i));
            }
        }
    }

    private static List<Object> decimalValues(Types.DecimalType type) {
        List<Object> values = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(type.precision() * 100L + type.scale());
        for (int i = 0; i < 400; i++) {
            int digits = random.nextInt(1, type.precision() + 3);
            BigInteger unscaled = new BigInteger(digits * 4, new java.util.Random(random.nextLong()));
            if (random.nextBoolean()) {
                unscaled = unscaled.negate();
            }
            values.add(new BigDecimal(unscaled, random.nextInt(-3, type.scale() + 3)));
        }
        long limit = type.precision() <= 18 ? pow10(type.precision()) : Long.MAX_VALUE;
        for (long unscaled : new long[] {0, 1, -1, limit - 1, -(limit - 1), limit, -limit}) {
            for (int scale = type.scale() - 2; scale <= type.scale() + 1; scale++) {
                values.add(BigDecimal.valueOf(unscaled, scale));
            }
        }
        values.addAll(List.of(
                new BigDecimal("0E-30"),
                new BigDecimal("0E+30"),
                new BigDecimal("1E+3"),
                new BigDecimal("-1.2E+3"),
                new BigDecimal("1E+17"),
                new BigDecimal("99999999.99"),
                new BigDecimal("100000000.00"),
                new BigDecimal("-99999999.99"),
                new BigDecimal("0.5"),
                new BigDecimal("-0.05"),
                new BigDecimal("0.001"),
                new BigDecimal("123456789012345678901234567890.1"),
                0,
                7,
                -7,
                Integer.MAX_VALUE,
                Integer.MIN_VALUE,
                0L,
                99_999_999L,
                -100_000_000L,
                Long.MAX_VALUE,
                Long.MIN_VALUE,
                BigInteger.ZERO,
                BigInteger.valueOf(-12345),
                BigInteger.valueOf(Long.MAX_VALUE),
                BigInteger.TWO.pow(63),
                BigInteger.TWO.pow(70).negate(),
                (short) 3,
                1.5d,
                "1.5"));
        return values;
    }

    private void assertSameAsLegacy(Type type, List<Object> values) {
        ValueConverter converter = ValueConverter.forType(type);
        RowBatch row = batch(converter, values.size() + 1);
        try (FieldVector actual = LogSchema.arrowField(Types.NestedField.optional(1, "c", type))
                        .createVector(allocator);
                FieldVector expected = LogSchema.arrowField(Types.NestedField.optional(1, "c", type))
                        .createVector(allocator)) {
            actual.setInitialCapacity(values.size());
            actual.allocateNew();
            while (actual.getValueCapacity() < values.size()) {
                actual.reAlloc();
            }
            expected.allocateNew();
            int index = 0;
            for (Object value : values) {
                Object canonical = Legacy.convert(type, value);
                boolean accepted = converter.convert(value, row, 0);
                assertThat(accepted)
                        .as("%s accepts %s (%s)", type, value, typeName(value))
                        .isEqualTo(canonical != null);
                if (!accepted) {
                    continue;
                }
                row.nulls[0][row.size()] = false;
                assertThat(converter.icebergValue(row, 0, row.size()))
                        .as("%s %s", type, value)
                        .isEqualTo(canonical);
                if (isKeyType(type)) {
                    assertThat(converter.bucketHash(row, 0, row.size()))
                            .as("%s %s", type, value)
                            .isEqualTo(BucketFunction.hash(type, canonical));
                }
                row.finishRow((byte) 0, 0);
                Legacy.write(type, expected, index, canonical);
                index++;
            }
            // and a null after the values (a row not set is null)
            row.finishRow((byte) 0, 0);
            expected.setNull(index);
            index++;
            writeColumn(converter, actual, row);
            actual.setValueCount(index);
            expected.setValueCount(index);
            assertThat(index).as("%s: values accepted", type).isGreaterThan(1);
            for (int i = 0; i < index; i++) {
                assertThat(actual.getObject(i)).as("%s value %s", type, i).isEqualTo(expected.getObject(i));
            }
            List<ArrowBuf> actualBuffers = actual.getFieldBuffers();
            List<ArrowBuf> expectedBuffers = expected.getFieldBuffers();
            assertThat(actualBuffers).hasSameSizeAs(expectedBuffers);
            for (int i = 0; i < actualBuffers.size(); i++) {
                assertThat(bytes(actualBuffers.get(i)))
                        .as("%s buffer %s", type, i)
                        .isEqualTo(bytes(expectedBuffers.get(i)));
            }
        }
    }

    private static RowBatch batch(ValueConverter converter, int capacity) {
        return new RowBatch(1, capacity, new boolean[] {converter.holdsObjects()});
    }

    /**
     * Writes the batch's rows into the vector as a segment does, in two calls (the second one at the
     * index where the first ended).
     */
    private static void writeColumn(ValueConverter converter, FieldVector vector, RowBatch batch) {
        ColumnWriter writer = new ColumnWriter(converter, 0);
        int[] rows = IntStream.range(0, batch.size()).toArray();
        int half = rows.length / 2;
        writer.write(vector, vector.getValidityBufferAddress(), vector.getDataBufferAddress(), batch, rows, 0, half, 0);
        writer.write(
                vector,
                vector.getValidityBufferAddress(),
                vector.getDataBufferAddress(),
                batch,
                rows,
                half,
                rows.length - half,
                half);
    }

    private static boolean isKeyType(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN, FLOAT, DOUBLE -> false;
            default -> true;
        };
    }

    private static byte[] bytes(ArrowBuf buffer) {
        byte[] bytes = new byte[(int) buffer.writerIndex()];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    private static String typeName(Object value) {
        return value.getClass().getSimpleName();
    }

    private static long pow10(int exponent) {
        long result = 1;
        for (int i = 0; i < exponent; i++) {
            result *= 10;
        }
        return result;
    }

    /**
     * The conversion this writer replaced (commit 9113cd0^^: ValueConverter to Iceberg generic
     * values, then ArrowValueWriter), kept as the reference. A value whose write overflowed (an
     * ArithmeticException then) counts as not accepted here.
     */
    private static final class Legacy {
        static Object convert(Type type, Object value) {
            Object canonical = canonical(type, value);
            if (canonical != null && type.typeId() == Type.TypeID.TIMESTAMP) {
                try {
                    micros(canonical);
                } catch (ArithmeticException e) {
                    return null;
                }
            }
            return canonical;
        }

        private static Object canonical(Type type, Object value) {
            return switch (type.typeId()) {
                case BOOLEAN -> value instanceof Boolean ? value : null;
                case INTEGER ->
                    switch (value) {
                        case Integer i -> i;
                        case Short s -> (int) s;
                        case Byte b -> (int) b;
                        default -> null;
                    };
                case LONG ->
                    switch (value) {
                        case Long l -> l;
                        case Integer i -> (long) i;
                        case Short s -> (long) s;
                        case Byte b -> (long) b;
                        default -> null;
                    };
                case FLOAT -> value instanceof Float ? value : null;
                case DOUBLE ->
                    switch (value) {
                        case Double d -> d;
                        case Float f -> (double) f;
                        default -> null;
                    };
                case DECIMAL -> decimal((Types.DecimalType) type, value);
                case DATE -> value instanceof LocalDate ? value : null;
                case TIME -> value instanceof LocalTime time ? time.truncatedTo(ChronoUnit.MICROS) : null;
                case TIMESTAMP -> timestamp((Types.TimestampType) type, value);
                case STRING -> value instanceof CharSequence chars ? chars.toString() : null;
                case UUID -> value instanceof UUID ? value : null;
                case FIXED -> {
                    byte[] bytes = bytes(value);
                    yield bytes != null && bytes.length == ((Types.FixedType) type).length() ? bytes : null;
                }
                case BINARY -> bytes(value);
                default -> null;
            };
        }

        private static BigDecimal decimal(Types.DecimalType type, Object value) {
            BigDecimal decimal = switch (value) {
                case BigDecimal d -> d;
                case Integer i -> BigDecimal.valueOf(i);
                case Long l -> BigDecimal.valueOf(l);
                case BigInteger b -> new BigDecimal(b);
                default -> null;
            };
            if (decimal == null || decimal.scale() > type.scale()) {
                return null;
            }
            if (decimal.scale() == type.scale()) {
                return decimal.precision() <= type.precision() ? decimal : null;
            }
            BigDecimal scaled = decimal.setScale(type.scale());
            return scaled.precision() <= type.precision() ? scaled : null;
        }

        private static Object timestamp(Types.TimestampType type, Object value) {
            if (type.shouldAdjustToUTC()) {
                OffsetDateTime timestamp = switch (value) {
                    case OffsetDateTime t -> t;
                    case ZonedDateTime t -> t.toOffsetDateTime();
                    case Instant t -> t.atOffset(ZoneOffset.UTC);
                    default -> null;
                };
                return timestamp == null
                        ? null
                        : timestamp.withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
            }
            return value instanceof LocalDateTime timestamp ? timestamp.truncatedTo(ChronoUnit.MICROS) : null;
        }

        private static byte[] bytes(Object value) {
            return switch (value) {
                case byte[] bytes -> bytes;
                case ByteBuffer buffer -> {
                    ByteBuffer copy = buffer.duplicate();
                    byte[] bytes = new byte[copy.remaining()];
                    copy.get(bytes);
                    yield bytes;
                }
                default -> null;
            };
        }

        private static long micros(Object timestamp) {
            if (timestamp instanceof OffsetDateTime t) {
                return Math.addExact(Math.multiplyExact(t.toEpochSecond(), 1_000_000L), t.getNano() / 1000);
            }
            LocalDateTime t = (LocalDateTime) timestamp;
            return Math.addExact(Math.multiplyExact(t.toEpochSecond(ZoneOffset.UTC), 1_000_000L), t.getNano() / 1000);
        }

        static void write(Type type, FieldVector vector, int index, Object value) {
            switch (type.typeId()) {
                case BOOLEAN -> ((BitVector) vector).setSafe(index, (Boolean) value ? 1 : 0);
                case INTEGER -> ((IntVector) vector).setSafe(index, (Integer) value);
                case LONG -> ((BigIntVector) vector).setSafe(index, (Long) value);
                case FLOAT -> ((Float4Vector) vector).setSafe(index, (Float) value);
                case DOUBLE -> ((Float8Vector) vector).setSafe(index, (Double) value);
                case DECIMAL -> {
                    if (((Types.DecimalType) type).precision() <= 18) {
                        ((DecimalVector) vector)
                                .setSafe(
                                        index,
                                        ((BigDecimal) value).unscaledValue().longValue());
                    } else {
                        ((DecimalVector) vector).setSafe(index, (BigDecimal) value);
                    }
                }
                case DATE -> ((DateDayVector) vector).setSafe(index, DateTimeUtil.daysFromDate((LocalDate) value));
                case TIME -> ((TimeMicroVector) vector).setSafe(index, DateTimeUtil.microsFromTime((LocalTime) value));
                case TIMESTAMP -> {
                    if (((Types.TimestampType) type).shouldAdjustToUTC()) {
                        ((TimeStampMicroTZVector) vector).setSafe(index, micros(value));
                    } else {
                        ((TimeStampMicroVector) vector).setSafe(index, micros(value));
                    }
                }
                case STRING ->
                    ((VarCharVector) vector).setSafe(index, ((String) value).getBytes(StandardCharsets.UTF_8));
                case UUID -> {
                    UUID uuid = (UUID) value;
                    byte[] bytes = ByteBuffer.allocate(16)
                            .putLong(uuid.getMostSignificantBits())
                            .putLong(uuid.getLeastSignificantBits())
                            .array();
                    ((FixedSizeBinaryVector) vector).setSafe(index, bytes);
                }
                case FIXED -> ((FixedSizeBinaryVector) vector).setSafe(index, (byte[]) value);
                case BINARY -> ((VarBinaryVector) vector).setSafe(index, (byte[]) value);
                default -> throw new IllegalArgumentException(type.toString());
            }
        }
    }
}
