package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LogSchema;
import io.lakestream.testing.Seeds;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.util.Text;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BucketUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The writer's value conversion (validate, convert once into a {@link RowBatch}, write into the Arrow
 * vector with {@link ColumnWriter}, bucket hash) against expected values written down here: for each
 * type, which Java values a column accepts (and how it widens them), the canonical value, the value
 * the Arrow vector holds, and the bucket hash. Hashes are the format's test vectors (docs/format.md)
 * or Iceberg's own {@link BucketUtil} of the expected value; random values are checked against the
 * JDK's arithmetic (epoch micros, {@link BigDecimal#setScale}), never against the converter itself.
 */
@ExtendWith(Seeds.class)
class TestValueConverter {
    private static final Type INT = Types.IntegerType.get();
    private static final Type LONG = Types.LongType.get();
    private static final Type TIMESTAMP = Types.TimestampType.withoutZone();
    private static final Type TIMESTAMPTZ = Types.TimestampType.withZone();
    private static final Object REJECTED = new Object() {
        @Override
        public String toString() {
            return "rejected";
        }
    };

    private final BufferAllocator allocator = new RootAllocator();

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    /** An input, and what the column makes of it: canonical value, Arrow value, bucket hash (null: not a key type). */
    private record Case(Object input, Object canonical, Object arrow, Integer hash) {
        static Case accepts(Object input, Object canonical, Object arrow, Integer hash) {
            return new Case(input, canonical, arrow, hash);
        }

        static Case rejects(Object input) {
            return new Case(input, REJECTED, null, null);
        }

        boolean accepted() {
            return canonical != REJECTED;
        }

        @Override
        public String toString() {
            return describe(input) + " -> " + describe(canonical);
        }
    }

    @Test
    void formatTestVectors() {
        // docs/format.md, "Bucket function": the hash of each key type's canonical bytes
        check(INT, Case.accepts(34, 34, 34, 2017239379));
        check(LONG, Case.accepts(34L, 34L, 34L, 2017239379));
        check(
                Types.DecimalType.of(9, 2),
                Case.accepts(new BigDecimal("14.20"), new BigDecimal("14.20"), new BigDecimal("14.20"), -500754589));
        check(
                Types.DateType.get(),
                Case.accepts(LocalDate.of(2017, 11, 16), LocalDate.of(2017, 11, 16), 17486, -653330422));
        check(
                Types.TimeType.get(),
                Case.accepts(LocalTime.of(22, 31, 8), LocalTime.of(22, 31, 8), 81068000000L, -662762989));
        check(
                TIMESTAMP,
                Case.accepts(
                        LocalDateTime.of(2017, 11, 16, 22, 31, 8),
                        LocalDateTime.of(2017, 11, 16, 22, 31, 8),
                        LocalDateTime.of(2017, 11, 16, 22, 31, 8),
                        -2047944441));
        check(
                TIMESTAMPTZ,
                Case.accepts(
                        OffsetDateTime.of(2017, 11, 16, 14, 31, 8, 0, ZoneOffset.ofHours(-8)),
                        OffsetDateTime.of(2017, 11, 16, 22, 31, 8, 0, ZoneOffset.UTC),
                        1510871468000000L,
                        -2047944441));
        check(Types.StringType.get(), Case.accepts("iceberg", "iceberg", new Text("iceberg"), 1210000089));
        UUID uuid = UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7");
        check(Types.UUIDType.get(), Case.accepts(uuid, uuid, uuidBytes(uuid), 1488055340));
        byte[] bytes = {0, 1, 2, 3};
        check(Types.FixedType.ofLength(4), Case.accepts(bytes, bytes, bytes, -188683207));
        check(Types.BinaryType.get(), Case.accepts(bytes, bytes, bytes, -188683207));
    }

    @Test
    void numbersWidenButNeverNarrowOrParse() {
        check(
                Types.BooleanType.get(),
                Case.accepts(true, true, true, null),
                Case.accepts(false, false, false, null),
                Case.rejects(1),
                Case.rejects("true"));
        check(
                INT,
                Case.accepts(
                        Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE, BucketUtil.hash(Integer.MIN_VALUE)),
                Case.accepts(
                        Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, BucketUtil.hash(Integer.MAX_VALUE)),
                Case.accepts((short) -7, -7, -7, BucketUtil.hash(-7)),
                Case.accepts((byte) 5, 5, 5, BucketUtil.hash(5)),
                Case.rejects(1L),
                Case.rejects(1.0d),
                Case.rejects("1"),
                Case.rejects(BigDecimal.ONE),
                Case.rejects(true));
        check(
                LONG,
                Case.accepts(Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, BucketUtil.hash(Long.MIN_VALUE)),
                Case.accepts(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, BucketUtil.hash(Long.MAX_VALUE)),
                Case.accepts(-1, -1L, -1L, BucketUtil.hash(-1L)),
                Case.accepts((short) 300, 300L, 300L, BucketUtil.hash(300L)),
                Case.accepts((byte) -128, -128L, -128L, BucketUtil.hash(-128L)),
                Case.rejects(1.0f),
                Case.rejects("1"),
                Case.rejects(BigInteger.ONE));
        check(
                Types.FloatType.get(),
                Case.accepts(1.5f, 1.5f, 1.5f, null),
                Case.accepts(-0.0f, -0.0f, -0.0f, null),
                Case.accepts(Float.NaN, Float.NaN, Float.NaN, null),
                Case.accepts(Float.MIN_VALUE, Float.MIN_VALUE, Float.MIN_VALUE, null),
                Case.rejects(1.5d),
                Case.rejects(1));
        check(
                Types.DoubleType.get(),
                Case.accepts(2.5d, 2.5d, 2.5d, null),
                Case.accepts(-0.0d, -0.0d, -0.0d, null),
                Case.accepts(Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY, null),
                Case.accepts(Double.NaN, Double.NaN, Double.NaN, null),
                // a float widens exactly (0.1f is not 0.1)
                Case.accepts(0.1f, (double) 0.1f, (double) 0.1f, null),
                Case.rejects(1),
                Case.rejects(1L),
                Case.rejects("2.5"));
    }

    @Test
    void decimalsTakeMoreScaleButNeverRound() {
        for (Types.DecimalType type : List.of(Types.DecimalType.of(10, 2), Types.DecimalType.of(38, 2))) {
            check(
                    type,
                    Case.accepts(new BigDecimal("14.20"), new BigDecimal("14.20"), new BigDecimal("14.20"), -500754589),
                    // fewer digits after the point: padded to the column's scale
                    Case.accepts(new BigDecimal("14.2"), new BigDecimal("14.20"), new BigDecimal("14.20"), -500754589),
                    Case.accepts(
                            new BigDecimal("-1.2E+3"),
                            new BigDecimal("-1200.00"),
                            new BigDecimal("-1200.00"),
                            hash("-1200.00")),
                    Case.accepts(new BigDecimal("0E-2"), new BigDecimal("0.00"), new BigDecimal("0.00"), hash("0.00")),
                    Case.accepts(7, new BigDecimal("7.00"), new BigDecimal("7.00"), hash("7.00")),
                    Case.accepts(-7L, new BigDecimal("-7.00"), new BigDecimal("-7.00"), hash("-7.00")),
                    Case.accepts(
                            BigInteger.valueOf(-12345),
                            new BigDecimal("-12345.00"),
                            new BigDecimal("-12345.00"),
                            hash("-12345.00")),
                    Case.accepts(
                            new BigDecimal("-0.05"), new BigDecimal("-0.05"), new BigDecimal("-0.05"), hash("-0.05")),
                    // more digits after the point than the column holds: never rounded
                    Case.rejects(new BigDecimal("0.001")),
                    Case.rejects(new BigDecimal("1.005")),
                    Case.rejects(1.5d),
                    Case.rejects("1.5"),
                    Case.rejects((short) 3));
        }
        Types.DecimalType ten = Types.DecimalType.of(10, 2);
        check(
                ten,
                Case.accepts(
                        new BigDecimal("99999999.99"),
                        new BigDecimal("99999999.99"),
                        new BigDecimal("99999999.99"),
                        hash("99999999.99")),
                Case.accepts(
                        new BigDecimal("-99999999.99"),
                        new BigDecimal("-99999999.99"),
                        new BigDecimal("-99999999.99"),
                        hash("-99999999.99")),
                // too many digits in total
                Case.rejects(new BigDecimal("100000000.00")),
                Case.rejects(new BigDecimal("1E+8")),
                Case.rejects(100_000_000L),
                Case.rejects(Long.MAX_VALUE));
        Types.DecimalType wide = Types.DecimalType.of(38, 10);
        BigDecimal big = new BigDecimal("1234567890123456789012345678.0123456789");
        check(
                wide,
                Case.accepts(big, big, big, hash(big.toPlainString())),
                Case.accepts(
                        BigInteger.TWO.pow(70).negate(),
                        new BigDecimal(BigInteger.TWO.pow(70).negate()).setScale(10),
                        new BigDecimal(BigInteger.TWO.pow(70).negate()).setScale(10),
                        hash(new BigDecimal(BigInteger.TWO.pow(70).negate())
                                .setScale(10)
                                .toPlainString())),
                Case.accepts(
                        Long.MIN_VALUE,
                        BigDecimal.valueOf(Long.MIN_VALUE).setScale(10),
                        BigDecimal.valueOf(Long.MIN_VALUE).setScale(10),
                        hash(BigDecimal.valueOf(Long.MIN_VALUE).setScale(10).toPlainString())),
                Case.rejects(new BigDecimal("123456789012345678901234567890.1")));
        check(
                Types.DecimalType.of(18, 18),
                Case.accepts(
                        new BigDecimal("0.5"),
                        new BigDecimal("0.500000000000000000"),
                        new BigDecimal("0.500000000000000000"),
                        hash("0.500000000000000000")),
                Case.rejects(1));
    }

    @Test
    void randomDecimalsAreAcceptedExactlyWhenTheyFitWithoutRounding() {
        SplittableRandom random = Seeds.splittable(18);
        for (Types.DecimalType type : List.of(
                Types.DecimalType.of(1, 0),
                Types.DecimalType.of(5, 2),
                Types.DecimalType.of(18, 6),
                Types.DecimalType.of(18, 18),
                Types.DecimalType.of(19, 2),
                Types.DecimalType.of(38, 10))) {
            List<Case> cases = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                int digits = random.nextInt(1, type.precision() + 3);
                BigInteger unscaled = new BigInteger(digits * 4, new java.util.Random(random.nextLong()));
                BigDecimal value = new BigDecimal(
                        random.nextBoolean() ? unscaled.negate() : unscaled, random.nextInt(-3, type.scale() + 3));
                // the rule: no digit after the column's scale, and at most its precision in total
                boolean fits = value.scale() <= type.scale()
                        && value.setScale(type.scale()).precision() <= type.precision();
                cases.add(
                        fits
                                ? Case.accepts(
                                        value,
                                        value.setScale(type.scale()),
                                        value.setScale(type.scale()),
                                        hash(value.setScale(type.scale()).toPlainString()))
                                : Case.rejects(value));
            }
            check(type, cases.toArray(Case[]::new));
        }
    }

    @Test
    void datesAndTimes() {
        check(
                Types.DateType.get(),
                Case.accepts(LocalDate.EPOCH, LocalDate.EPOCH, 0, BucketUtil.hash(0)),
                Case.accepts(LocalDate.of(1969, 12, 31), LocalDate.of(1969, 12, 31), -1, BucketUtil.hash(-1)),
                Case.accepts(LocalDate.of(1, 1, 1), LocalDate.of(1, 1, 1), -719162, BucketUtil.hash(-719162)),
                Case.rejects(LocalDateTime.of(2020, 1, 1, 0, 0)),
                Case.rejects("2020-01-01"),
                Case.rejects(5));
        check(
                Types.TimeType.get(),
                Case.accepts(LocalTime.MIN, LocalTime.MIN, 0L, BucketUtil.hash(0L)),
                // below a microsecond: truncated
                Case.accepts(
                        LocalTime.MAX,
                        LocalTime.of(23, 59, 59, 999_999_000),
                        86_399_999_999L,
                        BucketUtil.hash(86_399_999_999L)),
                Case.accepts(LocalTime.of(0, 0, 0, 999), LocalTime.MIN, 0L, BucketUtil.hash(0L)),
                Case.accepts(LocalTime.of(0, 0, 0, 1_999), LocalTime.of(0, 0, 0, 1_000), 1L, BucketUtil.hash(1L)),
                Case.rejects(5L),
                Case.rejects("12:00"));
    }

    @Test
    void timestampsWithoutZoneTakeOnlyLocalDateTimes() {
        LocalDateTime beforeEpoch = LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_999);
        LocalDateTime truncated = LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000);
        check(
                TIMESTAMP,
                Case.accepts(
                        LocalDateTime.of(1970, 1, 1, 0, 0),
                        LocalDateTime.of(1970, 1, 1, 0, 0),
                        LocalDateTime.of(1970, 1, 1, 0, 0),
                        BucketUtil.hash(0L)),
                // nanos are cut to the microsecond below, also before 1970 (micros -1, not 0)
                Case.accepts(beforeEpoch, truncated, truncated, BucketUtil.hash(-1L)),
                Case.accepts(
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59, 1),
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59),
                        LocalDateTime.of(1969, 12, 31, 23, 59, 59),
                        BucketUtil.hash(-1_000_000L)),
                Case.rejects(OffsetDateTime.of(2020, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)),
                Case.rejects(Instant.EPOCH),
                Case.rejects(LocalDate.of(2020, 1, 1)),
                Case.rejects("2020-01-01T00:00:00"),
                Case.rejects(1_000_000L));
    }

    @Test
    void timestampsWithZoneTakeInstantsInAnyZoneAsUtc() {
        OffsetDateTime utc = OffsetDateTime.of(2024, 2, 29, 12, 30, 15, 123_456_000, ZoneOffset.UTC);
        long micros = 1709209815123456L;
        check(
                TIMESTAMPTZ,
                Case.accepts(utc, utc, micros, BucketUtil.hash(micros)),
                Case.accepts(
                        utc.withOffsetSameInstant(ZoneOffset.ofHoursMinutes(-9, -30)),
                        utc,
                        micros,
                        BucketUtil.hash(micros)),
                Case.accepts(utc.atZoneSameInstant(ZoneId.of("Asia/Kolkata")), utc, micros, BucketUtil.hash(micros)),
                Case.accepts(utc.toInstant().plusNanos(789), utc, micros, BucketUtil.hash(micros)),
                Case.accepts(
                        Instant.ofEpochSecond(-1, 999_999_999),
                        OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000, ZoneOffset.UTC),
                        -1L,
                        BucketUtil.hash(-1L)),
                Case.rejects(LocalDateTime.of(2020, 1, 1, 0, 0)),
                Case.rejects("2020-01-01T00:00:00Z"),
                Case.rejects(1_000_000L));
    }

    @Test
    void randomTimestampsHoldTheirEpochMicros() {
        SplittableRandom random = Seeds.splittable(1);
        List<Case> local = new ArrayList<>();
        List<Case> zoned = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Instant instant = Instant.ofEpochSecond(
                    random.nextLong(-100_000_000_000L, 100_000_000_000L), random.nextInt(1_000_000_000));
            // the JDK's own count of microseconds, rounded down
            long micros = ChronoUnit.MICROS.between(Instant.EPOCH, instant.truncatedTo(ChronoUnit.MICROS));
            LocalDateTime dateTime = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
            LocalDateTime truncated = dateTime.truncatedTo(ChronoUnit.MICROS);
            local.add(Case.accepts(dateTime, truncated, truncated, BucketUtil.hash(micros)));
            OffsetDateTime utc = truncated.atOffset(ZoneOffset.UTC);
            zoned.add(Case.accepts(instant.atOffset(ZoneOffset.ofHours(3)), utc, micros, BucketUtil.hash(micros)));
        }
        check(TIMESTAMP, local.toArray(Case[]::new));
        check(TIMESTAMPTZ, zoned.toArray(Case[]::new));
    }

    @Test
    void stringsUuidsAndBytes() {
        check(
                Types.StringType.get(),
                Case.accepts("", "", new Text(""), BucketUtil.hash("")),
                Case.accepts("Grüße, 世界 🌍", "Grüße, 世界 🌍", new Text("Grüße, 世界 🌍"), BucketUtil.hash("Grüße, 世界 🌍")),
                Case.accepts(new StringBuilder("built"), "built", new Text("built"), BucketUtil.hash("built")),
                Case.rejects('c'),
                Case.rejects(7),
                Case.rejects(new byte[] {1}));
        UUID negative = new UUID(-1, 0);
        check(
                Types.UUIDType.get(),
                Case.accepts(negative, negative, uuidBytes(negative), BucketUtil.hash(negative)),
                Case.rejects("f79c3e09-677c-4bbd-a479-3f349cb785e7"),
                Case.rejects(uuidBytes(negative)));
        byte[] three = {0, (byte) 0xff, 7};
        check(
                Types.FixedType.ofLength(3),
                Case.accepts(three, three, three, BucketUtil.hash(ByteBuffer.wrap(three))),
                // a buffer counts from its position to its limit
                Case.accepts(
                        ByteBuffer.wrap(new byte[] {9, 0, (byte) 0xff, 7, 9}, 1, 3),
                        three,
                        three,
                        BucketUtil.hash(ByteBuffer.wrap(three))),
                Case.rejects(new byte[] {1, 2, 3, 4}),
                Case.rejects(new byte[0]),
                Case.rejects("abc"));
        check(
                Types.BinaryType.get(),
                Case.accepts(new byte[0], new byte[0], new byte[0], BucketUtil.hash(ByteBuffer.wrap(new byte[0]))),
                Case.accepts(ByteBuffer.wrap(three), three, three, BucketUtil.hash(ByteBuffer.wrap(three))),
                Case.accepts(
                        new byte[] {1, 2, 3, 4, 5},
                        new byte[] {1, 2, 3, 4, 5},
                        new byte[] {1, 2, 3, 4, 5},
                        BucketUtil.hash(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}))),
                Case.rejects("abc"));
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
                assertThat(converter.bucketHash(fromUtf8, 0, row)).isEqualTo(BucketUtil.hash(value));
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

    /**
     * Converts every input into one batch, writes the accepted ones into an Arrow column as a segment
     * does (plus a null), and compares each step with the case.
     */
    private void check(Type type, Case... cases) {
        ValueConverter converter = ValueConverter.forType(type);
        RowBatch row = batch(converter, cases.length + 1);
        List<Case> accepted = new ArrayList<>();
        for (Case expected : cases) {
            boolean converted = converter.convert(expected.input(), row, 0);
            assertThat(converted).as("%s accepts %s", type, expected).isEqualTo(expected.accepted());
            if (!converted) {
                continue;
            }
            row.nulls[0][row.size()] = false;
            assertThat(converter.icebergValue(row, 0, row.size()))
                    .as("%s canonical value of %s", type, expected)
                    .isEqualTo(expected.canonical());
            if (expected.hash() != null) {
                assertThat(converter.bucketHash(row, 0, row.size()))
                        .as("%s bucket hash of %s", type, expected)
                        .isEqualTo(expected.hash());
            }
            row.finishRow((byte) 0, 0);
            accepted.add(expected);
        }
        // and a null after the values (a row not set is null)
        row.finishRow((byte) 0, 0);
        try (FieldVector vector =
                LogSchema.arrowField(Types.NestedField.optional(1, "c", type)).createVector(allocator)) {
            vector.setInitialCapacity(row.size());
            vector.allocateNew();
            while (vector.getValueCapacity() < row.size()) {
                vector.reAlloc();
            }
            writeColumn(converter, vector, row);
            vector.setValueCount(row.size());
            for (int i = 0; i < accepted.size(); i++) {
                assertThat(vector.isNull(i))
                        .as("%s row %s: %s", type, i, accepted.get(i))
                        .isFalse();
                assertThat(vector.getObject(i))
                        .as("%s Arrow value of %s", type, accepted.get(i))
                        .isEqualTo(accepted.get(i).arrow());
            }
            assertThat(vector.isNull(accepted.size()))
                    .as("%s: the row not set", type)
                    .isTrue();
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

    private static int hash(String decimal) {
        return BucketUtil.hash(new BigDecimal(decimal));
    }

    private static byte[] uuidBytes(UUID uuid) {
        return ByteBuffer.allocate(16)
                .putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits())
                .array();
    }

    private static String describe(Object value) {
        if (value == REJECTED) {
            return "rejected";
        }
        if (value instanceof byte[] bytes) {
            return Arrays.toString(bytes);
        }
        return value + " (" + value.getClass().getSimpleName() + ")";
    }
}
