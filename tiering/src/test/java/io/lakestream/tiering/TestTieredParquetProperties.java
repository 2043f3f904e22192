package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.parquet.ColumnarParquetSettings;
import io.lakestream.tiering.parquet.TieredFileProperties;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.StreamSupport;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table's {@code write.parquet.*} and {@code parquet.*} properties hold for the files tiering writes: a
 * property the columnar writer implements keeps it, any other sends the table to Iceberg's Parquet writer,
 * which implements them all. Either way the lake files are read by stock Iceberg with exactly the rows
 * written.
 */
@ExtendWith(Seeds.class)
class TestTieredParquetProperties {
    private static final int ROWS = 20_000;

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        threads = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        warehouse.close();
    }

    @Test
    void aPageRowLimitKeepsTheColumnarWriterAndHolds() throws IOException {
        Map<String, String> properties = Map.of(TableProperties.PARQUET_PAGE_ROW_LIMIT, "500");
        assertThat(columnarSettings(properties))
                .as("the columnar writer implements the page row limit")
                .isPresent();

        LakestreamTable table = create("page_rows", properties);
        Map<Long, String> written = write(table);
        tier(table);

        for (String location : dataFileLocations(table.lake())) {
            try (ParquetFileReader reader = open(location)) {
                for (BlockMetaData group : reader.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData chunk : group.getColumns()) {
                        OffsetIndex pages = reader.readOffsetIndex(chunk);
                        for (int page = 0; page < pages.getPageCount(); page++) {
                            assertThat(pages.getLastRowIndex(page, group.getRowCount())
                                            - pages.getFirstRowIndex(page)
                                            + 1)
                                    .as("rows of page %s of %s in %s", page, chunk.getPath(), location)
                                    .isLessThanOrEqualTo(500);
                        }
                    }
                }
            }
        }
        assertThat(stockIcebergRows(table.lake())).isEqualTo(written);
    }

    @Test
    void aColumnIndexTruncationSwitchesToIcebergsWriterAndHolds() throws IOException {
        // parquet-mr's own property, which Iceberg's writer passes to parquet-mr's file writer
        Map<String, String> properties = Map.of("parquet.columnindex.truncate.length", "8");

        LakestreamTable table = create("column_index_truncation", properties);
        Map<Long, String> written = write(table);
        tier(table);

        int namePages = 0;
        for (String location : dataFileLocations(table.lake())) {
            try (ParquetFileReader reader = open(location)) {
                for (BlockMetaData group : reader.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData chunk : group.getColumns()) {
                        if (!chunk.getPath().toDotString().equals("name")) {
                            continue;
                        }
                        ColumnIndex index = reader.readColumnIndex(chunk);
                        assertThat(index)
                                .as("column index of name in %s", location)
                                .isNotNull();
                        // every name is longer than 8 bytes ("customer ..."): truncated bounds
                        index.getMinValues()
                                .forEach(min -> assertThat(min.remaining()).isLessThanOrEqualTo(8));
                        index.getMaxValues()
                                .forEach(max -> assertThat(max.remaining()).isLessThanOrEqualTo(8));
                        namePages += index.getMinValues().size();
                    }
                }
            }
        }
        assertThat(namePages).isPositive();
        assertThat(stockIcebergRows(table.lake())).isEqualTo(written);
        assertThat(columnarSettings(properties))
                .as("the columnar writer truncates column indexes at parquet-mr's default length only")
                .isEmpty();
    }

    @Test
    void aBloomFilterSwitchesToIcebergsWriterAndHolds() throws IOException {
        Map<String, String> properties =
                Map.of(TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX + "name", "true");
        assertThat(columnarSettings(properties))
                .as("the columnar writer writes no bloom filters")
                .isEmpty();

        LakestreamTable table = create("bloom_filter", properties);
        Map<Long, String> written = write(table);
        tier(table);

        for (String location : dataFileLocations(table.lake())) {
            try (ParquetFileReader reader = open(location)) {
                for (BlockMetaData group : reader.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData chunk : group.getColumns()) {
                        boolean name = chunk.getPath().toDotString().equals("name");
                        assertThat(reader.readBloomFilter(chunk) != null)
                                .as("bloom filter of %s in %s", chunk.getPath(), location)
                                .isEqualTo(name);
                    }
                }
            }
        }
        assertThat(stockIcebergRows(table.lake())).isEqualTo(written);
    }

    /** The columnar writer's settings for a primary-key table with these properties, as a round makes them. */
    private java.util.Optional<ColumnarParquetSettings> columnarSettings(Map<String, String> properties) {
        LakestreamTable table = create("settings_" + Math.abs(properties.hashCode()), properties);
        Map<String, String> tableProperties = table.lake().properties();
        return ColumnarParquetSettings.of(
                tableProperties, TieredFileProperties.defaults(table.definition(), tableProperties));
    }

    private void tier(LakestreamTable table) {
        new TableTiering(TieringConfig.defaults(), warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC())
                .tier(table);
    }

    private LakestreamTable create(String name, Map<String, String> properties) {
        return warehouse.create(
                name,
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(2)
                        .properties(properties)
                        .build());
    }

    /** Upserts rows with names longer than 8 bytes; returns id → name as written (the oracle). */
    private Map<Long, String> write(LakestreamTable table) {
        Random random = Seeds.random(11);
        Map<Long, String> written = new HashMap<>();
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = 0; id < ROWS; id++) {
                String name = "customer " + random.nextInt(5000) + " of region " + random.nextInt(40);
                writer.upsert(Map.of("id", id, "name", name, "score", random.nextInt(100)));
                written.put(id, name);
            }
            writer.commit();
        }
        return written;
    }

    private static Map<Long, String> stockIcebergRows(Table lake) throws IOException {
        lake.refresh();
        Map<Long, String> rows = new HashMap<>();
        try (CloseableIterable<Record> scan = IcebergGenerics.read(lake).build()) {
            for (Record row : scan) {
                assertThat(rows.put((Long) row.getField("id"), (String) row.getField("name")))
                        .as("id %s read once", row.getField("id"))
                        .isNull();
            }
        }
        return rows;
    }

    private static List<String> dataFileLocations(Table lake) {
        lake.refresh();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            List<String> locations = new ArrayList<>();
            StreamSupport.stream(tasks.spliterator(), false)
                    .map(FileScanTask::file)
                    .map(DataFile::location)
                    .forEach(locations::add);
            assertThat(locations).isNotEmpty();
            return locations;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ParquetFileReader open(String location) throws IOException {
        return ParquetFileReader.open(
                HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(location), new Configuration()));
    }
}
