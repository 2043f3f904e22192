package io.lakestream.tiering.parquet;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Random;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;

/** Random rows, their Arrow batches in the log's encoding, and Parquet file checks for the tiering writer tests. */
public final class TieredParquetTesting {
    private TieredParquetTesting() {}

    /**
     * A column of every type the columnar writer writes, and columns the random rows fill specially: {@code few_*}
     * few distinct values, {@code null_*} all null, {@code req_*} required.
     */
    static final Schema COLUMNAR_TYPES = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "i", Types.IntegerType.get()),
            Types.NestedField.optional(3, "l", Types.LongType.get()),
            Types.NestedField.optional(4, "f", Types.FloatType.get()),
            Types.NestedField.optional(5, "d", Types.DoubleType.get()),
            Types.NestedField.optional(6, "dec_9", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(7, "dec_18", Types.DecimalType.of(18, 6)),
            Types.NestedField.optional(8, "day", Types.DateType.get()),
            Types.NestedField.optional(9, "t", Types.TimeType.get()),
            Types.NestedField.optional(10, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(11, "tstz", Types.TimestampType.withZone()),
            Types.NestedField.optional(12, "s", Types.StringType.get()),
            Types.NestedField.optional(13, "bin", Types.BinaryType.get()),
            Types.NestedField.optional(14, "few_s", Types.StringType.get()),
            Types.NestedField.optional(15, "few_i", Types.IntegerType.get()),
            Types.NestedField.optional(16, "null_i", Types.IntegerType.get()),
            Types.NestedField.optional(17, "null_s", Types.StringType.get()),
            Types.NestedField.required(18, "req_s", Types.StringType.get()),
            Types.NestedField.required(19, "req_d", Types.DoubleType.get()));

    /** The rows as one Arrow batch of the log's encoding: change type, timestamp, then the schema's columns. */
    static VectorSchemaRoot batch(Schema schema, List<Record> rows, BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(LogSchema.arrowSchema(schema), allocator);
        root.allocateNew();
        for (int i = 0; i < rows.size(); i++) {
            ((TinyIntVector) root.getVector(0)).setSafe(i, ChangeType.INSERT.code());
            ((TimeStampMicroTZVector) root.getVector(1)).setSafe(i, 1L);
            for (int c = 0; c < schema.columns().size(); c++) {
                FieldVector vector = root.getVector(c + LogSchema.SYSTEM_COLUMN_COUNT);
                LogVectorValues.forType(schema.columns().get(c).type())
                        .write(vector, i, rows.get(i).get(c));
            }
        }
        root.setRowCount(rows.size());
        return root;
    }

    /** Field id → position of the column's vector in {@link #batch}es of {@code schema}. */
    static Map<Integer, Integer> positions(Schema schema) {
        Map<Integer, Integer> positions = new HashMap<>();
        for (int i = 0; i < schema.columns().size(); i++) {
            positions.put(schema.columns().get(i).fieldId(), i + LogSchema.SYSTEM_COLUMN_COUNT);
        }
        return positions;
    }

    /** Where the columnar writer puts a table's data files, with the table's own Parquet settings. */
    static ColumnarFileWriter.Target columnarTarget(
            Table table,
            Schema logSchema,
            ReusePool<GrowableBytes> scratch,
            long targetFileSizeBytes,
            String operation) {
        return new ColumnarFileWriter.Target(
                OutputFileFactory.builderFor(table, 1, 1).operationId(operation).build(),
                new ReusedFileBuilders(table.spec()),
                scratch,
                null,
                positions(logSchema),
                7,
                ColumnarParquetSettings.of(table.properties(), Map.of()).orElseThrow(),
                MetricsConfig.forTable(table),
                targetFileSizeBytes);
    }

    static EncryptedOutputFile output(Table table, Path path) {
        return EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(path.toString()));
    }

    /** The rows in a data file written by Iceberg's own generic Parquet writer, configured by the table. */
    static DataFile writeGeneric(Table table, List<Record> rows, Path path) throws IOException {
        DataWriter<Record> writer = Parquet.writeData(output(table, path))
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

    /** The file's rows through Iceberg's generic Parquet reader. */
    static List<Record> read(Table table, String location, Schema schema) throws IOException {
        List<Record> rows = new ArrayList<>();
        try (CloseableIterable<Record> reader = Parquet.read(table.io().newInputFile(location))
                .project(schema)
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                .build()) {
            reader.forEach(record -> rows.add(record.copy()));
        }
        return rows;
    }

    public static ParquetMetadata footer(String location) throws IOException {
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), new Configuration()))) {
            return reader.getFooter();
        }
    }

    /**
     * The footer alone gives the same metrics (what Iceberg's import and rewrite paths compute), except
     * float and double bounds and NaN counts, which Iceberg takes only from its writers.
     */
    static void assertFooterMetrics(Table table, DataFile file, List<Integer> floating) {
        Metrics footerMetrics =
                ParquetUtil.fileMetrics(table.io().newInputFile(file.location()), MetricsConfig.forTable(table));
        assertThat(footerMetrics.recordCount()).isEqualTo(file.recordCount());
        assertThat(footerMetrics.columnSizes()).isEqualTo(file.columnSizes());
        assertThat(footerMetrics.valueCounts()).isEqualTo(file.valueCounts());
        assertThat(footerMetrics.nullValueCounts()).isEqualTo(file.nullValueCounts());
        Map<Integer, ByteBuffer> lower = new HashMap<>(file.lowerBounds());
        Map<Integer, ByteBuffer> upper = new HashMap<>(file.upperBounds());
        Map<Integer, ByteBuffer> footerLower = new HashMap<>(footerMetrics.lowerBounds());
        Map<Integer, ByteBuffer> footerUpper = new HashMap<>(footerMetrics.upperBounds());
        for (Map<Integer, ByteBuffer> bounds : List.of(lower, upper, footerLower, footerUpper)) {
            bounds.keySet().removeAll(floating);
        }
        assertThat(footerLower).isEqualTo(lower);
        assertThat(footerUpper).isEqualTo(upper);
    }

    static void assertSameMetrics(ContentFile<?> actual, ContentFile<?> expected) {
        assertThat(actual.recordCount()).isEqualTo(expected.recordCount());
        assertThat(actual.valueCounts()).isEqualTo(expected.valueCounts());
        assertThat(actual.nullValueCounts()).isEqualTo(expected.nullValueCounts());
        assertThat(actual.nanValueCounts()).isEqualTo(expected.nanValueCounts());
        assertThat(actual.lowerBounds()).isEqualTo(expected.lowerBounds());
        assertThat(actual.upperBounds()).isEqualTo(expected.upperBounds());
    }

    static void assertRowsEqual(List<Record> actual, List<Record> expected, Schema schema) {
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
        if (value instanceof Float f) {
            return Float.floatToRawIntBits(f); // exact: NaN and -0.0 included
        }
        if (value instanceof Double d) {
            return Double.doubleToRawLongBits(d);
        }
        return value;
    }

    static Record project(Record row, Schema schema) {
        Record projected = GenericRecord.create(schema);
        for (Types.NestedField column : schema.columns()) {
            projected.setField(column.name(), row.getField(column.name()));
        }
        return projected;
    }

    /**
     * Random rows: about one in seven values of an optional column null, and extremes (minimum and maximum
     * values, NaN, infinities, zeros of both signs, empty and long strings) now and then.
     */
    static List<Record> randomRows(Random random, int count, Schema schema) {
        List<Record> rows = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Record row = GenericRecord.create(schema);
            for (int c = 0; c < schema.columns().size(); c++) {
                Types.NestedField column = schema.columns().get(c);
                boolean isNull = column.isOptional() && (column.name().startsWith("null") || random.nextInt(7) == 0);
                row.set(c, isNull ? null : randomValue(random, column, i));
            }
            rows.add(row);
        }
        return rows;
    }

    private static Object randomValue(Random random, Types.NestedField column, int row) {
        Type type = column.type();
        boolean extreme = random.nextInt(40) == 0;
        if (column.name().startsWith("few")) {
            // few distinct values: dictionary-encoded
            int value = random.nextInt(5);
            return type.typeId() == Type.TypeID.STRING ? "value-" + value : (Object) (value - 2);
        }
        return switch (type.typeId()) {
            case BOOLEAN -> random.nextBoolean();
            case INTEGER -> extreme ? (random.nextBoolean() ? Integer.MIN_VALUE : Integer.MAX_VALUE) : random.nextInt();
            case LONG -> {
                if (extreme) {
                    yield random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
                }
                yield row % 3 == 0 ? (long) row : random.nextLong();
            }
            case FLOAT -> {
                if (extreme) {
                    float[] special = {
                        Float.NaN,
                        Float.POSITIVE_INFINITY,
                        Float.NEGATIVE_INFINITY,
                        -0.0f,
                        0.0f,
                        Float.MIN_VALUE,
                        -Float.MAX_VALUE
                    };
                    yield special[random.nextInt(special.length)];
                }
                yield random.nextFloat() * 1000 - 500;
            }
            case DOUBLE -> {
                if (extreme) {
                    double[] special = {
                        Double.NaN,
                        Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY,
                        -0.0,
                        0.0,
                        Double.MIN_VALUE,
                        Double.MAX_VALUE
                    };
                    yield special[random.nextInt(special.length)];
                }
                yield random.nextGaussian() * 1e6;
            }
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                BigInteger limit = BigInteger.TEN.pow(decimal.precision());
                BigInteger unscaled = extreme
                        ? limit.subtract(BigInteger.ONE)
                        : new BigInteger(limit.bitLength() + 8, random).mod(limit);
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
            case STRING -> randomString(random, extreme);
            case UUID -> new UUID(random.nextLong(), random.nextLong());
            case FIXED -> {
                byte[] bytes = new byte[((Types.FixedType) type).length()];
                random.nextBytes(bytes);
                yield bytes;
            }
            case BINARY -> {
                byte[] bytes = new byte[extreme ? 0 : random.nextInt(20)];
                if (random.nextInt(3) == 0) {
                    // few byte values, zeros included: values share their first 8 bytes or differ only by
                    // trailing zeros, which the writer's statistics must still order byte by byte
                    for (int i = 0; i < bytes.length; i++) {
                        bytes[i] = (byte) new int[] {0x00, 0x01, 0xFF}[random.nextInt(3)];
                    }
                } else {
                    random.nextBytes(bytes);
                }
                yield ByteBuffer.wrap(bytes);
            }
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static String randomString(Random random, boolean extreme) {
        if (extreme && random.nextBoolean()) {
            return "";
        }
        // now and then a first 8 bytes shared with others and sorting first or last, so the page minimum
        // and maximum are decided beyond them
        StringBuilder value =
                new StringBuilder(random.nextInt(4) == 0 ? (random.nextBoolean() ? "aaaaaaaa" : "zzzzzzzz") : "");
        // long strings now and then (below Parquet's 4 KB statistics limit, so every writer keeps bounds)
        int length = extreme ? 100 + random.nextInt(300) : random.nextInt(12);
        for (int i = 0; i < length; i++) {
            value.append(i % 5 == 4 ? 'é' : (char) ('a' + random.nextInt(26)));
        }
        if (random.nextInt(10) == 0) {
            value.append("\u00df\u6771\uD83D\uDE00");
        }
        if (random.nextInt(20) == 0) {
            value.append('\uFFFF'); // sorts after the others byte-wise: an unsigned comparison
        }
        return value.toString();
    }
}
