package io.lakestream.tiering.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.LakeOracle;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.tiering.TieringTests;
import io.lakestream.tiering.compaction.TableCompaction;
import java.nio.file.Path;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction on a local warehouse reads its Parquet files as Hadoop files on one small configuration
 * ({@link LocalParquetFileIO}), not through a Hadoop configuration built and parsed per file, and the lake it
 * leaves reads back as the oracle says.
 */
class TestCompactionParquetFiles {
    @TempDir
    Path directory;

    @Test
    void compactionOpensItsParquetFilesOnOneSmallConfiguration() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("compacted", 2);
            LakeOracle oracle = new LakeOracle(table);
            TieringConfig config = TieringConfig.builder().writerThreads(2).build();
            try (TieringService service = new TieringService(warehouse.catalog(), config)) {
                for (int round = 0; round < 4; round++) {
                    oracle.commit(
                            warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, round * 3L, 10, "r" + round));
                    TieringResult result = service.tierTable(table.identifier());
                    assertThat(result.error()).isEmpty();
                }
            }

            LakestreamTable loaded = warehouse.load("compacted");
            long before = LocalParquetFileIO.parquetFilesOpened();
            TableCompaction.Result result = new TableCompaction(config, TieringHooks.NONE)
                    .compact(loaded, Expressions.alwaysTrue(), config.targetFileSizeBytes());
            long opened = LocalParquetFileIO.parquetFilesOpened() - before;

            assertThat(result.dataFilesRemoved()).isGreaterThan(2);
            assertThat(result.deleteFilesRemoved()).isPositive();
            // every file read (a delete file once per data file it applies to)
            assertThat(opened).isGreaterThanOrEqualTo(result.dataFilesRemoved() + result.deleteFilesRemoved());
            Table lake = warehouse.load("compacted").lake();
            assertThat(LakeOracle.readLake(lake, table.definition().schema()))
                    .isEqualTo(oracle.stateAt(LakePosition.current(lake).offsets()));
        }
    }
}
