package io.lakestream.lake;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.PartitionDeleteMarker;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How far back a search for partition deletes reads a lake's history: a delete's snapshot has a log version at least
 * the lake log version its marker names, so the search stops at the first snapshot below it instead of reading the
 * whole history (which the fence did before on every conflict check that found a marker).
 */
class TestLakePartitionDeletes {
    private static final int SNAPSHOTS = 40;

    @TempDir
    Path directory;

    @Test
    void searchStopsBelowTheMarkersLakeLogVersion() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            Table lake = warehouse.createPrimaryKeyTable("history", 2).lake();
            // snapshot i records log version 10 * i; the delete "landed" is snapshot 35, started from the lake at 340
            for (int i = 1; i <= SNAPSHOTS; i++) {
                AppendFiles append =
                        lake.newFastAppend().set(LakestreamProperties.SUMMARY_LOG_VERSION, Long.toString(10L * i));
                if (i == 35) {
                    append.set(LakestreamProperties.SUMMARY_PARTITION_DELETE_ID, "landed");
                }
                // a compaction-like snapshot without a log version in between: the search reads past it
                if (i == 38) {
                    lake.newFastAppend().commit();
                }
                append.commit();
            }
            long newest = lake.currentSnapshot().snapshotId();

            LakePartitionDeletes.Held landed = LakePartitionDeletes.held(lake, newest, List.of(marker("landed", 340)));
            assertThat(landed.deleteIds()).containsExactly("landed");
            assertThat(landed.snapshotsVisited()).isEqualTo(7);

            LakePartitionDeletes.Held pending =
                    LakePartitionDeletes.held(lake, newest, List.of(marker("pending", 370)));
            assertThat(pending.deleteIds()).isEmpty();
            // 40, 39, the one without a version, 38, 37 (370), and 36 (360): below the bound, the search stops
            assertThat(pending.snapshotsVisited()).isEqualTo(6);

            // a marker from before markers recorded their lake (0): the whole history, as every search did before
            LakePartitionDeletes.Held old = LakePartitionDeletes.held(lake, newest, List.of(marker("pending", 0)));
            assertThat(old.deleteIds()).isEmpty();
            assertThat(old.snapshotsVisited()).isEqualTo(SNAPSHOTS + 1);

            // several markers: down to the lowest bound (34 records 340, which a delete started from 340 could have;
            // 33 records 330 and ends the search)
            LakePartitionDeletes.Held both =
                    LakePartitionDeletes.held(lake, newest, List.of(marker("pending", 370), marker("landed", 340)));
            assertThat(both.deleteIds()).isEqualTo(Set.of("landed"));
            assertThat(both.snapshotsVisited()).isEqualTo(9);
        }
    }

    private static PartitionDeleteMarker marker(String id, long lakeLogVersion) {
        return new PartitionDeleteMarker(1_000, id, lakeLogVersion, Optional.empty());
    }
}
