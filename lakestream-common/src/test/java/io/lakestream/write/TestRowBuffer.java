package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.lakestream.bucket.BucketFunction;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.SegmentFileReader;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The typed write path ({@link LakestreamWriter#row()}) against the boxed one, its oracle: random
 * rows of every type, written both ways, must give byte-for-byte the same segments (same values,
 * same buckets, same order), and every row must be in the bucket {@link BucketFunction#bucket} gives
 * for its key's Iceberg values. Bad values must fail with the same error code and message.
 */
@ExtendWith(Seeds.class)
class TestRowBuffer {
    private static final int BUCKETS = 7;
    /** The key: one column of every type a bucket key can have, so the bucket hash covers them all. */
    private static final List<String> KEY = List.of(
            "k_long",
            "k_int",
            "k_string",
            "k_decimal",
            "k_wide_decimal",
            "k_date",
            "k_time",
            "k_timestamp",
            "k_timestamptz",
            "k_uuid",
            "k_fixed",
            "k_binary");

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "k_long", Types.LongType.get()),
            Types.NestedField.required(2, "k_int", Types.IntegerType.get()),
            Types.NestedField.required(3, "k_string", Types.StringType.get()),
            Types.NestedField.required(4, "k_decimal", Types.DecimalType.of(10, 2)),
            Types.NestedField.required(5, "k_wide_decimal", Types.DecimalType.of(38, 10)),
            Types.NestedField.required(6, "k_date", Types.DateType.get()),
            Types.NestedField.required(7, "k_time", Types.TimeType.get()),
            Types.NestedField.required(8, "k_timestamp", Types.TimestampType.withoutZone()),
            Types.NestedField.required(9, "k_timestamptz", Types.TimestampType.withZone()),
            Types.NestedField.required(10, "k_uuid", Types.UUIDType.get()),
            Types.NestedField.required(11, "k_fixed", Types.FixedType.ofLength(4)),
            Types.NestedField.required(12, "k_binary", Types.BinaryType.get()),
            Types.NestedField.optional(13, "boolean", Types.BooleanType.get()),
            Types.NestedField.optional(14, "int", Types.IntegerType.get()),
            Types.NestedField.optional(15, "long", Types.LongType.get()),
            Types.NestedField.optional(16, "float", Types.FloatType.get()),
            Types.NestedField.optional(17, "double", Types.DoubleType.get()),
            Types.NestedField.optional(18, "decimal", Types.DecimalType.of(18, 6)),
            Types.NestedField.optional(19, "wide_decimal", Types.DecimalType.of(30, 5)),
            Types.NestedField.optional(20, "date", Types.DateType.get()),
            Types.NestedField.optional(21, "time", Types.TimeType.get()),
            Types.NestedField.optional(22, "timestamp", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(23, "timestamptz", Types.TimestampType.withZone()),
            Types.NestedField.optional(24, "string", Types.StringType.get()),
            Types.NestedField.optional(25, "uuid", Types.UUIDType.get()),
            Types.NestedField.optional(26, "fixed", Types.FixedType.ofLength(3)),
            Types.NestedField.optional(27, "binary", Types.BinaryType.get()),
            Types.NestedField.required(28, "required_string", Types.StringType.get()));
    private static final String GOLDEN_DIGEST_BATCH_37 =
            "7d79c4ab370e4fb6a0a3ac436c45eccf524e66962fe74dfc30d354612b225b2c";
    private static final String GOLDEN_DIGEST_DEFAULT_BATCH =
            "afd1a47764199ff2078813d078f751b6f4423c7e140eb68f6dbfc0aaddb11303";
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTable table;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        table = warehouse.create(
                "all_types",
                TableSpec.builder(SCHEMA).primaryKey(KEY).bucketCount(BUCKETS).build());
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void randomRowsOfEveryTypeGiveTheSameSegmentsAsTheBoxedPath() throws IOException {
        SplittableRandom random = Seeds.splittable(6);
        BucketFunction bucketFunction = table.bucketFunction().orElseThrow();
        Map<Integer, List<Long>> expectedIdsByBucket = new HashMap<>();
        Map<Long, GenericRecord> written = new HashMap<>();
        // small batches, so rows cross record batches and reallocated buffers
        try (LakestreamWriter boxed = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 37);
                LakestreamWriter typed = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 37)) {
            for (long id = 0; id < 3000; id++) {
                GenericRecord record = randomRow(random, id);
                boolean delete = random.nextInt(10) == 0;
                Object[] key = KEY.stream().map(record::getField).toArray();
                expectedIdsByBucket
                        .computeIfAbsent(bucketFunction.bucket(key), bucket -> new ArrayList<>())
                        .add(id);
                setTyped(typed.row(), record, random, delete);
                written.put(id, delete ? keyOnly(record) : record);
                if (delete) {
                    boxed.delete(record);
                    typed.deleteRow();
                } else {
                    boxed.upsert(record);
                    typed.upsertRow();
                }
            }
            Map<Integer, List<List<Object>>> boxedRows = readSegments(boxed.prepare());
            Map<Integer, List<List<Object>>> typedRows = readSegments(typed.prepare());
            assertThat(typedRows.keySet()).isEqualTo(expectedIdsByBucket.keySet());
            for (int bucket : expectedIdsByBucket.keySet()) {
                List<List<Object>> rows = typedRows.get(bucket);
                assertThat(rows).as("bucket %s", bucket).hasSameSizeAs(boxedRows.get(bucket));
                for (int i = 0; i < rows.size(); i++) {
                    assertThat(rows.get(i))
                            .as("bucket %s row %s", bucket, i)
                            .isEqualTo(boxedRows.get(bucket).get(i));
                }
                // column 2 is k_long (after the change type and timestamp): the row's id
                assertThat(rows.stream().map(row -> row.get(2)).toList())
                        .as("bucket %s", bucket)
                        .isEqualTo(expectedIdsByBucket.get(bucket));
                for (List<Object> row : rows) {
                    assertWrittenAsGiven(row, written.get((Long) row.get(2)));
                }
            }
        }
    }

    /**
     * The segment files themselves, byte for byte, against digests recorded from the per-row writer
     * this one replaced (main at 47f940e): random rows of every type with nulls and deletes, in
     * record batches of 37 rows (rows cross batches) and of the default 8,192. A faster write path
     * must not change one byte of the log. If the log format changes on purpose, record the new
     * digests (the failure message prints them) and say why in docs/format.md. Written with
     * {@code lakestream.log.compression = none}: those segments are still exactly what every segment
     * was before compression existed (what older readers read).
     */
    @Test
    void segmentsAreByteIdenticalToThePreviousWriters() throws Exception {
        for (boolean typed : new boolean[] {true, false}) {
            assertThat(segmentDigest(37, typed)).as("typed %s", typed).isEqualTo(GOLDEN_DIGEST_BATCH_37);
            assertThat(segmentDigest(LakestreamWriter.DEFAULT_BATCH_ROWS, typed))
                    .as("typed %s", typed)
                    .isEqualTo(GOLDEN_DIGEST_DEFAULT_BATCH);
        }
    }

    /**
     * SHA-256 over the bucket number and bytes of each segment, by bucket, of 3,000 random rows
     * written through the typed setters or as boxed records.
     */
    private String segmentDigest(int batchRows, boolean typed) throws Exception {
        SplittableRandom random = Seeds.splittable(7);
        List<StagedSegment> segments;
        LakestreamTable table = uncompressedTable();
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), CLOCK, batchRows);
                // the boxed rows draw the same random numbers as the typed ones, on a row never written
                LakestreamWriter unused = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = 0; id < 3000; id++) {
                GenericRecord record = randomRow(random, id);
                boolean delete = random.nextInt(10) == 0;
                setTyped(typed ? writer.row() : unused.row(), record, random, delete);
                if (typed) {
                    if (delete) {
                        writer.deleteRow();
                    } else {
                        writer.upsertRow();
                    }
                } else if (delete) {
                    writer.delete(record);
                } else {
                    writer.upsert(record);
                }
            }
            segments = new ArrayList<>(writer.prepare());
        }
        segments.sort(Comparator.comparingInt(StagedSegment::bucket));
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        for (StagedSegment segment : segments) {
            digest.update((byte) segment.bucket());
            try (InputStream in = Channels.newInputStream(
                    table.log().fileSystem().openForRead(table.log().paths().resolve(segment.path())))) {
                digest.update(in.readAllBytes());
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private LakestreamTable uncompressedTable() {
        String name = "all_types_uncompressed";
        if (warehouse.catalog().listTables(TestingWarehouse.NAMESPACE).stream()
                .anyMatch(identifier -> identifier.name().equals(name))) {
            return warehouse.load(name);
        }
        return warehouse.create(
                name,
                TableSpec.builder(SCHEMA)
                        .primaryKey(KEY)
                        .bucketCount(BUCKETS)
                        .properties(Map.of(LogCompression.PROPERTY, "none"))
                        .build());
    }

    @Test
    void badValuesFailWithTheBoxedPathsErrors() {
        GenericRecord valid = randomRow(Seeds.splittable(1), 1);
        assertSameError(valid, "k_long", null, row -> row.setNull(position("k_long")));
        assertSameError(valid, "k_string", null, row -> {});
        assertSameError(valid, "required_string", null, row -> row.setNull(position("required_string")));
        // more digits than decimal(10, 2) holds, a finer scale, and a wider decimal's precision
        assertSameError(
                valid,
                "k_decimal",
                new BigDecimal("123456789.00"),
                row -> row.setDecimalUnscaled(position("k_decimal"), 12_345_678_900L, 2));
        assertSameError(
                valid,
                "decimal",
                new BigDecimal("1.2345678"),
                row -> row.setDecimalUnscaled(position("decimal"), 12_345_678L, 7));
        assertSameError(
                valid,
                "wide_decimal",
                new BigDecimal("1".repeat(26) + ".5"),
                row -> row.setValue(position("wide_decimal"), new BigDecimal("1".repeat(26) + ".5")));
        assertSameError(
                valid,
                "k_fixed",
                new byte[] {1, 2, 3, 4, 5},
                row -> row.setBytes(position("k_fixed"), new byte[] {0, 1, 2, 3, 4, 5}, 1, 5));
        // a setter of another type: the boxed path's message for that Java type
        assertSameError(valid, "string", 7L, row -> row.setLong(position("string"), 7L));
        assertSameError(valid, "int", 7L, row -> row.setLong(position("int"), 7L));
        assertSameError(valid, "boolean", 1.5d, row -> row.setDouble(position("boolean"), 1.5d));
    }

    @Test
    void aTimeOutsideTheDayIsInvalid() {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 37)) {
            setTyped(writer.row(), randomRow(Seeds.splittable(2), 2), Seeds.splittable(2), false);
            writer.row().setMicros(position("time"), 86_400_000_000L);
            assertThatThrownBy(writer::upsertRow)
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_ROW))
                    .hasMessageContaining("column 'time' of type time cannot hold Long '86400000000'");
        }
    }

    @Test
    void anInvalidRowAbortsTheWriter() {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 37)) {
            GenericRecord row = randomRow(Seeds.splittable(3), 3);
            setTyped(writer.row(), row, Seeds.splittable(3), false);
            writer.upsertRow();
            writer.row().setLong(position("k_long"), 4);
            assertThatThrownBy(writer::upsertRow).hasMessageContaining("primary key column 'k_int' is null");
            setTyped(writer.row(), row, Seeds.splittable(3), false);
            assertThatThrownBy(writer::upsertRow)
                    .hasMessageContaining("was aborted ([INVALID_ROW] Invalid row: primary key column 'k_int' is null");
        }
    }

    /**
     * An engine reuses its row buffer for the next row as soon as the writer returns: the writer keeps
     * rows in a batch of many rows, so it must have copied the bytes by then.
     */
    @Test
    void theCallersBytesMayChangeOnceTheSetterReturns() throws IOException {
        SplittableRandom random = Seeds.splittable(8);
        byte[] reused = new byte[64];
        Map<Long, String> strings = new HashMap<>();
        List<StagedSegment> segments;
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 500)) {
            for (long id = 0; id < 2500; id++) {
                setTyped(writer.row(), randomRow(random, id), random, false);
                String value = "row " + id + " " + "x".repeat(random.nextInt(40));
                byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
                System.arraycopy(utf8, 0, reused, 1, utf8.length);
                writer.row().setUtf8(position("string"), reused, 1, utf8.length);
                strings.put(id, value);
                writer.upsertRow();
                Arrays.fill(reused, (byte) '?');
            }
            segments = writer.prepare();
        }
        Map<Long, String> written = new HashMap<>();
        for (List<List<Object>> rows : readSegments(segments).values()) {
            for (List<Object> row : rows) {
                written.put((Long) row.get(2), row.get(position("string") + 2).toString());
            }
        }
        assertThat(written).isEqualTo(strings);
    }

    @Test
    void typedRowsNeedTheTablesKind() {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 37)) {
            assertThatThrownBy(writer::appendRow)
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.UNSUPPORTED_OPERATION))
                    .hasMessageContaining("use upsert and delete instead of append");
        }
    }

    /** The row read back holds the record's values: nulls where it has nulls, the same numbers, strings, bytes. */
    private static void assertWrittenAsGiven(List<Object> row, GenericRecord record) {
        List<Types.NestedField> columns = SCHEMA.columns();
        for (int column = 0; column < columns.size(); column++) {
            Object expected = record.get(column);
            Object actual = row.get(column + 2);
            String description = "%s of row %s".formatted(columns.get(column).name(), record.getField("k_long"));
            if (expected == null) {
                assertThat(actual).as(description).isNull();
                continue;
            }
            switch (columns.get(column).type().typeId()) {
                case BOOLEAN, INTEGER, LONG, FLOAT, DOUBLE, DECIMAL ->
                    assertThat(actual).as(description).isEqualTo(expected);
                case STRING -> assertThat(actual.toString()).as(description).isEqualTo(expected);
                case FIXED, BINARY -> assertThat(actual).as(description).isEqualTo(toList((byte[]) expected));
                // the log's Arrow layout: days, microseconds, a UUID's 16 bytes (most significant first)
                case DATE ->
                    assertThat(epochCount(actual)).as(description).isEqualTo(((LocalDate) expected).toEpochDay());
                case TIME ->
                    assertThat(epochCount(actual)).as(description).isEqualTo(DateTimeUtil.microsFromTime((LocalTime)
                            expected));
                case TIMESTAMP ->
                    assertThat(epochCount(actual))
                            .as(description)
                            .isEqualTo(
                                    expected instanceof OffsetDateTime timestamptz
                                            ? DateTimeUtil.microsFromTimestamptz(timestamptz)
                                            : DateTimeUtil.microsFromTimestamp((LocalDateTime) expected));
                case UUID -> {
                    UUID uuid = (UUID) expected;
                    byte[] bytes = java.nio.ByteBuffer.allocate(16)
                            .putLong(uuid.getMostSignificantBits())
                            .putLong(uuid.getLeastSignificantBits())
                            .array();
                    assertThat(actual).as(description).isEqualTo(toList(bytes));
                }
                default -> throw new AssertionError("no check of %s values: add one".formatted(columns.get(column)));
            }
        }
    }

    /** A day or microsecond count as Arrow returns it (a timestamp without zone as a LocalDateTime). */
    private static long epochCount(Object arrowValue) {
        return arrowValue instanceof LocalDateTime timestamp
                ? DateTimeUtil.microsFromTimestamp(timestamp)
                : ((Number) arrowValue).longValue();
    }

    /** A delete's row: the key of {@code record}, every other column null. */
    private static GenericRecord keyOnly(GenericRecord record) {
        GenericRecord key = GenericRecord.create(SCHEMA);
        for (String column : KEY) {
            key.setField(column, record.getField(column));
        }
        return key;
    }

    /**
     * The boxed path with {@code column} of {@code valid} replaced by {@code boxedValue}, and the typed
     * path with {@code valid} set and then {@code typedChange} applied: same error code and message.
     */
    private void assertSameError(
            GenericRecord valid, String column, Object boxedValue, Consumer<RowBuffer> typedChange) {
        GenericRecord invalid = valid.copy();
        invalid.setField(column, boxedValue);
        LakestreamException expected;
        try (LakestreamWriter boxed = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 37)) {
            expected = catchThrowableOfType(LakestreamException.class, () -> boxed.upsert(invalid));
        }
        try (LakestreamWriter typed = new LakestreamWriter(table, warehouse.allocator(), CLOCK, 37)) {
            RowBuffer row = typed.row();
            SplittableRandom random = Seeds.splittable(4);
            setTyped(row, valid, random, false);
            if (boxedValue == null) {
                row.setNull(position(column));
            }
            typedChange.accept(row);
            LakestreamException actual = catchThrowableOfType(LakestreamException.class, typed::upsertRow);
            assertThat(expected).as("boxed path fails for %s", column).isNotNull();
            assertThat(actual).as("typed path fails for %s", column).isNotNull();
            assertThat(actual.error()).isEqualTo(expected.error());
            assertThat(actual.getMessage()).isEqualTo(expected.getMessage());
        }
    }

    private static int position(String column) {
        return SCHEMA.columns().indexOf(SCHEMA.findField(column));
    }

    /**
     * Sets the record's values with the typed setters, in the physical form an engine holds them;
     * a null is set explicitly or, at random, not at all (an unset column is null). A delete sets
     * the key only.
     */
    private static void setTyped(RowBuffer row, GenericRecord record, SplittableRandom random, boolean delete) {
        List<Types.NestedField> columns = SCHEMA.columns();
        for (int column = 0; column < columns.size(); column++) {
            Types.NestedField field = columns.get(column);
            Object value = record.get(column);
            if (delete && !KEY.contains(field.name())) {
                continue;
            }
            if (value == null) {
                if (random.nextBoolean()) {
                    row.setNull(column);
                }
                continue;
            }
            setTypedValue(row, column, field.type(), value, random);
        }
    }

    private static void setTypedValue(RowBuffer row, int column, Type type, Object value, SplittableRandom random) {
        switch (type.typeId()) {
            case BOOLEAN -> row.setBoolean(column, (Boolean) value);
            case INTEGER -> row.setInt(column, (Integer) value);
            case LONG -> row.setLong(column, (Long) value);
            case FLOAT -> row.setFloat(column, (Float) value);
            case DOUBLE -> row.setDouble(column, (Double) value);
            case DECIMAL -> {
                BigDecimal decimal = (BigDecimal) value;
                if (((Types.DecimalType) type).precision() <= 18) {
                    row.setDecimalUnscaled(column, decimal.unscaledValue().longValueExact(), decimal.scale());
                } else {
                    row.setValue(column, decimal);
                }
            }
            case DATE -> row.setDays(column, (int) ((LocalDate) value).toEpochDay());
            case TIME -> row.setMicros(column, DateTimeUtil.microsFromTime((LocalTime) value));
            case TIMESTAMP ->
                row.setMicros(
                        column,
                        value instanceof OffsetDateTime timestamptz
                                ? DateTimeUtil.microsFromTimestamptz(timestamptz)
                                : DateTimeUtil.microsFromTimestamp((LocalDateTime) value));
            case STRING -> {
                // inside a larger array, as an engine's row holds them
                byte[] bytes = ((String) value).getBytes(StandardCharsets.UTF_8);
                int offset = random.nextInt(5);
                row.setUtf8(column, embed(bytes, offset), offset, bytes.length);
            }
            case FIXED, BINARY -> {
                byte[] bytes = (byte[]) value;
                int offset = random.nextInt(5);
                row.setBytes(column, embed(bytes, offset), offset, bytes.length);
            }
            default -> row.setValue(column, value);
        }
    }

    private static byte[] embed(byte[] bytes, int offset) {
        byte[] larger = new byte[offset + bytes.length + 3];
        Arrays.fill(larger, (byte) 'z');
        System.arraycopy(bytes, 0, larger, offset, bytes.length);
        return larger;
    }

    private static GenericRecord randomRow(SplittableRandom random, long id) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        for (Types.NestedField field : SCHEMA.columns()) {
            boolean isNull = field.isOptional() && random.nextInt(4) == 0;
            record.setField(field.name(), isNull ? null : randomValue(random, field.type()));
        }
        record.setField("k_long", id);
        return record;
    }

    private static Object randomValue(SplittableRandom random, Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> random.nextBoolean();
            case INTEGER -> random.nextInt();
            case LONG -> random.nextLong();
            case FLOAT -> Float.intBitsToFloat(random.nextInt());
            case DOUBLE -> random.nextBoolean() ? Double.longBitsToDouble(random.nextLong()) : random.nextDouble();
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                BigInteger unscaled = new BigInteger(
                        random.nextInt(1, decimal.precision() * 3), new java.util.Random(random.nextLong()));
                if (unscaled.toString().length() > decimal.precision()) {
                    unscaled = unscaled.mod(BigInteger.TEN.pow(decimal.precision()));
                }
                yield new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), decimal.scale());
            }
            case DATE -> LocalDate.ofEpochDay(random.nextInt(-800_000, 800_000));
            case TIME -> LocalTime.ofNanoOfDay(random.nextLong(86_400_000_000L) * 1000);
            case TIMESTAMP -> {
                long micros = random.nextLong(-10_000_000_000_000_000L, 10_000_000_000_000_000L);
                yield ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? DateTimeUtil.timestamptzFromMicros(micros)
                        : DateTimeUtil.timestampFromMicros(micros);
            }
            case STRING -> randomString(random);
            case UUID -> new UUID(random.nextLong(), random.nextLong());
            case FIXED -> randomBytes(random, ((Types.FixedType) type).length());
            case BINARY -> randomBytes(random, random.nextInt(40));
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static String randomString(SplittableRandom random) {
        String alphabet = "abcXYZ09 -_ü世界🌍";
        StringBuilder builder = new StringBuilder();
        int length = random.nextInt(60);
        while (builder.length() < length) {
            builder.appendCodePoint(alphabet.codePointAt(
                    alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
        }
        return builder.toString();
    }

    private static byte[] randomBytes(SplittableRandom random, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) random.nextInt(256);
        }
        return bytes;
    }

    /** Each segment's rows, every column's value (system columns first), by bucket. */
    private Map<Integer, List<List<Object>>> readSegments(List<StagedSegment> segments) throws IOException {
        Map<Integer, List<List<Object>>> rows = new HashMap<>();
        for (StagedSegment segment : segments) {
            String location = table.log().paths().resolve(segment.path());
            List<List<Object>> segmentRows = rows.computeIfAbsent(segment.bucket(), bucket -> new ArrayList<>());
            int rowsBefore = segmentRows.size();
            try (SeekableByteChannel channel = table.log().fileSystem().openForRead(location);
                    SegmentFileReader reader = new SegmentFileReader(channel, warehouse.allocator())) {
                VectorSchemaRoot root = reader.getVectorSchemaRoot();
                while (reader.loadNextBatch()) {
                    for (int row = 0; row < root.getRowCount(); row++) {
                        List<Object> values = new ArrayList<>();
                        for (FieldVector vector : root.getFieldVectors()) {
                            Object value = vector.getObject(row);
                            // Arrow's Text compares by content; byte arrays as lists
                            values.add(value instanceof byte[] bytes ? toList(bytes) : value);
                        }
                        segmentRows.add(values);
                    }
                }
            }
            assertThat(segmentRows.size() - rowsBefore).isEqualTo(segment.rowCount());
        }
        return rows;
    }

    private static List<Byte> toList(byte[] bytes) {
        List<Byte> list = new ArrayList<>(bytes.length);
        for (byte value : bytes) {
            list.add(value);
        }
        return list;
    }
}
