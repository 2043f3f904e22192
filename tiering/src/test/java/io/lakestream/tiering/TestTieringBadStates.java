package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad states stop tiering of the broken table with an error that says what happened and what to do,
 * without retrying and without touching the lake; other tables keep tiering; a resumed table
 * continues once fixed.
 */
class TestTieringBadStates {
    @TempDir
    Path directory;

    @Test
    void lakeAheadOfTheLogStopsTheTable() {
        assertStops(
                table -> {
                    // A lake snapshot claiming offsets the log never had (e.g. the log was replaced).
                    Table lake = table.lake();
                    var append = lake.newAppend().appendFile(foreignFile(lake));
                    LakePosition.summary(new OffsetMap(Map.of(0, 1_000L)), 99).forEach(append::set);
                    append.commit();
                },
                "LAKE_AHEAD_OF_LOG",
                "ends at");
    }

    /** A stock engine's append after the last tiering commit (its rows would be shadowed or duplicated). */
    @Test
    void foreignSnapshotStopsTheTable() {
        assertStops(
                table -> {
                    Table lake = table.lake();
                    lake.newAppend().appendFile(foreignFile(lake)).commit();
                },
                "LAKE_LAYOUT_MISMATCH",
                "was not written by Lakestream");
    }

    @Test
    void untieredLogRemovedByRetentionStopsTheTable() {
        assertStops(
                table -> table.log().removeSegments(new OffsetMap(Map.of(0, 1_000L, 1, 1_000L)), Long.MAX_VALUE),
                "LOG_RANGE_REMOVED",
                "restore the removed log segments");
    }

    @Test
    void partitionSpecChangedOutsideLakestreamStopsTheTable() {
        assertStops(
                table -> table.lake().updateSpec().addField("name").commit(), "LAKE_LAYOUT_MISMATCH", "partition spec");
    }

    @Test
    void droppedColumnStopsTheTable() {
        assertStops(
                table -> table.lake().updateSchema().deleteColumn("score").commit(), "LAKE_LAYOUT_MISMATCH", "'score'");
    }

    @Test
    void retypedColumnStopsTheTable() {
        assertStops(
                table -> table.lake()
                        .updateSchema()
                        .updateColumn("score", Types.LongType.get())
                        .commit(),
                "LAKE_LAYOUT_MISMATCH",
                "changed type");
    }

    /** A data file another engine could add to bucket 0 (it is never read: tiering stops first). */
    private static DataFile foreignFile(Table lake) {
        return DataFiles.builder(lake.spec())
                .withPath(lake.location() + "/data/id_bucket=0/foreign.parquet")
                .withFileSizeInBytes(10)
                .withRecordCount(1)
                .withPartitionPath("id_bucket=0")
                .build();
    }

    private void assertStops(Consumer<LakestreamTable> breakTable, String errorCode, String hint) {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable broken = warehouse.createPrimaryKeyTable("broken", 2);
            LakestreamTable healthy = warehouse.createPrimaryKeyTable("healthy", 2);
            LakeOracle brokenOracle = new LakeOracle(broken);
            LakeOracle healthyOracle = new LakeOracle(healthy);
            brokenOracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 20, "a"));
            healthyOracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 20, "a"));
            try (TieringService service = new TieringService(warehouse.catalog(), TieringConfig.defaults())) {
                assertThat(service.runOnce())
                        .extracting(TieringResult::outcome)
                        .containsOnly(TieringResult.Outcome.TIERED);

                brokenOracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 10, 20, "b"));
                healthyOracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 10, 20, "b"));
                breakTable.accept(warehouse.load("broken"));
                Table lake = warehouse.load("broken").lake();
                long snapshotBefore = lake.currentSnapshot().snapshotId();

                List<TieringResult> results = service.runOnce();
                TieringResult brokenResult = result(results, "broken");
                assertThat(brokenResult.outcome()).isEqualTo(TieringResult.Outcome.STOPPED);
                assertThat(brokenResult.error())
                        .hasValueSatisfying(
                                error -> assertThat(error).contains(errorCode).contains(hint));
                assertThat(result(results, "healthy").outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                assertThat(service.status().get(broken.identifier()).stopped()).isTrue();

                // Stopped means stopped: no retry loop, the lake is left as it was.
                assertThat(result(service.runOnce(), "broken").outcome()).isEqualTo(TieringResult.Outcome.STOPPED);
                lake.refresh();
                assertThat(lake.currentSnapshot().snapshotId()).isEqualTo(snapshotBefore);
                // The healthy table is complete.
                Table healthyLake = warehouse.load("healthy").lake();
                assertThat(LakeOracle.readLake(healthyLake, healthy.definition().schema()))
                        .isEqualTo(healthyOracle.stateAt(healthyOracle.ends()));

                // Resuming without fixing stops it again, with the same error.
                service.resume(broken.identifier());
                assertThat(service.tierTable(broken.identifier()).error())
                        .hasValueSatisfying(error -> assertThat(error).contains(errorCode));
            }
        }
    }

    private static TieringResult result(List<TieringResult> results, String table) {
        return results.stream()
                .filter(result -> result.table().name().equals(table))
                .findFirst()
                .orElseThrow();
    }
}
