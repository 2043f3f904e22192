package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.ChangeType;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog operations of a tiering round: every one holds the SQLite catalog's lock, which the readers' lake
 * refreshes and the writers of the warehouse take too, and the service runs a round every second. A round reads the
 * table from the catalog where it starts; its commit re-reads it (Iceberg's own commit does), and neither the
 * committer nor compaction reads it again after that.
 */
class TestTieringCatalogReads {
    @TempDir
    Path directory;

    @Test
    void aRoundReadsItsTableOnlyWhereItStartsAndWhereItCommits() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("t", 2);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 20, "a"));
            try (TieringService service = new TieringService(warehouse.catalog(), TieringConfig.defaults())) {
                assertThat(service.runOnce())
                        .extracting(TieringResult::outcome)
                        .containsOnly(TieringResult.Outcome.TIERED);

                oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 10, 20, "b"));
                long before = warehouse.catalog().sqliteOperations();
                assertThat(service.runOnce())
                        .extracting(TieringResult::outcome)
                        .containsOnly(TieringResult.Outcome.TIERED);
                long tiering = warehouse.catalog().sqliteOperations() - before;

                before = warehouse.catalog().sqliteOperations();
                assertThat(service.runOnce())
                        .extracting(TieringResult::outcome)
                        .containsOnly(TieringResult.Outcome.UP_TO_DATE);
                long idle = warehouse.catalog().sqliteOperations() - before;

                // listing the tables (Iceberg's JDBC catalog: 2 for the namespaces, 2 for the tables) and one read of
                // the held table (LoadedTables' check, from which the round starts); a round that tiers adds its
                // commit (Iceberg's: 4, with its own re-read of the table it committed), and nothing after it
                assertThat(idle)
                        .as("catalog operations of a round with nothing to tier")
                        .isEqualTo(5);
                assertThat(tiering)
                        .as("catalog operations of a round that tiers")
                        .isEqualTo(idle + 4);
            }
        }
    }
}
