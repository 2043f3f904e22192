package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lake position of a snapshot without offsets is its nearest tiering ancestor's. */
class TestLakePositionAncestry {
    @TempDir
    Path directory;

    @Test
    void snapshotsWithoutOffsetsCarryTheirAncestorsForward() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("ancestry", 2);
            assertThat(LakePosition.current(table.lake())).isEqualTo(LakePosition.EMPTY);

            new LakeOracle(table).commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 10, "a"));
            try (TieringService service = new TieringService(warehouse.catalog(), TieringConfig.defaults())) {
                service.tierTable(table.identifier());
            }
            Table lake = warehouse.load("ancestry").lake();
            LakePosition tiered = LakePosition.current(lake);
            assertThat(tiered.logVersion()).isEqualTo(1);
            assertThat(tiered.offsets().offsets().values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .isEqualTo(10);

            // An engine's own write (no Lakestream summary) keeps the offsets.
            DataFile foreign = DataFiles.builder(lake.spec())
                    .withPath(lake.location() + "/data/id_bucket=0/foreign.parquet")
                    .withFileSizeInBytes(10)
                    .withRecordCount(0)
                    .withPartitionPath("id_bucket=0")
                    .build();
            lake.newAppend().appendFile(foreign).commit();
            LakePosition carried = LakePosition.current(lake);
            assertThat(carried.snapshotId()).hasValue(lake.currentSnapshot().snapshotId());
            assertThat(carried.offsets()).isEqualTo(tiered.offsets());
            assertThat(carried.logVersion()).isEqualTo(tiered.logVersion());
            assertThat(LakePosition.at(lake, tiered.snapshotId().getAsLong())).isEqualTo(tiered);
        }
    }

    @Test
    void offsetMapSummaryRoundTrips() {
        OffsetMap offsets = new OffsetMap(Map.of(0, 5L, 3, 17L));
        Map<String, String> summary = LakePosition.summary(offsets, 9);
        assertThat(summary).containsEntry("lakestream.log-offsets", "{\"0\":5,\"3\":17}");
        assertThat(summary).containsEntry("lakestream.log-version", "9");
    }
}
