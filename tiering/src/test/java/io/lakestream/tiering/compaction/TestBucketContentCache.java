package io.lakestream.tiering.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.LakeOracle;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.tiering.TieringTests;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compaction check's per-bucket content, advanced snapshot by snapshot through tiering commits and
 * compactions by one long-lived service, always equals a full scan of the lake, and the lake read back
 * equals the oracle.
 */
@ExtendWith(Seeds.class)
class TestBucketContentCache {
    @TempDir
    Path directory;

    @Test
    void incrementalContentEqualsFullScan() {
        Random random = Seeds.random(7);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("cached", 3);
            LakeOracle oracle = new LakeOracle(table);
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .retention(Duration.ZERO)
                    .compactionDeleteFiles(3)
                    .compactionSmallFiles(4)
                    .build();
            BucketContentCache cache = new BucketContentCache();
            int compactions = 0;
            try (TieringService service = new TieringService(warehouse.catalog(), config)) {
                for (int round = 0; round < 12; round++) {
                    long first = random.nextInt(50);
                    oracle.commit(
                            warehouse.allocator(),
                            TieringTests.rows(ChangeType.UPSERT, first, 1 + random.nextInt(30), "r" + round));
                    if (round % 3 == 2) {
                        oracle.commit(warehouse.allocator(), TieringTests.deletes(random.nextInt(50), 5));
                    }
                    TieringResult result = service.tierTable(table.identifier());
                    assertThat(result.error()).isEmpty();
                    compactions += result.bucketsCompacted().size();

                    Table lake = warehouse.load("cached").lake();
                    assertThat(locations(cache.contentByBucket(lake, lake.currentSnapshot())))
                            .isEqualTo(locations(BucketCompactor.contentByBucket(lake, lake.currentSnapshot())));
                    assertThat(LakeOracle.readLake(lake, table.definition().schema()))
                            .isEqualTo(oracle.stateAt(LakePosition.current(lake).offsets()));
                }
            }
            assertThat(compactions)
                    .as("compaction removed files the cache had to forget")
                    .isPositive();
            // every compacted bucket is a snapshot that removed files; every other snapshot (one per round but the
            // first, which the cache scanned) is applied from the files it added, read with the table's specs
            assertThat(cache.snapshotsFromIcebergChanges()).isEqualTo(compactions);
            assertThat(cache.snapshotsFromOwnManifests()).isEqualTo(11);
        }
    }

    private static Map<Integer, List<List<String>>> locations(Map<Integer, BucketCompactor.BucketContent> content) {
        Map<Integer, List<List<String>>> result = new TreeMap<>();
        content.forEach((bucket, files) -> result.put(
                bucket,
                List.of(
                        files.dataFiles().stream()
                                .map(ContentFile::location)
                                .sorted()
                                .collect(Collectors.toList()),
                        files.deleteFiles().stream()
                                .map(ContentFile::location)
                                .sorted()
                                .collect(Collectors.toList()))));
        return result;
    }
}
