package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiering of per-(partition, bucket) logs: one task per (partition, bucket) with a tail, the lake's offset map keyed
 * {@code "<partitionId>/<bucket>"}, rounds capped at a few records per log so a partition is tiered over several
 * rounds, retention per (partition, bucket); at the end the lake, read by Iceberg's own reader, equals an oracle of
 * what was written, and another round has nothing to do.
 */
class TestPartitionedLogTiering {
    private static final long SEED = Long.getLong("lakestream.test.seed", 31L);
    private static final String[] REGIONS = {"eu", "us", "ap"};

    @TempDir
    Path directory;

    /** The lag tiering reports (and its scheduling reads) counts the changes in every partition's logs. */
    @Test
    void lagCountsEveryPartitionBucket() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "lag", 2);
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                for (long id = 0; id < 30; id++) {
                    writer.upsert(
                            Map.of("id", id, "region", PartitionedScores.REGIONS.get((int) (id % 3)), "score", 1));
                }
                writer.commit();
            }
            LogSnapshot log = table.log().latestSnapshot();
            long now = log.committedAtMillis() + 5_000;
            TieringLag lag = TieringLag.of(OffsetMap.EMPTY, log, now);
            assertThat(lag.pendingRecords()).isEqualTo(30);
            assertThat(lag.oldestPendingAge()).contains(Duration.ofSeconds(5));
            assertThat(TieringLag.of(log.endOffsets(), log, now)).isEqualTo(TieringLag.NONE);
        }
    }

    @Test
    void primaryKeyTablePartitionedByAKeyColumn() {
        Random random = new Random(SEED);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            Map<List<Object>, List<Object>> oracle = new HashMap<>();
            for (int step = 0; step < 5; step++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                    PartitionedScores.writeRandomChanges(writer, random, 60, 50, oracle);
                    writer.commit();
                }
                if (random.nextBoolean()) {
                    tier(warehouse, table, 5 + random.nextInt(40));
                }
            }
            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(LakeOracle.sorted(new ArrayList<>(oracle.values())));
        }
    }

    @Test
    void appendOnlyTablePartitionedByDayAndRegion() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "region", Types.StringType.get()),
                Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()));
        Random random = new Random(SEED + 1);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "events",
                    TableSpec.builder(schema)
                            .bucketKey("id")
                            .bucketCount(2)
                            .partitioning(List.of("day(ts)", "region"))
                            .partitionedLog(true)
                            .build());
            List<List<Object>> written = new ArrayList<>();
            for (int step = 0; step < 4; step++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                    for (int i = 0; i < 80; i++) {
                        long id = random.nextInt(10_000);
                        String region = random.nextInt(8) == 0 ? null : REGIONS[random.nextInt(REGIONS.length)];
                        LocalDateTime ts = LocalDateTime.of(2026, 11, 28 + random.nextInt(3), random.nextInt(24), 0);
                        Map<String, Object> row = new HashMap<>();
                        row.put("id", id);
                        row.put("region", region);
                        row.put("ts", ts);
                        writer.append(row);
                        List<Object> values = new ArrayList<>();
                        values.add(id);
                        values.add(region);
                        values.add(ts);
                        written.add(values);
                    }
                    writer.commit();
                }
                if (random.nextBoolean()) {
                    tier(warehouse, table, 5 + random.nextInt(60));
                }
            }
            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(LakeOracle.sorted(written));
        }
    }

    private static TieringResult tier(TestingWarehouse warehouse, LakestreamTable table, int maxRecordsPerLog) {
        TieringConfig config = TieringConfig.builder()
                .maxRecordsPerBucket(maxRecordsPerLog)
                .writerThreads(2)
                .retention(Duration.ZERO)
                .build();
        try (TieringService service = new TieringService(warehouse.catalog(), config)) {
            TieringResult result = service.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
            return result;
        }
    }

    /** Tiers in capped rounds until nothing is left; then every (partition, bucket)'s lake offset is its log end. */
    private static void tierUntilUpToDate(TestingWarehouse warehouse, LakestreamTable table) {
        for (int round = 0; round < 100; round++) {
            if (tier(warehouse, table, 200).outcome() == TieringResult.Outcome.UP_TO_DATE) {
                break;
            }
        }
        // once more: the retention of the last round runs after it, and nothing is tiered twice
        assertThat(tier(warehouse, table, 50).outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
        table.lake().refresh();
        LogSnapshot log = table.log().latestSnapshot();
        OffsetMap lake = LakePosition.current(table.lake()).offsets();
        assertThat(log.partitions()).isNotEmpty();
        assertThat(lake.partitionOffsets()).isEqualTo(log.endOffsets().partitionOffsets());
        assertThat(lake.offsets().values()).allMatch(offset -> offset == 0);
        // retention (age zero) removed every tiered segment of every (partition, bucket)
        for (PartitionLog partition : log.partitions()) {
            partition.buckets().forEach(bucket -> assertThat(bucket.segments()).isEmpty());
        }
    }

    /** The round's log line shows a partitioned log's (partition, bucket) offsets, not its placeholder bucket ones. */
    @Test
    void logLineShowsTheOffsetsOfTheLogsLayout() {
        OffsetMap offsets = new OffsetMap(
                Map.of(0, 0L, 1, 0L), Map.of(new PartitionBucket(0, 1), 4L, new PartitionBucket(2, 0), 9L));
        assertThat(TableTiering.loggedOffsets(true, offsets).toString()).isEqualTo("{0/1=4, 2/0=9}");
        assertThat(TableTiering.loggedOffsets(false, new OffsetMap(Map.of(0, 3L, 1, 5L)))
                        .toString())
                .isEqualTo("{0=3, 1=5}");
    }
}
