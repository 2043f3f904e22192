package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSchema;
import io.lakestream.testing.LogVectorValues;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columnar tiering writer (Arrow vectors → Iceberg Parquet) against Iceberg's own generic writer:
 * every supported type with nulls, values read back by Iceberg's generic reader, and the same Parquet
 * schema and the same Iceberg metrics as the generic writer produces for the same rows.
 */
class TestArrowRowWriter {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "flag", Types.BooleanType.get()),
            Types.NestedField.optional(3, "i", Types.IntegerType.get()),
            Types.NestedField.optional(4, "f", Types.FloatType.get()),
            Types.NestedField.optional(5, "d", Types.DoubleType.get()),
            Types.NestedField.optional(6, "dec_9", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(7, "dec_18", Types.DecimalType.of(18, 6)),
            Types.NestedField.optional(8, "dec_38", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(9, "dec_20", Types.DecimalType.of(20, 0)),
            Types.NestedField.optional(10, "day", Types.DateType.get()),
            Types.NestedField.optional(11, "t", Types.TimeType.get()),
            Types.NestedField.optional(12, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(13, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(14, "s", Types.StringType.get()),
            Types.NestedField.optional(15, "u", Types.UUIDType.get()),
            Types.NestedField.optional(16, "fx", Types.FixedType.ofLength(7)),
            Types.NestedField.optional(17, "bin", Types.BinaryType.get()),
            Types.NestedField.required(18, "req_s", Types.StringType.get()));

    @TempDir
    Path directory;

    private BufferAllocator allocator;
    private Table table;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        table = new HadoopTables(new Configuration())
                .create(
                        SCHEMA,
                        PartitionSpec.unpartitioned(),
                        Map.of(
                                "format-version", "2",
                                // several row groups per file, to exercise the writer's flushes
                                "write.parquet.row-group-size-bytes", "16384"),
                        directory.resolve("table").toString());
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void everySupportedTypeReadsBackAndHasTheGenericWritersMetrics() throws IOException {
        List<Record> rows = randomRows(new Random(7), 3000, SCHEMA);
        DataFile arrowFile = writeArrow(SCHEMA, rows, "arrow.parquet");
        DataFile genericFile = writeGeneric(rows, "generic.parquet");

        assertThat(arrowFile.recordCount()).isEqualTo(rows.size());
        assertRowsEqual(read(arrowFile.location(), SCHEMA), rows, SCHEMA);
        assertThat(parquetSchema(arrowFile.location())).isEqualTo(parquetSchema(genericFile.location()));
        assertThat(footer(arrowFile.location()).getBlocks()).hasSizeGreaterThan(1);
        assertSameMetrics(arrowFile, genericFile);

        for (Types.NestedField column : SCHEMA.columns()) {
            int id = column.fieldId();
            assertThat(arrowFile.valueCounts()).containsEntry(id, (long) rows.size());
            assertThat(arrowFile.nullValueCounts()).containsKey(id);
            assertThat(arrowFile.lowerBounds()).as("lower bound of %s", column).containsKey(id);
            assertThat(arrowFile.upperBounds()).as("upper bound of %s", column).containsKey(id);
        }
        assertThat(arrowFile.nullValueCounts().get(3)).isGreaterThan(0);
        assertThat(arrowFile.nanValueCounts()).containsKeys(4, 5);
        assertSameMetrics(arrowFile, genericFile);
        // The footer alone gives the same metrics (what Iceberg's import and rewrite paths compute), except
        // float and double bounds, which Iceberg takes only from its writers (Parquet's ignore NaN).
        var footerMetrics =
                ParquetUtil.fileMetrics(table.io().newInputFile(arrowFile.location()), MetricsConfig.forTable(table));
        assertThat(footerMetrics.valueCounts()).isEqualTo(arrowFile.valueCounts());
        assertThat(footerMetrics.nullValueCounts()).isEqualTo(arrowFile.nullValueCounts());
        Map<Integer, ByteBuffer> lower = new HashMap<>(arrowFile.lowerBounds());
        Map<Integer, ByteBuffer> upper = new HashMap<>(arrowFile.upperBounds());
        lower.keySet().removeAll(List.of(4, 5));
        upper.keySet().removeAll(List.of(4, 5));
        assertThat(footerMetrics.lowerBounds()).isEqualTo(lower);
        assertThat(footerMetrics.upperBounds()).isEqualTo(upper);
    }

    @Test
    void tableCodecAndPropertiesApply() throws IOException {
        table.updateProperties()
                .set("write.parquet.compression-codec", "snappy")
                .commit();
        List<Record> rows = randomRows(new Random(11), 200, SCHEMA);
        DataFile file = writeArrow(SCHEMA, rows, "snappy.parquet");
        assertThat(footer(file.location())
                        .getBlocks()
                        .getFirst()
                        .getColumns()
                        .getFirst()
                        .getCodec()
                        .name())
                .isEqualTo("SNAPPY");
        assertRowsEqual(read(file.location(), SCHEMA), rows, SCHEMA);
    }

    @Test
    void bucketColumnIsTheRowsBucket() throws IOException {
        Schema lakeSchema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(14, "s", Types.StringType.get()),
                Types.NestedField.required(100, "__bucket", Types.IntegerType.get()));
        Schema logSchema = new Schema(lakeSchema.columns().subList(0, 2));
        List<Record> rows = randomRows(new Random(3), 50, logSchema);
        Path path = directory.resolve("bucket.parquet");
        DataWriter<ArrowRow> writer = Parquet.writeData(output(path))
                .forTable(table)
                .schema(lakeSchema)
                .withSpec(PartitionSpec.unpartitioned())
                .createWriterFunc(
                        type -> ArrowRowWriter.create(lakeSchema, type, positions(logSchema), OptionalInt.of(100)))
                .overwrite()
                .build();
        writeRows(logSchema, rows, 5, writer::write);
        writer.close();

        List<Record> read = read(path.toString(), lakeSchema);
        assertThat(read).hasSize(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(read.get(i).getField("id")).isEqualTo(rows.get(i).getField("id"));
            assertThat(read.get(i).getField("s")).isEqualTo(rows.get(i).getField("s"));
            assertThat(read.get(i).getField("__bucket")).isEqualTo(5);
        }
    }

    @Test
    void equalityDeletesHoldTheKeyColumns() throws IOException {
        Schema keySchema = SCHEMA.select("id", "s", "dec_38");
        ArrowFileWriterFactory factory =
                new ArrowFileWriterFactory(table, SCHEMA, keySchema, positions(SCHEMA), OptionalInt.empty(), Map.of());
        List<Record> rows = randomRows(new Random(5), 100, SCHEMA);
        EqualityDeleteWriter<ArrowRow> writer = factory.newEqualityDeleteWriter(
                output(directory.resolve("deletes.parquet")), PartitionSpec.unpartitioned(), null);
        writeRows(SCHEMA, rows, 0, writer::write);
        writer.close();
        DeleteFile file = writer.toDeleteFile();

        assertThat(file.content()).isEqualTo(FileContent.EQUALITY_DELETES);
        assertThat(file.equalityFieldIds()).containsExactlyInAnyOrder(1, 8, 14);
        assertThat(file.recordCount()).isEqualTo(rows.size());
        assertThat(file.lowerBounds()).containsKeys(1, 14, 8);
        List<Record> read = read(file.location(), keySchema);
        List<Record> expected =
                rows.stream().map(row -> project(row, keySchema)).toList();
        assertRowsEqual(read, expected, keySchema);
    }

    @Test
    void nullInRequiredColumnIsCorruptLog() {
        List<Record> rows = randomRows(new Random(9), 10, SCHEMA);
        rows.get(4).setField("req_s", null);
        assertThatThrownBy(() -> writeArrow(SCHEMA, rows, "bad.parquet"))
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining("req_s")
                .satisfies(e -> assertThat(((LakestreamException) e).error()).isEqualTo(LakestreamError.LOG_CORRUPT));
    }

    private DataFile writeArrow(Schema schema, List<Record> rows, String name) throws IOException {
        ArrowFileWriterFactory factory = new ArrowFileWriterFactory(
                table, schema, schema.select("id"), positions(schema), OptionalInt.empty(), Map.of());
        DataWriter<ArrowRow> writer =
                factory.newDataWriter(output(directory.resolve(name)), PartitionSpec.unpartitioned(), null);
        try {
            writeRows(schema, rows, 0, writer::write);
        } finally {
            writer.close();
        }
        return writer.toDataFile();
    }

    private DataFile writeGeneric(List<Record> rows, String name) throws IOException {
        DataWriter<Record> writer = Parquet.writeData(output(directory.resolve(name)))
                .forTable(table)
                .withSpec(PartitionSpec.unpartitioned())
                .createWriterFunc(GenericParquetWriter::create)
                .overwrite()
                .build();
        try {
            rows.forEach(writer::write);
        } finally {
            writer.close();
        }
        return writer.toDataFile();
    }

    /** Writes the rows through Arrow batches of the log's encoding (several batches, to move between them). */
    private void writeRows(Schema schema, List<Record> rows, int bucket, Consumer<ArrowRow> write) {
        ArrowRow row = new ArrowRow(bucket);
        int batchSize = 701;
        for (int start = 0; start < rows.size(); start += batchSize) {
            List<Record> batch = rows.subList(start, Math.min(rows.size(), start + batchSize));
            try (VectorSchemaRoot root = VectorSchemaRoot.create(LogSchema.arrowSchema(schema), allocator)) {
                root.allocateNew();
                for (int i = 0; i < batch.size(); i++) {
                    ((TinyIntVector) root.getVector(0)).setSafe(i, ChangeType.INSERT.code());
                    ((TimeStampMicroTZVector) root.getVector(1)).setSafe(i, 1L);
                    for (int c = 0; c < schema.columns().size(); c++) {
                        FieldVector vector = root.getVector(c + LogSchema.SYSTEM_COLUMN_COUNT);
                        LogVectorValues.forType(schema.columns().get(c).type())
                                .write(vector, i, batch.get(i).get(c));
                    }
                }
                root.setRowCount(batch.size());
                row.setBatch(root);
                for (int i = 0; i < batch.size(); i++) {
                    row.setIndex(i);
                    write.accept(row);
                }
            }
        }
    }

    private static Map<Integer, Integer> positions(Schema schema) {
        Map<Integer, Integer> positions = new HashMap<>();
        for (int i = 0; i < schema.columns().size(); i++) {
            positions.put(schema.columns().get(i).fieldId(), i + LogSchema.SYSTEM_COLUMN_COUNT);
        }
        return positions;
    }

    private EncryptedOutputFile output(Path path) {
        return EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path.toString()));
    }

    private List<Record> read(String location, Schema schema) throws IOException {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> reader = Parquet.read(table.io().newInputFile(location))
                .project(schema)
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                .build()) {
            reader.forEach(record -> rows.add(record.copy()));
        }
        return rows;
    }

    private static org.apache.parquet.hadoop.metadata.ParquetMetadata footer(String location) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), new Configuration()))) {
            return reader.getFooter();
        }
    }

    private static MessageType parquetSchema(String location) throws IOException {
        return footer(location).getFileMetaData().getSchema();
    }

    private static void assertSameMetrics(ContentFile<?> actual, ContentFile<?> expected) {
        assertThat(actual.valueCounts()).isEqualTo(expected.valueCounts());
        assertThat(actual.nullValueCounts()).isEqualTo(expected.nullValueCounts());
        assertThat(actual.nanValueCounts()).isEqualTo(expected.nanValueCounts());
        assertThat(actual.lowerBounds()).isEqualTo(expected.lowerBounds());
        assertThat(actual.upperBounds()).isEqualTo(expected.upperBounds());
    }

    private static void assertRowsEqual(List<Record> actual, List<Record> expected, Schema schema) {
        assertThat(actual).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            for (int c = 0; c < schema.columns().size(); c++) {
                Object expectedValue = comparable(expected.get(i).get(c));
                Object actualValue = comparable(actual.get(i).get(c));
                assertThat(actualValue)
                        .as("row %s column %s", i, schema.columns().get(c).name())
                        .isEqualTo(expectedValue);
            }
        }
    }

    private static Object comparable(Object value) {
        if (value instanceof byte[] bytes) {
            return ByteBuffer.wrap(bytes);
        }
        if (value instanceof Float f && f.isNaN()) {
            return "NaN";
        }
        if (value instanceof Double d && d.isNaN()) {
            return "NaN";
        }
        return value;
    }

    private static Record project(Record row, Schema schema) {
        Record projected = GenericRecord.create(schema);
        for (Types.NestedField column : schema.columns()) {
            projected.setField(column.name(), row.getField(column.name()));
        }
        return projected;
    }

    private static List<Record> randomRows(Random random, int count, Schema schema) {
        List<Record> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Record row = GenericRecord.create(schema);
            for (int c = 0; c < schema.columns().size(); c++) {
                Types.NestedField column = schema.columns().get(c);
                boolean isNull = column.isOptional() && random.nextInt(7) == 0;
                row.set(c, isNull ? null : randomValue(random, column.type(), i));
            }
            rows.add(row);
        }
        return rows;
    }

    private static Object randomValue(Random random, Type type, int row) {
        return switch (type.typeId()) {
            case BOOLEAN -> random.nextBoolean();
            case INTEGER -> random.nextInt();
            case LONG -> row % 3 == 0 ? (long) row : random.nextLong();
            case FLOAT -> random.nextInt(50) == 0 ? Float.NaN : random.nextFloat() * 1000 - 500;
            case DOUBLE -> random.nextInt(50) == 0 ? Double.NaN : random.nextGaussian() * 1e6;
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                BigInteger limit = BigInteger.TEN.pow(decimal.precision());
                BigInteger unscaled = new BigInteger(limit.bitLength() + 8, random).mod(limit);
                yield new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), decimal.scale());
            }
            case DATE -> DateTimeUtil.dateFromDays(random.nextInt(200_000) - 100_000);
            case TIME -> DateTimeUtil.timeFromMicros(Math.floorMod(random.nextLong(), 86_400_000_000L));
            case TIMESTAMP -> {
                long micros = random.nextLong() % 4_000_000_000_000_000L;
                yield ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? DateTimeUtil.timestamptzFromMicros(micros)
                        : DateTimeUtil.timestampFromMicros(micros);
            }
            case STRING -> {
                StringBuilder value = new StringBuilder();
                int length = random.nextInt(12);
                for (int i = 0; i < length; i++) {
                    value.append(i % 5 == 4 ? 'é' : (char) ('a' + random.nextInt(26)));
                }
                if (random.nextInt(10) == 0) {
                    value.append("\u00df\u6771\uD83D\uDE00");
                }
                yield value.toString();
            }
            case UUID -> new UUID(random.nextLong(), random.nextLong());
            case FIXED -> {
                byte[] bytes = new byte[((Types.FixedType) type).length()];
                random.nextBytes(bytes);
                yield bytes;
            }
            case BINARY -> {
                byte[] bytes = new byte[random.nextInt(20)];
                random.nextBytes(bytes);
                yield ByteBuffer.wrap(bytes);
            }
            default -> throw new IllegalArgumentException(type.toString());
        };
    }
}
