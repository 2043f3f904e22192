package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiering writes its files at compression level 1 unless the table sets a level, observed through file sizes:
 * the same rows written with the same settings take the same bytes, and other bytes at another level.
 */
@ExtendWith(Seeds.class)
class TestTieredFileCompression {
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
    void tieringWritesAtLevelOneUnlessTheTableSetsALevel() {
        long unset = tieredDataBytes("unset", Map.of());
        long levelOne = tieredDataBytes("level_one", Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "1"));
        long levelThree = tieredDataBytes("level_three", Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "3"));
        // the same rows and settings give the same bytes: without a table level, tiering used level 1
        assertThat(unset).isEqualTo(levelOne);
        // and the table's own level wins: another level, other bytes
        assertThat(levelThree).isNotEqualTo(levelOne);
    }

    @Test
    void tablesOfOtherCodecsTierWithTheirOwnLevels() {
        // gzip takes Hadoop's level names: tiering's default level "1" is for zstd only
        assertThat(tieredDataBytes("gzip", Map.of(TableProperties.PARQUET_COMPRESSION, "gzip")))
                .isPositive();
        assertThat(tieredDataBytes("snappy", Map.of(TableProperties.PARQUET_COMPRESSION, "snappy")))
                .isPositive();
    }

    private long tieredDataBytes(String name, Map<String, String> properties) {
        LakestreamTable table = create(name, properties);
        write(table);
        new TableTiering(TieringConfig.defaults(), warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC())
                .tier(table);
        return dataBytes(table.lake());
    }

    private LakestreamTable create(String name, Map<String, String> properties) {
        return warehouse.create(
                name,
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(1)
                        .properties(properties)
                        .build());
    }

    /** The same 20,000 rows of repetitive text for every table. */
    private void write(LakestreamTable table) {
        Random random = Seeds.random(3);
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = 0; id < 20_000; id++) {
                writer.upsert(Map.of(
                        "id",
                        id,
                        "name",
                        "customer " + random.nextInt(5000) + " of region " + random.nextInt(40),
                        "score",
                        random.nextInt(100)));
            }
            writer.commit();
        }
    }

    private static long dataBytes(Table lake) {
        lake.refresh();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            return StreamSupport.stream(tasks.spliterator(), false)
                    .map(FileScanTask::file)
                    .mapToLong(DataFile::fileSizeInBytes)
                    .sum();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
