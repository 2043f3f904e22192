package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.parquet.TieredParquetTesting;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.StreamSupport;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiering writes its files with the table's codec, read back from the files' Parquet footers (zstd, Iceberg's
 * default, when the table sets none), and with zstd at level 1 unless the table sets a level. A footer does not
 * record the level, so the level is observed through file sizes: the same rows written with the same settings
 * take the same bytes, and other bytes at another level.
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
    void tieringWritesZstdAtLevelOneUnlessTheTableSetsALevel() {
        List<DataFile> unset = tieredDataFiles("unset", Map.of());
        List<DataFile> levelOne = tieredDataFiles("level_one", Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "1"));
        List<DataFile> levelThree =
                tieredDataFiles("level_three", Map.of(TableProperties.PARQUET_COMPRESSION_LEVEL, "3"));
        for (List<DataFile> files : List.of(unset, levelOne, levelThree)) {
            assertThat(codecs(files)).isEqualTo(Set.of(CompressionCodecName.ZSTD));
        }
        // the same rows and settings give the same bytes: without a table level, tiering used level 1
        assertThat(bytes(unset)).isEqualTo(bytes(levelOne));
        // and the table's own level wins: another level, other bytes
        assertThat(bytes(levelThree)).isNotEqualTo(bytes(levelOne));
    }

    @Test
    void tablesOfOtherCodecsTierWithTheirOwnCodecs() {
        // gzip takes Hadoop's level names: tiering's default level "1" is for zstd only
        assertThat(codecs(tieredDataFiles("gzip", Map.of(TableProperties.PARQUET_COMPRESSION, "gzip"))))
                .isEqualTo(Set.of(CompressionCodecName.GZIP));
        assertThat(codecs(tieredDataFiles("snappy", Map.of(TableProperties.PARQUET_COMPRESSION, "snappy"))))
                .isEqualTo(Set.of(CompressionCodecName.SNAPPY));
        assertThat(codecs(tieredDataFiles("uncompressed", Map.of(TableProperties.PARQUET_COMPRESSION, "uncompressed"))))
                .isEqualTo(Set.of(CompressionCodecName.UNCOMPRESSED));
    }

    private List<DataFile> tieredDataFiles(String name, Map<String, String> properties) {
        LakestreamTable table = create(name, properties);
        write(table);
        new TableTiering(TieringConfig.defaults(), warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC())
                .tier(table);
        List<DataFile> files = dataFiles(table.lake());
        assertThat(files).as("data files of %s", name).isNotEmpty();
        return files;
    }

    /** The codecs of every column chunk of every row group, from the files' footers. */
    private static Set<CompressionCodecName> codecs(List<DataFile> files) {
        Set<CompressionCodecName> codecs = EnumSet.noneOf(CompressionCodecName.class);
        for (DataFile file : files) {
            ParquetMetadata footer;
            try {
                footer = TieredParquetTesting.footer(file.location());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(footer.getBlocks())
                    .as("row groups of %s", file.location())
                    .isNotEmpty();
            for (BlockMetaData block : footer.getBlocks()) {
                for (ColumnChunkMetaData column : block.getColumns()) {
                    codecs.add(column.getCodec());
                }
            }
        }
        return codecs;
    }

    private static long bytes(List<DataFile> files) {
        return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
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

    private static List<DataFile> dataFiles(Table lake) {
        lake.refresh();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            return StreamSupport.stream(tasks.spliterator(), false)
                    .map(FileScanTask::file)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
