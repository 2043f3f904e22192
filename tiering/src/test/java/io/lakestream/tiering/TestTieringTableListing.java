package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.common.LakestreamError;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a tiering round reads to find its tables: a table it tiered before is not loaded again to be told apart from
 * a plain Iceberg table (that load read and parsed the whole metadata file every round, on every table), so a round
 * with nothing to tier reads no metadata file at all. Plain Iceberg tables are still left out, also one that
 * replaced a Lakestream table the service held.
 */
class TestTieringTableListing {
    @TempDir
    Path directory;

    @Test
    void roundsWithNothingToTierReadNoMetadataFile() throws Exception {
        AtomicInteger metadataReads = new AtomicInteger();
        LocalFileIO local = new LocalFileIO();
        FileIO counting = new FileIO() {
            @Override
            public InputFile newInputFile(String path) {
                if (path.endsWith(".metadata.json")) {
                    metadataReads.incrementAndGet();
                }
                return local.newInputFile(path);
            }

            @Override
            public OutputFile newOutputFile(String path) {
                return local.newOutputFile(path);
            }

            @Override
            public void deleteFile(String path) {
                local.deleteFile(path);
            }
        };
        try (LakestreamCatalog catalog = LakestreamCatalog.open(
                        CatalogConfig.embedded(directory),
                        properties -> counting,
                        location -> new LocalLogFileSystem());
                TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("t", 2);
            new LakeOracle(table).commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 20, "a"));
            try (TieringService service = new TieringService(catalog, TieringConfig.defaults())) {
                assertThat(service.runOnce())
                        .extracting(TieringResult::outcome)
                        .containsOnly(TieringResult.Outcome.TIERED);
                for (int round = 0; round < 3; round++) {
                    int before = metadataReads.get();
                    assertThat(service.runOnce())
                            .extracting(TieringResult::outcome)
                            .containsOnly(TieringResult.Outcome.UP_TO_DATE);
                    assertThat(metadataReads.get() - before)
                            .as("metadata files read by round %s with nothing to tier", round)
                            .isZero();
                }
            }
        }
    }

    @Test
    void plainIcebergTablesAreLeftOutAlsoWhenOneReplacesAHeldTable() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("t", 2);
            TableIdentifier plain = TableIdentifier.of(TestingWarehouse.NAMESPACE, "plain");
            warehouse.catalog().icebergCatalog().createTable(plain, TestingWarehouse.SIMPLE_SCHEMA);
            new LakeOracle(table).commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 20, "a"));
            try (TieringService service = new TieringService(warehouse.catalog(), TieringConfig.defaults())) {
                assertThat(service.runOnce())
                        .extracting(TieringResult::table, TieringResult::outcome)
                        .containsExactly(tuple(table.identifier(), TieringResult.Outcome.TIERED));

                // replaced by a plain Iceberg table between two rounds: the next round finds out when it loads
                // it, keeps nothing of it (no back-off, no stop), and the one after leaves it out
                warehouse.catalog().dropTable(table.identifier());
                warehouse.catalog().icebergCatalog().createTable(table.identifier(), TestingWarehouse.SIMPLE_SCHEMA);
                List<TieringResult> replaced = service.runOnce();
                assertThat(replaced).hasSize(1);
                assertThat(replaced.getFirst().outcome()).isEqualTo(TieringResult.Outcome.FAILED);
                assertThat(replaced.getFirst().error())
                        .hasValueSatisfying(
                                error -> assertThat(error).contains(LakestreamError.NOT_A_LAKESTREAM_TABLE.name()));
                assertThat(service.status()).doesNotContainKey(table.identifier());
                assertThat(service.runOnce()).isEmpty();
                assertThat(Map.copyOf(service.status())).isEmpty();
            }
        }
    }
}
