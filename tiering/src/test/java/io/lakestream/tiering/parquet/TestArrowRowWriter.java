package io.lakestream.tiering.parquet;

import static io.lakestream.tiering.parquet.TieredParquetTesting.assertFooterMetrics;
import static io.lakestream.tiering.parquet.TieredParquetTesting.assertRowsEqual;
import static io.lakestream.tiering.parquet.TieredParquetTesting.assertSameMetrics;
import static io.lakestream.tiering.parquet.TieredParquetTesting.batch;
import static io.lakestream.tiering.parquet.TieredParquetTesting.footer;
import static io.lakestream.tiering.parquet.TieredParquetTesting.positions;
import static io.lakestream.tiering.parquet.TieredParquetTesting.project;
import static io.lakestream.tiering.parquet.TieredParquetTesting.randomRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The columnar tiering writer (Arrow vectors → Iceberg Parquet) against Iceberg's own generic writer:
 * every supported type with nulls, values read back by Iceberg's generic reader, and the same Parquet
 * schema and the same Iceberg metrics as the generic writer produces for the same rows.
 */
@ExtendWith(Seeds.class)
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
        List<Record> rows = randomRows(Seeds.random(7), 3000, SCHEMA);
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
        assertFooterMetrics(table, arrowFile, List.of(4, 5));
    }

    @Test
    void tableCodecAndPropertiesApply() throws IOException {
        table.updateProperties()
                .set("write.parquet.compression-codec", "snappy")
                .commit();
        List<Record> rows = randomRows(Seeds.random(11), 200, SCHEMA);
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
        List<Record> rows = randomRows(Seeds.random(3), 50, logSchema);
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
        List<Record> rows = randomRows(Seeds.random(5), 100, SCHEMA);
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
        List<Record> rows = randomRows(Seeds.random(9), 10, SCHEMA);
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
        return TieredParquetTesting.writeGeneric(table, rows, directory.resolve(name));
    }

    private static MessageType parquetSchema(String location) throws IOException {
        return footer(location).getFileMetaData().getSchema();
    }

    /** Writes the rows through Arrow batches of the log's encoding (several batches, to move between them). */
    private void writeRows(Schema schema, List<Record> rows, int bucket, Consumer<ArrowRow> write) {
        ArrowRow row = new ArrowRow(bucket);
        int batchSize = 701;
        for (int start = 0; start < rows.size(); start += batchSize) {
            List<Record> batch = rows.subList(start, Math.min(rows.size(), start + batchSize));
            try (VectorSchemaRoot root = batch(schema, batch, allocator)) {
                row.setBatch(root);
                for (int i = 0; i < batch.size(); i++) {
                    row.setIndex(i);
                    write.accept(row);
                }
            }
        }
    }

    private EncryptedOutputFile output(Path path) {
        return TieredParquetTesting.output(table, path);
    }

    private List<Record> read(String location, Schema schema) throws IOException {
        return TieredParquetTesting.read(table, location, schema);
    }
}
