package io.lakestream.tiering.parquet;

import static io.lakestream.tiering.parquet.TieredParquetTesting.assertFooterMetrics;
import static io.lakestream.tiering.parquet.TieredParquetTesting.assertRowsEqual;
import static io.lakestream.tiering.parquet.TieredParquetTesting.assertSameMetrics;
import static io.lakestream.tiering.parquet.TieredParquetTesting.batch;
import static io.lakestream.tiering.parquet.TieredParquetTesting.footer;
import static io.lakestream.tiering.parquet.TieredParquetTesting.positions;
import static io.lakestream.tiering.parquet.TieredParquetTesting.project;
import static io.lakestream.tiering.parquet.TieredParquetTesting.randomRows;
import static io.lakestream.tiering.parquet.TieredParquetTesting.read;
import static io.lakestream.tiering.parquet.TieredParquetTesting.writeGeneric;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.stream.IntStream;
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
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The column-at-a-time Parquet writer ({@link ColumnarFileWriter}) on random Arrow batches of every type it
 * supports, under random writer settings: Iceberg's generic reader reads back exactly the rows, the files'
 * Iceberg metrics equal those of Iceberg's own writer for the same rows and table, and the table's codec,
 * row group size, page size and row limit, and dictionary settings show in the files.
 */
@ExtendWith(Seeds.class)
class TestColumnarParquetFile {
    private static final Schema SCHEMA = TieredParquetTesting.COLUMNAR_TYPES;

    @TempDir
    Path directory;

    private BufferAllocator allocator;
    /** Shared by the files of a test, as by the files of a round: later files reuse earlier files' page buffers. */
    private ReusePool<GrowableBytes> scratch = new ReusePool<>();

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void randomBatchesUnderRandomSettingsReadBackWithIcebergsMetrics() throws IOException {
        for (int seed = 0; seed < 8; seed++) {
            Random random = Seeds.random(seed);
            Map<String, String> properties = randomProperties(random);
            Table table = table("random_" + seed, properties);
            List<Record> rows = randomRows(random, 1 + random.nextInt(4000), SCHEMA);
            // A primary-key round writes a selection of each batch's rows; an append-only round all of them.
            boolean selection = random.nextBoolean();
            List<Record> written = new ArrayList<>();
            DataFile file = single(writeColumnar(table, SCHEMA, rows, selection ? random : null, written));
            String context = "seed %s, properties %s, selection %s".formatted(seed, properties, selection);

            assertRowsEqual(read(table, file.location(), SCHEMA), written, SCHEMA);
            DataFile generic = writeGeneric(table, written, directory.resolve("generic_" + seed + ".parquet"));
            assertSameMetrics(file, generic);
            assertThat(footer(file.location()).getFileMetaData().getSchema())
                    .as(context)
                    .isEqualTo(footer(generic.location()).getFileMetaData().getSchema());
            assertFooterMetrics(table, file, List.of(4, 5, 19));
            assertSettingsHonoured(table, file, properties, written.size(), context);

            // A stock reader of the table: the file as a committed data file
            table.newAppend().appendFile(file).commit();
            List<Record> scanned = new ArrayList<>();
            try (CloseableIterable<Record> scan = IcebergGenerics.read(table).build()) {
                scan.forEach(record -> scanned.add(record.copy()));
            }
            assertRowsEqual(scanned, written, SCHEMA);
        }
    }

    @Test
    void equalityDeletesAreIcebergsEqualityDeleteFiles() throws IOException {
        Table table = table("deletes", Map.of(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "4096"));
        Schema keySchema = SCHEMA.select("id", "s", "dec_18");
        List<Record> rows = randomRows(Seeds.random(5), 3000, SCHEMA);
        ColumnarFileWriter<DeleteFile> writer = ColumnarFileWriter.equalityDeletes(
                target(table, SCHEMA, Long.MAX_VALUE, "deletes"), ColumnarFileLayout.of(keySchema));
        writeBatches(writer, rows, null, new ArrayList<>());
        DeleteFile file = single(writer.finish());

        EqualityDeleteWriter<Record> icebergWriter = Parquet.writeDeletes(
                        TieredParquetTesting.output(table, directory.resolve("iceberg-deletes.parquet")))
                .forTable(table)
                .rowSchema(keySchema)
                .equalityFieldIds(keySchema.columns().stream()
                        .mapToInt(Types.NestedField::fieldId)
                        .toArray())
                .withSpec(PartitionSpec.unpartitioned())
                .createWriterFunc(GenericParquetWriter::create)
                .overwrite()
                .buildEqualityWriter();
        rows.forEach(row -> icebergWriter.write(project(row, keySchema)));
        icebergWriter.close();
        DeleteFile expected = icebergWriter.toDeleteFile();

        assertThat(file.content()).isEqualTo(FileContent.EQUALITY_DELETES);
        assertThat(file.equalityFieldIds()).containsExactlyInAnyOrderElementsOf(expected.equalityFieldIds());
        assertSameMetrics(file, expected);
        assertThat(footer(file.location()).getFileMetaData().getKeyValueMetaData())
                .containsAllEntriesOf(
                        footer(expected.location()).getFileMetaData().getKeyValueMetaData());
        assertRowsEqual(
                read(table, file.location(), keySchema),
                rows.stream().map(row -> project(row, keySchema)).toList(),
                keySchema);
    }

    @Test
    void filesRollOverAtTheTargetSizeWithTheHiddenBucketColumn() throws IOException {
        Schema lakeSchema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(12, "s", Types.StringType.get()),
                Types.NestedField.required(100, "__bucket", Types.IntegerType.get()));
        Schema logSchema = new Schema(lakeSchema.columns().subList(0, 2));
        Table table = table("rolling", Map.of(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "2048"));
        List<Record> rows = randomRows(Seeds.random(3), 5000, logSchema);
        ColumnarFileWriter<DataFile> writer = ColumnarFileWriter.data(
                target(table, logSchema, 8192, "rolling"), ColumnarFileLayout.of(lakeSchema), OptionalInt.of(100));
        writeBatches(writer, logSchema, rows, null, new ArrayList<>());
        List<DataFile> files = writer.finish();

        assertThat(files).hasSizeGreaterThan(1);
        assertThat(writer.locations())
                .containsExactlyElementsOf(
                        files.stream().map(DataFile::location).toList());
        List<Record> read = new ArrayList<>();
        for (DataFile file : files) {
            read.addAll(read(table, file.location(), lakeSchema));
        }
        assertThat(read).hasSize(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertThat(read.get(i).getField("id")).isEqualTo(rows.get(i).getField("id"));
            assertThat(read.get(i).getField("s")).isEqualTo(rows.get(i).getField("s"));
            assertThat(read.get(i).getField("__bucket")).isEqualTo(7);
        }
        assertThat(files.stream().mapToLong(DataFile::recordCount).sum()).isEqualTo(rows.size());
    }

    @Test
    void reusedPageBuffersWriteTheSameBytesAsNewOnes() throws IOException {
        for (int seed = 20; seed < 26; seed++) {
            Random random = Seeds.random(seed);
            // Dirty the shared buffers with another table's pages (other sizes, other values) first.
            Table other = table("dirty_" + seed, randomProperties(random));
            writeColumnar(other, SCHEMA, randomRows(random, 1 + random.nextInt(4000), SCHEMA), null, new ArrayList<>());
            Map<String, String> properties = randomProperties(random);
            List<Record> rows = randomRows(random, 1 + random.nextInt(4000), SCHEMA);
            DataFile reused =
                    single(writeColumnar(table("reused_" + seed, properties), SCHEMA, rows, null, new ArrayList<>()));
            scratch = new ReusePool<>();
            DataFile fresh =
                    single(writeColumnar(table("fresh_" + seed, properties), SCHEMA, rows, null, new ArrayList<>()));

            assertThat(bytes(reused.location()))
                    .as("seed %s, properties %s", seed, properties)
                    .isEqualTo(bytes(fresh.location()));
        }
    }

    private static byte[] bytes(String location) throws IOException {
        return Files.readAllBytes(
                Path.of(new org.apache.hadoop.fs.Path(location).toUri().getPath()));
    }

    @Test
    void nullInRequiredColumnIsCorruptLog() {
        Table table = table("corrupt", Map.of());
        List<Record> rows = randomRows(Seeds.random(9), 10, SCHEMA);
        rows.get(4).setField("req_s", null);
        assertThatThrownBy(() -> writeColumnar(table, SCHEMA, rows, null, new ArrayList<>()))
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining("req_s")
                .satisfies(e -> assertThat(((LakestreamException) e).error()).isEqualTo(LakestreamError.LOG_CORRUPT));
    }

    @Test
    void sparseAndDenseSelectionsOfLongStringsReadBackWithIcebergsMetrics() throws IOException {
        // Strings are copied out of the part of the data buffer a run of selected rows spans, or value by value
        // when that span is mostly rows not selected: both must write what Iceberg's writer writes.
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "s", Types.StringType.get()));
        Random random = Seeds.random(31);
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 6000; i++) {
            Record row = GenericRecord.create(schema);
            row.set(0, (long) i);
            row.set(1, random.nextInt(10) == 0 ? null : "v%s-".formatted(i).repeat(1 + random.nextInt(80)));
            rows.add(row);
        }
        for (int every : new int[] {1, 2, 97}) {
            Table table = table("strings_" + every, schema, Map.of());
            ColumnarFileWriter<DataFile> writer = ColumnarFileWriter.data(
                    target(table, schema, Long.MAX_VALUE, "strings"),
                    ColumnarFileLayout.of(schema),
                    OptionalInt.empty());
            List<Record> written = new ArrayList<>();
            try (VectorSchemaRoot root = batch(schema, rows, allocator)) {
                int[] positions = IntStream.range(0, rows.size())
                        .filter(i -> i % every == 0)
                        .toArray();
                writer.write(root, positions, 0, positions.length);
                for (int position : positions) {
                    written.add(rows.get(position));
                }
            }
            DataFile file = single(writer.finish());

            assertRowsEqual(read(table, file.location(), schema), written, schema);
            assertSameMetrics(
                    file, writeGeneric(table, written, directory.resolve("generic_strings_" + every + ".parquet")));
        }
    }

    @Test
    void stringOffsetsBeyondTheDataBufferAreCorruptLog() {
        Schema schema = new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()));
        Table table = table("bad_offsets", schema, Map.of());
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Record row = GenericRecord.create(schema);
            row.set(0, "value-" + i);
            rows.add(row);
        }
        ColumnarFileWriter<DataFile> writer = ColumnarFileWriter.data(
                target(table, schema, Long.MAX_VALUE, "bad"), ColumnarFileLayout.of(schema), OptionalInt.empty());
        try (VectorSchemaRoot root = batch(schema, rows, allocator)) {
            org.apache.arrow.vector.BaseVariableWidthVector strings =
                    (org.apache.arrow.vector.BaseVariableWidthVector) root.getVector(2);
            strings.getOffsetBuffer()
                    .setInt(4L * 10, (int) strings.getDataBuffer().capacity() + 1);
            assertThatThrownBy(() -> writer.write(root, null, 0, rows.size()))
                    .isInstanceOf(LakestreamException.class)
                    .hasMessageContaining("offsets")
                    .satisfies(
                            e -> assertThat(((LakestreamException) e).error()).isEqualTo(LakestreamError.LOG_CORRUPT));
        } finally {
            writer.abort();
        }
    }

    @Test
    void aSmallerPrefixMeansASmallerValue() {
        // The statistics skip the whole-value comparison when the 8-byte prefixes differ: that is only right
        // if prefix order implies value order, zero bytes and values shorter than 8 bytes included.
        Random random = Seeds.random(17);
        byte[] alphabet = {0x00, 0x01, 0x7F, (byte) 0x80, (byte) 0xFF};
        int decided = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] left = randomBytes(random, alphabet);
            byte[] right = randomBytes(random, alphabet);
            int prefixOrder = Long.compareUnsigned(prefixOf(left), prefixOf(right));
            if (prefixOrder != 0) {
                decided++;
                assertThat(Integer.signum(Arrays.compareUnsigned(left, right)))
                        .as("%s vs %s", Arrays.toString(left), Arrays.toString(right))
                        .isEqualTo(prefixOrder);
            }
        }
        assertThat(decided).isBetween(1_000, 19_999); // both outcomes occur
    }

    @Test
    void pageBoundsAreDecidedBeyondASharedPrefix() throws IOException {
        // minimum and maximum share their first 8 bytes with values seen before them, in every order
        Schema schema = new Schema(
                Types.NestedField.required(1, "s", Types.StringType.get()),
                Types.NestedField.required(2, "b", Types.BinaryType.get()));
        List<String> strings = List.of("mmmmmmmmm", "aaaaaaaab", "zzzzzzzzb", "aaaaaaaaa", "zzzzzzzzc", "zzzzzzzza");
        List<byte[]> binaries = List.of(
                new byte[] {5},
                new byte[] {0, 0},
                new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, 1},
                new byte[0],
                new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, 2},
                new byte[] {0});
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < strings.size(); i++) {
            Record row = GenericRecord.create(schema);
            row.set(0, strings.get(i));
            row.set(1, ByteBuffer.wrap(binaries.get(i)));
            rows.add(row);
        }
        Table table = table("shared_prefixes", Map.of());
        DataFile file = single(writeColumnar(table, schema, rows, null, new ArrayList<>()));
        List<ColumnChunkMetaData> columns =
                footer(file.location()).getBlocks().getFirst().getColumns();
        assertThat(columns.get(0).getStatistics().genericGetMin()).isEqualTo(Binary.fromString("aaaaaaaaa"));
        assertThat(columns.get(0).getStatistics().genericGetMax()).isEqualTo(Binary.fromString("zzzzzzzzc"));
        assertThat(columns.get(1).getStatistics().genericGetMin()).isEqualTo(Binary.fromConstantByteArray(new byte[0]));
        assertThat(columns.get(1).getStatistics().genericGetMax())
                .isEqualTo(Binary.fromConstantByteArray(binaries.get(4)));
    }

    private static byte[] randomBytes(Random random, byte[] alphabet) {
        byte[] bytes = new byte[random.nextInt(11)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return bytes;
    }

    private static long prefixOf(byte[] value) {
        GrowableBytes plain = new GrowableBytes(16);
        plain.writeInt(value.length);
        plain.write(value, 0, value.length);
        return BinaryColumnEncoder.prefix(plain.array(), 0);
    }

    @Test
    void propertiesOnlyIcebergsWriterHonoursSelectIt() {
        assertThat(ColumnarParquetSettings.of(Map.of(TableProperties.PARQUET_COMPRESSION, "snappy"), Map.of()))
                .isPresent();
        assertThat(ColumnarParquetSettings.of(
                        Map.of(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "id", "true"), Map.of()))
                .isEmpty();
        assertThat(ColumnarParquetSettings.of(Map.of(TableProperties.PARQUET_PAGE_VERSION, "v2"), Map.of()))
                .isEmpty();
        // parquet-mr's own properties reach parquet-mr only through Iceberg's writer, but the dictionary switch
        assertThat(ColumnarParquetSettings.of(Map.of("parquet.columnindex.truncate.length", "16"), Map.of()))
                .isEmpty();
        assertThat(ColumnarParquetSettings.of(Map.of("parquet.enable.dictionary#s", "false"), Map.of()))
                .isEmpty();
        assertThat(ColumnarParquetSettings.of(Map.of("parquet.enable.dictionary", "false"), Map.of()))
                .isPresent();
        assertThat(ColumnarParquetSettings.forDeletes(
                        Map.of(TableProperties.DELETE_PARQUET_COMPRESSION, "gzip"), Map.of()))
                .isEmpty();
        assertThat(ColumnarParquetFile.supports(Types.UUIDType.get())).isFalse();
        assertThat(ColumnarParquetFile.supports(Types.DecimalType.of(19, 0))).isFalse();
        assertThatThrownBy(() ->
                        ColumnarParquetSettings.of(Map.of(TableProperties.PARQUET_PAGE_SIZE_BYTES, "0"), Map.of()))
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining(TableProperties.PARQUET_PAGE_SIZE_BYTES)
                .satisfies(e -> assertThat(((LakestreamException) e).error())
                        .isEqualTo(LakestreamError.INVALID_TABLE_DEFINITION));
    }

    private static Map<String, String> randomProperties(Random random) {
        Map<String, String> properties = new HashMap<>();
        properties.put("format-version", "2");
        String[] codecs = {"zstd", "snappy", "gzip", "uncompressed"};
        properties.put(TableProperties.PARQUET_COMPRESSION, codecs[random.nextInt(codecs.length)]);
        if (properties.get(TableProperties.PARQUET_COMPRESSION).equals("zstd") && random.nextBoolean()) {
            properties.put(TableProperties.PARQUET_COMPRESSION_LEVEL, "1"); // a level Iceberg passes to zstd only
        }
        int[] rowGroups = {2048, 65536, 128 << 20};
        properties.put(
                TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                Integer.toString(rowGroups[random.nextInt(rowGroups.length)]));
        int[] pageSizes = {256, 4096, 1 << 20};
        properties.put(
                TableProperties.PARQUET_PAGE_SIZE_BYTES, Integer.toString(pageSizes[random.nextInt(pageSizes.length)]));
        int[] pageRows = {50, 333, 20_000};
        properties.put(
                TableProperties.PARQUET_PAGE_ROW_LIMIT, Integer.toString(pageRows[random.nextInt(pageRows.length)]));
        if (random.nextInt(3) == 0) {
            properties.put(TableProperties.PARQUET_DICT_SIZE_BYTES, "64"); // dictionaries overflow mid-chunk
        }
        if (random.nextInt(4) == 0) {
            properties.put("parquet.enable.dictionary", "false");
        }
        if (random.nextBoolean()) {
            properties.put(TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX + "few_s", "false");
        }
        return properties;
    }

    private Table table(String name, Map<String, String> properties) {
        return table(name, SCHEMA, properties);
    }

    private Table table(String name, Schema schema, Map<String, String> properties) {
        Map<String, String> withVersion = new HashMap<>(properties);
        withVersion.put("format-version", "2");
        return new HadoopTables(new Configuration())
                .create(
                        schema,
                        PartitionSpec.unpartitioned(),
                        withVersion,
                        directory.resolve(name).toString());
    }

    private ColumnarFileWriter.Target target(
            Table table, Schema logSchema, long targetFileSizeBytes, String operation) {
        return TieredParquetTesting.columnarTarget(table, logSchema, scratch, targetFileSizeBytes, operation);
    }

    /** Writes the rows as batches, all or a random selection of each; {@code written} gets the rows written. */
    private List<DataFile> writeColumnar(
            Table table, Schema schema, List<Record> rows, Random selection, List<Record> written) {
        ColumnarFileWriter<DataFile> writer = ColumnarFileWriter.data(
                target(table, schema, Long.MAX_VALUE, "data"), ColumnarFileLayout.of(schema), OptionalInt.empty());
        try {
            writeBatches(writer, schema, rows, selection, written);
            return writer.finish();
        } catch (RuntimeException e) {
            writer.abort();
            throw e;
        }
    }

    private void writeBatches(TieredFileWriter<?> writer, List<Record> rows, Random selection, List<Record> written) {
        writeBatches(writer, SCHEMA, rows, selection, written);
    }

    private void writeBatches(
            TieredFileWriter<?> writer, Schema schema, List<Record> rows, Random selection, List<Record> written) {
        int start = 0;
        Random sizes = new Random(rows.size());
        while (start < rows.size()) {
            int end = Math.min(rows.size(), start + 1 + sizes.nextInt(1500));
            List<Record> batchRows = rows.subList(start, end);
            try (VectorSchemaRoot root = batch(schema, batchRows, allocator)) {
                if (selection == null) {
                    writer.write(root, null, 0, batchRows.size());
                    written.addAll(batchRows);
                } else {
                    int[] positions = IntStream.range(0, batchRows.size())
                            .filter(ignored -> selection.nextInt(3) > 0)
                            .toArray();
                    // positions beyond `to` are ignored: a caller's reused, longer position array
                    int[] padded = java.util.Arrays.copyOf(positions, positions.length + 3);
                    writer.write(root, padded, 0, positions.length);
                    for (int position : positions) {
                        written.add(batchRows.get(position));
                    }
                }
            }
            start = end;
        }
    }

    private static <F> F single(List<F> files) {
        assertThat(files).hasSize(1);
        return files.getFirst();
    }

    private static void assertSettingsHonoured(
            Table table, DataFile file, Map<String, String> properties, int rows, String context) throws IOException {
        ParquetMetadata footer = footer(file.location());
        String codec = properties.get(TableProperties.PARQUET_COMPRESSION).toUpperCase(java.util.Locale.ROOT);
        int rowGroupSize = Integer.parseInt(properties.get(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES));
        int pageRowLimit = Integer.parseInt(properties.get(TableProperties.PARQUET_PAGE_ROW_LIMIT));
        int pageSize = Integer.parseInt(properties.get(TableProperties.PARQUET_PAGE_SIZE_BYTES));
        boolean dictionary = !"false".equals(properties.get("parquet.enable.dictionary"));
        boolean fewDictionary = dictionary
                && !"false"
                        .equals(properties.get(TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX + "few_s"));
        if (rowGroupSize == 2048 && rows > 2000) {
            assertThat(footer.getBlocks()).as(context).hasSizeGreaterThan(1);
        }
        for (BlockMetaData block : footer.getBlocks()) {
            for (ColumnChunkMetaData chunk : block.getColumns()) {
                assertThat(chunk.getCodec().name()).as(context).isEqualTo(codec);
                boolean dictionaryPage = chunk.hasDictionaryPage();
                String column = chunk.getPath().toDotString();
                if (!dictionary || (column.equals("few_s") && !fewDictionary)) {
                    assertThat(dictionaryPage).as("%s %s", column, context).isFalse();
                    assertThat(chunk.getEncodings()).doesNotContain(Encoding.PLAIN_DICTIONARY);
                }
                if (column.startsWith("few_")
                        && (column.equals("few_i") ? dictionary : fewDictionary)
                        && properties.get(TableProperties.PARQUET_DICT_SIZE_BYTES) == null
                        && block.getRowCount() > 100) {
                    assertThat(dictionaryPage).as("%s %s", column, context).isTrue();
                }
            }
        }
        try (ParquetFileReader reader = ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.location()), new Configuration()))) {
            for (BlockMetaData block : footer.getBlocks()) {
                for (ColumnChunkMetaData chunk : block.getColumns()) {
                    OffsetIndex pages = reader.readOffsetIndex(chunk);
                    assertThat(pages).as(context).isNotNull();
                    for (int page = 0; page < pages.getPageCount(); page++) {
                        long pageRows =
                                pages.getLastRowIndex(page, block.getRowCount()) - pages.getFirstRowIndex(page) + 1;
                        assertThat(pageRows).as(context).isLessThanOrEqualTo(pageRowLimit);
                        // a page closes once it holds the page size (one value may cross it)
                        if (pageRows > 1
                                && chunk.getCodec().name().equals("UNCOMPRESSED")
                                && !chunk.hasDictionaryPage()) {
                            assertThat(pages.getCompressedPageSize(page))
                                    .as(context)
                                    .isLessThan(pageSize + 2048);
                        }
                    }
                    // parquet-mr leaves out the column index of float columns with NaN and of all-null chunks
                    boolean floating = chunk.getPrimitiveType()
                            .getPrimitiveTypeName()
                            .name()
                            .matches("FLOAT|DOUBLE");
                    if (!floating && chunk.getStatistics().hasNonNullValue()) {
                        assertThat(reader.readColumnIndex(chunk)).as(context).isNotNull();
                    }
                }
            }
        }
    }
}
