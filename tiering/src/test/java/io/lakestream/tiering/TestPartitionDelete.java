package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPin;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A DELETE of whole partitions of a table with a per-(partition, bucket) log is one lake commit ({@link
 * PartitionDelete}): the partitions' lake files go and their offsets move to the pinned log ends in the same
 * snapshot. Oracles are built from what the test wrote; the lake is read with Iceberg's own reader, and after the
 * delete tiering is run to the end, so a deleted row that tiering picked up again would show.
 */
class TestPartitionDelete {
    private static final long SEED = Long.getLong("lakestream.test.seed", 21L);
    private static final Expression EU = Expressions.equal("region", "eu");

    @TempDir
    Path directory;

    @Test
    void deleteOfAPartitionIsOneLakeCommitAndTieringNeverBringsItsRowsBack() {
        Random random = new Random(SEED);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            Map<List<Object>, List<Object>> oracle = new HashMap<>();
            write(warehouse, table, random, 80, oracle);
            tier(warehouse, table, 10); // part of every partition in the lake, the rest in the log
            write(warehouse, table, random, 40, oracle);
            long pinned = table.log().latestSnapshot().version();
            LogSnapshot pin = table.log().latestSnapshot();
            List<List<Object>> lakeBefore =
                    LakeOracle.readLake(table.lake(), table.definition().schema());
            assertThat(lakeBefore).anyMatch(row -> row.get(1).equals("eu"));
            // a delete ordered before these changes: the eu rows they write stay
            oracle.keySet().removeIf(key -> key.get(1).equals("eu"));
            write(warehouse, table, random, 40, oracle);

            assertThat(PartitionDelete.selectsWholePartitions(table, EU)).isTrue();
            PartitionDelete.Result result = new PartitionDelete().delete(table, EU, pinned);

            assertThat(result.attempts()).isEqualTo(1);
            assertThat(result.partitions()).containsExactly("region=eu");
            assertThat(result.dataFilesRemoved()).isPositive();
            table.lake().refresh();
            Snapshot snapshot = table.lake().currentSnapshot();
            assertThat(snapshot.snapshotId()).isEqualTo(result.snapshotId().getAsLong());
            assertThat(snapshot.operation()).isEqualTo(DataOperations.DELETE);
            assertThat(snapshot.summary())
                    .doesNotContainKeys(SnapshotSummary.ADDED_FILES_PROP, SnapshotSummary.ADDED_DELETE_FILES_PROP);
            assertThat(table.log().latestSnapshot().version())
                    .as("nothing is written to the log but the delete's empty marker commit")
                    .isEqualTo(pinned + 2);
            assertThat(table.log().latestSnapshot().endOffsets())
                    .isEqualTo(table.log().snapshot(pinned + 1).endOffsets());
            // the eu partition's offsets are its log ends at the pin; the others' are unchanged
            OffsetMap offsets = LakePosition.current(table.lake()).offsets();
            PartitionLog eu = pin.partitions().stream()
                    .filter(partition -> partition.path().equals("region=eu"))
                    .findFirst()
                    .orElseThrow();
            for (int bucket = 0; bucket < 2; bucket++) {
                assertThat(offsets.offset(new PartitionBucket(eu.id(), bucket)))
                        .isEqualTo(eu.bucket(bucket).endOffset());
            }
            // other partitions' lake rows are intact, the eu partition's are gone
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .isEqualTo(lakeBefore.stream()
                            .filter(row -> !row.get(1).equals("eu"))
                            .toList());

            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(LakeOracle.sorted(new ArrayList<>(oracle.values())));
        }
    }

    @Test
    void appendOnlyTableDeletesAWholeDayAndOnlyAlignedFiltersQualify() {
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
            appendEvents(warehouse, table, random, written);
            tier(warehouse, table, 15);
            appendEvents(warehouse, table, random, written);
            long pinned = table.log().latestSnapshot().version();
            LocalDateTime day = LocalDateTime.of(2026, 11, 29, 0, 0);
            written.removeIf(row -> !((LocalDateTime) row.get(2)).isBefore(day)
                    && ((LocalDateTime) row.get(2)).isBefore(day.plusDays(1)));
            appendEvents(warehouse, table, random, written);

            Expression wholeDay = Expressions.and(
                    Expressions.greaterThanOrEqual("ts", "2026-11-29T00:00:00"),
                    Expressions.lessThan("ts", "2026-11-30T00:00:00"));
            assertThat(PartitionDelete.selectsWholePartitions(table, wholeDay)).isTrue();
            assertThat(PartitionDelete.selectsWholePartitions(table, Expressions.lessThan("ts", "2026-11-29T12:00:00")))
                    .as("half a day")
                    .isFalse();
            assertThat(PartitionDelete.selectsWholePartitions(
                            table, Expressions.and(wholeDay, Expressions.equal("id", 7L))))
                    .as("a column that is not a partition source")
                    .isFalse();
            assertThatThrownBy(() -> new PartitionDelete()
                            .delete(table, Expressions.lessThan("ts", "2026-11-29T12:00:00"), pinned))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.UNSUPPORTED_OPERATION));

            PartitionDelete.Result result = new PartitionDelete().delete(table, wholeDay, pinned);
            assertThat(result.partitions()).hasSize(3).allMatch(path -> path.startsWith("ts_day=2026-11-29/"));
            table.lake().refresh();
            assertThat(table.lake().currentSnapshot().operation()).isEqualTo(DataOperations.DELETE);

            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(LakeOracle.sorted(written));
        }
    }

    /**
     * Tiering commits inside the delete's commit, after its validation and before its swap: the delete's swap fails,
     * Iceberg re-applies it on tiering's snapshot, the offsets check refuses it, and the delete starts again from the
     * new lake. Tiering tiered the changes written after the pin into the partition's lake files, so the delete moves
     * its pin to the newest version and deletes those changes too; changes written after the delete stay.
     */
    @Test
    void deleteLosingTheRaceToTieringStartsAgain() {
        Random random = new Random(SEED + 2);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            Map<List<Object>, List<Object>> oracle = new HashMap<>();
            write(warehouse, table, random, 60, oracle);
            tier(warehouse, table, 10);
            long pinned = table.log().latestSnapshot().version();
            write(warehouse, table, random, 40, oracle);
            oracle.keySet().removeIf(key -> key.get(1).equals("eu"));

            AtomicBoolean raced = new AtomicBoolean();
            PartitionDelete delete = new PartitionDelete((identifier, step, bucket) -> {
                if (step == TieringStep.COMMITTING && raced.compareAndSet(false, true)) {
                    assertThat(tier(warehouse, table, 1_000).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                }
            });
            PartitionDelete.Result result = delete.delete(table, EU, pinned);

            assertThat(raced).isTrue();
            assertThat(result.attempts()).isEqualTo(2);
            assertThat(result.pinnedLogVersion()).isGreaterThan(pinned);
            write(warehouse, table, random, 40, oracle);
            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(LakeOracle.sorted(new ArrayList<>(oracle.values())));
        }
    }

    /**
     * The delete commits inside a tiering round's commit: the round's commit is refused (its offsets are stale),
     * it plans again from the delete's offsets and tiers only what was written after the pin.
     */
    @Test
    void tieringLosingTheRaceToADeletePlansAgainFromItsOffsets() {
        Random random = new Random(SEED + 3);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            Map<List<Object>, List<Object>> oracle = new HashMap<>();
            write(warehouse, table, random, 60, oracle);
            tier(warehouse, table, 10);
            write(warehouse, table, random, 40, oracle);
            long pinned = table.log().latestSnapshot().version();
            oracle.keySet().removeIf(key -> key.get(1).equals("eu"));
            write(warehouse, table, random, 40, oracle);

            AtomicReference<PartitionDelete.Result> deleted = new AtomicReference<>();
            TieringHooks hooks = (identifier, step, bucket) -> {
                if (step == TieringStep.COMMITTING && deleted.get() == null) {
                    deleted.set(new PartitionDelete().delete(warehouse.load("scores"), EU, pinned));
                }
            };
            try (TieringService service =
                    new TieringService(warehouse.catalog(), config(1_000), hooks, Clock.systemUTC())) {
                TieringResult result = service.tierTable(table.identifier());
                assertThat(result.error()).isEmpty();
                assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            }
            assertThat(deleted.get().attempts()).isEqualTo(1);
            assertThat(deleted.get().pinnedLogVersion()).isEqualTo(pinned);
            table.lake().refresh();
            Snapshot tiered = table.lake().currentSnapshot();
            assertThat(tiered.parentId())
                    .as("the round committed on top of the delete")
                    .isEqualTo(deleted.get().snapshotId().getAsLong());
            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(LakeOracle.sorted(new ArrayList<>(oracle.values())));
        }
    }

    /**
     * Time travel to a version before the delete whose log ends in the deleted partition equal the pin's (only another
     * partition was written since) reads the snapshot before the delete; a version at or after the pin reads the
     * delete's snapshot, never an older one that still has the partition's files.
     */
    @Test
    void timeTravelSeesThePartitionBeforeTheDeleteAndNotAfter() {
        Random random = new Random(SEED + 4);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            Map<List<Object>, List<Object>> oracle = new HashMap<>();
            write(warehouse, table, random, 60, oracle);
            try (TieringService service = new TieringService(warehouse.catalog(), TieringConfig.defaults())) {
                assertThat(service.tierTable(table.identifier()).error()).isEmpty();
            }
            table.lake().refresh();
            long tiered = table.lake().currentSnapshot().snapshotId();
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                writer.upsert(Map.of("id", 1L, "region", "us", "score", 7));
                writer.commit();
            }
            long beforeDelete = table.log().latestSnapshot().version();
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                writer.upsert(Map.of("id", 2L, "region", "us", "score", 8));
                writer.commit();
            }
            long pinned = table.log().latestSnapshot().version();
            long deleted =
                    new PartitionDelete().delete(table, EU, pinned).snapshotId().getAsLong();

            ReadPin before =
                    ReadPin.resolve(table, ReadOptions.of(ReadMode.UNION).atLogVersion(beforeDelete));
            assertThat(before.lake().snapshotId()).hasValue(tiered);
            ReadPin after =
                    ReadPin.resolve(table, ReadOptions.of(ReadMode.UNION).atLogVersion(pinned));
            assertThat(after.lake().snapshotId()).hasValue(deleted);
        }
    }

    /**
     * A partition that appeared after the pin and was tiered: the row filter drops its lake files, so the delete is
     * ordered after its changes (pinned at the newest version) and none of its rows stays, tiered or not.
     */
    @Test
    void partitionTieredAfterThePinIsDeletedWhole() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            upsertRegion(warehouse, table, "us", 0, 10);
            long pinned = table.log().latestSnapshot().version();
            upsertRegion(warehouse, table, "eu", 0, 10);
            tier(warehouse, table, 1_000);
            upsertRegion(warehouse, table, "eu", 10, 20);

            PartitionDelete.Result result = new PartitionDelete().delete(table, EU, pinned);

            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .as("the eu rows tiered before the delete went, so the later ones must go too")
                    .allMatch(row -> row.get(1).equals("us"))
                    .hasSize(10);
            assertThat(result.pinnedLogVersion()).isGreaterThan(pinned);
            assertThat(result.partitions()).containsExactly("region=eu");
        }
    }

    private static void upsertRegion(
            TestingWarehouse warehouse, LakestreamTable table, String region, long from, long to) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = from; id < to; id++) {
                writer.upsert(Map.of("id", id, "region", region, "score", (int) id));
            }
            writer.commit();
        }
    }

    private static void write(
            TestingWarehouse warehouse,
            LakestreamTable table,
            Random random,
            int changes,
            Map<List<Object>, List<Object>> oracle) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            PartitionedScores.writeRandomChanges(writer, random, changes, 40, oracle);
            writer.commit();
        }
    }

    private static void appendEvents(
            TestingWarehouse warehouse, LakestreamTable table, Random random, List<List<Object>> written) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (int i = 0; i < 60; i++) {
                long id = random.nextInt(10_000);
                String region = PartitionedScores.REGIONS.get(random.nextInt(3));
                LocalDateTime ts = LocalDateTime.of(2026, 11, 28 + random.nextInt(3), random.nextInt(24), 0);
                writer.append(Map.of("id", id, "region", region, "ts", ts));
                written.add(List.of(id, region, ts));
            }
            writer.commit();
        }
    }

    private static TieringConfig config(int maxRecordsPerLog) {
        return TieringConfig.builder()
                .maxRecordsPerBucket(maxRecordsPerLog)
                .writerThreads(1)
                .retention(Duration.ZERO)
                .build();
    }

    private static TieringResult tier(TestingWarehouse warehouse, LakestreamTable table, int maxRecordsPerLog) {
        try (TieringService service = new TieringService(warehouse.catalog(), config(maxRecordsPerLog))) {
            TieringResult result = service.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            return result;
        }
    }

    /** Tiers to the end; then every (partition, bucket)'s lake offset is its log end and retention removed the rest. */
    private static void tierUntilUpToDate(TestingWarehouse warehouse, LakestreamTable table) {
        for (int round = 0; round < 50; round++) {
            if (tier(warehouse, table, 200).outcome() == TieringResult.Outcome.UP_TO_DATE) {
                break;
            }
        }
        assertThat(tier(warehouse, table, 50).outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
        table.lake().refresh();
        LogSnapshot log = table.log().latestSnapshot();
        assertThat(LakePosition.current(table.lake()).offsets().partitionOffsets())
                .isEqualTo(log.endOffsets().partitionOffsets());
        for (PartitionLog partition : log.partitions()) {
            partition.buckets().forEach(bucket -> assertThat(bucket.segments()).isEmpty());
        }
    }
}
