package io.lakestream.tiering.parquet;

import static io.lakestream.tiering.parquet.TieredParquetTesting.batch;
import static io.lakestream.tiering.parquet.TieredParquetTesting.randomRows;
import static io.lakestream.tiering.parquet.TieredParquetTesting.writeGeneric;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopTables;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.BoundaryOrder;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Trino's Parquet reader uses to skip row groups and pages, compared between the columnar writer and
 * Iceberg's Parquet writer (parquet-mr's column writers) on the same rows and table properties, both files
 * read back with parquet-mr's {@link ParquetFileReader}: per row group the row count and each column
 * chunk's statistics (min, max, null count) and dictionary page; per column chunk the column index (null
 * pages, null counts, page minimums and maximums, boundary order) and the offset index's pages (first row
 * of each page). Pages are bounded by the page row limit only (the page size is far above what a page
 * holds), because parquet-mr checks a page's byte size only now and then, at row counts it estimates.
 *
 * <p>The rows hold every type the columnar writer writes, strings sharing their first bytes and longer
 * than the column index's 64-byte truncation, null and all-null pages (runs of nulls longer than a page),
 * an all-null column, a sorted column (an ascending boundary order), few distinct values (dictionary
 * kept), and mid-sized distinct sets that overflow a small dictionary in the middle of a chunk (fallback
 * to plain).
 */
@ExtendWith(Seeds.class)
class TestPageIndexesMatchParquetMr {
    private static final Schema SCHEMA = withColumns(
            TieredParquetTesting.COLUMNAR_TYPES,
            Types.NestedField.optional(101, "gap_s", Types.StringType.get()),
            Types.NestedField.optional(102, "gap_l", Types.LongType.get()),
            Types.NestedField.required(103, "sorted_l", Types.LongType.get()),
            Types.NestedField.optional(104, "mid_s", Types.StringType.get()),
            Types.NestedField.optional(105, "mid_l", Types.LongType.get()),
            Types.NestedField.optional(106, "prefix_s", Types.StringType.get()));

    @TempDir
    Path directory;

    private BufferAllocator allocator;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void statisticsColumnIndexesAndOffsetIndexesEqualParquetMrs() throws IOException {
        Coverage coverage = new Coverage();
        for (int seed = 0; seed < 4; seed++) {
            Random random = Seeds.random(40 + seed);
            Map<String, String> properties = randomProperties(random);
            Table table = new HadoopTables(new Configuration())
                    .create(
                            SCHEMA,
                            PartitionSpec.unpartitioned(),
                            properties,
                            directory.resolve("table_" + seed).toString());
            List<Record> rows = rows(random, 2000 + random.nextInt(4000));
            DataFile columnar = writeColumnar(table, rows, "columnar_" + seed);
            DataFile parquetMr = writeGeneric(table, rows, directory.resolve("parquet_mr_" + seed + ".parquet"));

            assertSameIndexes(
                    columnar.location(),
                    parquetMr.location(),
                    "seed %s, properties %s".formatted(40 + seed, properties),
                    coverage);
        }
        // the cases this test is about occurred in the files compared
        assertThat(coverage.multiPageChunks).isPositive();
        assertThat(coverage.nullPages).isPositive();
        assertThat(coverage.pagesWithNulls).isPositive();
        assertThat(coverage.truncatedBounds).isPositive();
        assertThat(coverage.dictionaryChunks).isPositive();
        assertThat(coverage.fallbackChunks).isPositive();
        assertThat(coverage.ascendingChunks).isPositive();
    }

    /** How often the compared files held what the test is about. */
    private static final class Coverage {
        int multiPageChunks;
        int nullPages;
        int pagesWithNulls;
        int truncatedBounds;
        int dictionaryChunks;
        int fallbackChunks;
        int ascendingChunks;

        void count(ColumnChunkMetaData chunk, OffsetIndex pages, ColumnIndex index) {
            multiPageChunks += pages.getPageCount() > 1 ? 1 : 0;
            if (chunk.hasDictionaryPage()) {
                dictionaryChunks++;
                // dictionary ids and plain values in one chunk: the dictionary overflowed mid-chunk
                fallbackChunks += chunk.getEncodings().contains(Encoding.PLAIN) ? 1 : 0;
            }
            if (index != null) {
                nullPages += (int) index.getNullPages().stream()
                        .filter(Boolean::booleanValue)
                        .count();
                pagesWithNulls += (int) index.getNullCounts().stream()
                        .filter(count -> count > 0)
                        .count();
                // the column index truncates binary bounds to 64 bytes, statistics keep them whole
                truncatedBounds += (int) index.getMinValues().stream()
                        .filter(min -> min.remaining() == 64)
                        .count();
                ascendingChunks += index.getBoundaryOrder() == BoundaryOrder.ASCENDING ? 1 : 0;
            }
        }
    }

    private static Schema withColumns(Schema schema, Types.NestedField... more) {
        List<Types.NestedField> columns = new ArrayList<>(schema.columns());
        columns.addAll(List.of(more));
        return new Schema(columns);
    }

    private static Map<String, String> randomProperties(Random random) {
        Map<String, String> properties = new HashMap<>();
        properties.put("format-version", "2");
        String[] codecs = {"zstd", "snappy", "uncompressed"};
        properties.put(TableProperties.PARQUET_COMPRESSION, codecs[random.nextInt(codecs.length)]);
        int[] pageRows = {100, 250, 1000};
        properties.put(
                TableProperties.PARQUET_PAGE_ROW_LIMIT, Integer.toString(pageRows[random.nextInt(pageRows.length)]));
        properties.put(TableProperties.PARQUET_PAGE_SIZE_BYTES, Integer.toString(64 << 20));
        // a small dictionary overflows in the middle of a chunk: the rest of the chunk falls back to plain
        int[] dictionarySizes = {1024, 8192, TableProperties.PARQUET_DICT_SIZE_BYTES_DEFAULT};
        properties.put(
                TableProperties.PARQUET_DICT_SIZE_BYTES,
                Integer.toString(dictionarySizes[random.nextInt(dictionarySizes.length)]));
        return properties;
    }

    /** Random rows with the columns this test adds filled in (the shared generator fills the others). */
    private static List<Record> rows(Random random, int count) {
        List<Record> rows = randomRows(random, count, SCHEMA);
        int gapStart = random.nextInt(count / 2);
        int gapLength = 300 + random.nextInt(1500); // longer than some pages: all-null pages
        for (int i = 0; i < count; i++) {
            Record row = rows.get(i);
            boolean inGap = i >= gapStart && i < gapStart + gapLength;
            if (inGap) {
                row.setField("gap_s", null);
                row.setField("gap_l", null);
            }
            row.setField("sorted_l", (long) i * 3 - 5000);
            row.setField("mid_s", random.nextInt(9) == 0 ? null : "value-%05d".formatted(random.nextInt(600)));
            row.setField("mid_l", random.nextInt(9) == 0 ? null : (long) random.nextInt(2000) * 1_000_003L);
            // a long shared prefix, past the column index's 64-byte truncation, then a short random tail
            row.setField(
                    "prefix_s",
                    random.nextInt(5) == 0
                            ? null
                            : "shared-prefix-".repeat(6) + (char) ('a' + random.nextInt(26)) + random.nextInt(100));
        }
        return rows;
    }

    private DataFile writeColumnar(Table table, List<Record> rows, String operation) {
        ColumnarFileWriter<DataFile> writer = ColumnarFileWriter.data(
                TieredParquetTesting.columnarTarget(table, SCHEMA, new ReusePool<>(), Long.MAX_VALUE, operation),
                ColumnarFileLayout.of(SCHEMA),
                OptionalInt.empty());
        try {
            for (int start = 0; start < rows.size(); start += 1000) {
                List<Record> batchRows = rows.subList(start, Math.min(rows.size(), start + 1000));
                try (VectorSchemaRoot root = batch(SCHEMA, batchRows, allocator)) {
                    writer.write(root, null, 0, batchRows.size());
                }
            }
            List<DataFile> files = writer.finish();
            assertThat(files).hasSize(1);
            return files.getFirst();
        } catch (RuntimeException e) {
            writer.abort();
            throw e;
        }
    }

    private static void assertSameIndexes(
            String actualLocation, String expectedLocation, String context, Coverage coverage) throws IOException {
        try (ParquetFileReader actual = open(actualLocation);
                ParquetFileReader expected = open(expectedLocation)) {
            List<BlockMetaData> actualGroups = actual.getFooter().getBlocks();
            List<BlockMetaData> expectedGroups = expected.getFooter().getBlocks();
            assertThat(actualGroups).as(context).hasSameSizeAs(expectedGroups);
            for (int group = 0; group < expectedGroups.size(); group++) {
                BlockMetaData actualGroup = actualGroups.get(group);
                BlockMetaData expectedGroup = expectedGroups.get(group);
                assertThat(actualGroup.getRowCount()).as(context).isEqualTo(expectedGroup.getRowCount());
                for (int column = 0; column < expectedGroup.getColumns().size(); column++) {
                    ColumnChunkMetaData actualChunk = actualGroup.getColumns().get(column);
                    ColumnChunkMetaData expectedChunk =
                            expectedGroup.getColumns().get(column);
                    String where = "%s, row group %s, column %s"
                            .formatted(context, group, expectedChunk.getPath().toDotString());
                    assertSameStatistics(actualChunk.getStatistics(), expectedChunk.getStatistics(), where);
                    assertThat(actualChunk.hasDictionaryPage())
                            .as("dictionary page, " + where)
                            .isEqualTo(expectedChunk.hasDictionaryPage());
                    // Trino prunes a row group by its dictionary only if every data page is dictionary-encoded
                    assertThat(actualChunk.getEncodings())
                            .as("encodings, " + where)
                            .isEqualTo(expectedChunk.getEncodings());
                    assertThat(actualChunk.getEncodingStats() == null)
                            .as("encoding stats missing, " + where)
                            .isEqualTo(expectedChunk.getEncodingStats() == null);
                    if (expectedChunk.getEncodingStats() != null) {
                        assertThat(actualChunk.getEncodingStats().hasNonDictionaryEncodedPages())
                                .as("plain pages, " + where)
                                .isEqualTo(expectedChunk.getEncodingStats().hasNonDictionaryEncodedPages());
                        assertThat(actualChunk.getEncodingStats().hasDictionaryEncodedPages())
                                .as("dictionary pages, " + where)
                                .isEqualTo(expectedChunk.getEncodingStats().hasDictionaryEncodedPages());
                    }
                    assertSameOffsetIndex(
                            actual.readOffsetIndex(actualChunk), expected.readOffsetIndex(expectedChunk), where);
                    assertSameColumnIndex(
                            actual.readColumnIndex(actualChunk), expected.readColumnIndex(expectedChunk), where);
                    coverage.count(
                            expectedChunk,
                            expected.readOffsetIndex(expectedChunk),
                            expected.readColumnIndex(expectedChunk));
                }
            }
        }
    }

    private static void assertSameStatistics(Statistics<?> actual, Statistics<?> expected, String where) {
        assertThat(actual.getNumNulls()).as("null count, " + where).isEqualTo(expected.getNumNulls());
        assertThat(actual.hasNonNullValue()).as("has values, " + where).isEqualTo(expected.hasNonNullValue());
        if (expected.hasNonNullValue()) {
            assertThat(actual.getMinBytes()).as("min, " + where).isEqualTo(expected.getMinBytes());
            assertThat(actual.getMaxBytes()).as("max, " + where).isEqualTo(expected.getMaxBytes());
        }
    }

    private static void assertSameOffsetIndex(OffsetIndex actual, OffsetIndex expected, String where) {
        assertThat(actual).as("offset index, " + where).isNotNull();
        assertThat(expected).as("offset index, " + where).isNotNull();
        assertThat(actual.getPageCount()).as("pages, " + where).isEqualTo(expected.getPageCount());
        for (int page = 0; page < expected.getPageCount(); page++) {
            assertThat(actual.getFirstRowIndex(page))
                    .as("first row of page %s, %s", page, where)
                    .isEqualTo(expected.getFirstRowIndex(page));
        }
    }

    private static void assertSameColumnIndex(ColumnIndex actual, ColumnIndex expected, String where) {
        // parquet-mr leaves out the column index of a chunk whose float values include NaN
        assertThat(actual == null).as("column index missing, " + where).isEqualTo(expected == null);
        if (expected == null) {
            return;
        }
        assertThat(actual.getNullPages()).as("null pages, " + where).isEqualTo(expected.getNullPages());
        assertThat(actual.getNullCounts()).as("null counts, " + where).isEqualTo(expected.getNullCounts());
        assertThat(actual.getMinValues()).as("page minimums, " + where).isEqualTo(expected.getMinValues());
        assertThat(actual.getMaxValues()).as("page maximums, " + where).isEqualTo(expected.getMaxValues());
        assertThat(actual.getBoundaryOrder()).as("boundary order, " + where).isEqualTo(expected.getBoundaryOrder());
    }

    private static ParquetFileReader open(String location) throws IOException {
        return ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), new Configuration()));
    }
}
