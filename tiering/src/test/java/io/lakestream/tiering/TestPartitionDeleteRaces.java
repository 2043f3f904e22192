package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.CommitConflictCheck;
import io.lakestream.log.CommitMarkers;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write planned from a read (an {@code UPDATE t SET score = score + 1 WHERE id = 5}: it read key (5, eu) and
 * publishes an upsert of it, through {@code commitIfNoConflict} with {@link PartitionDeleteFence}) racing a partition
 * delete of {@code region = 'eu'} ({@link PartitionDelete}, a lake commit): in every order, either the write fails
 * with {@code LOG_COMMIT_CONFLICT} or the delete is ordered after it and removes its change; the deleted partition
 * never gets the updated row back. Each order is forced by running one commit inside the other's validation. The
 * lake is read after tiering to the end, so a change the delete let through would show.
 */
class TestPartitionDeleteRaces {
    private static final Expression EU = Expressions.equal("region", "eu");
    private static final Expression US = Expressions.equal("region", "us");
    private static final CommitConflictCheck NO_ROW_CONFLICT = (segments, from, current) -> Optional.empty();

    @TempDir
    Path directory;

    /** The delete runs between the write's check and its publish: the write loses the race and sees the marker. */
    @Test
    void deleteCommittedWhileTheUpdateValidatesFailsTheUpdate() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read read = Read.now(table);
            AtomicReference<PartitionDelete.Result> deleted = new AtomicReference<>();
            CommitConflictCheck deleteInside = (segments, from, current) -> {
                if (deleted.get() == null) {
                    deleted.set(new PartitionDelete().delete(warehouse.load("scores"), EU, read.logVersion()));
                }
                return Optional.empty();
            };

            Throwable updateFailure = catchThrowable(() -> update(
                    warehouse,
                    table,
                    read,
                    (segments, from, current) -> deleteInside
                            .findConflict(segments, from, current)
                            .or(() -> read.fence(table).findConflict(segments, from, current))));

            assertNoEuRowAfterTiering(warehouse, table);
            assertThat(updateFailure)
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                    .hasMessageContaining("partition delete");
            assertThat(deleted.get().snapshotId()).isPresent();
        }
    }

    /** The update commits while the delete's lake commit validates: the update sees the marker and fails. */
    @Test
    void updateCommittedWhileTheDeleteValidatesFails() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read read = Read.now(table);
            AtomicReference<RuntimeException> updateFailure = new AtomicReference<>();
            TieringHooks updateInside = (identifier, step, bucket) -> {
                if (step == TieringStep.COMMITTING && updateFailure.get() == null) {
                    try {
                        update(warehouse, table, read, read.fence(table));
                        updateFailure.set(new IllegalStateException("the update committed"));
                    } catch (RuntimeException e) {
                        updateFailure.set(e);
                    }
                }
            };

            PartitionDelete.Result result = new PartitionDelete(updateInside).delete(table, EU, read.logVersion());

            assertNoEuRowAfterTiering(warehouse, table);
            assertThat(result.snapshotId()).isPresent();
            assertThat(updateFailure.get())
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                    .hasMessageContaining("partition delete");
        }
    }

    /**
     * The update read before the delete's pin and committed after it, before the delete started: the delete finds
     * the conditional commit in its partition and is ordered after it, removing its change.
     */
    @Test
    void updateCommittedAfterThePinIsDeletedToo() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read read = Read.now(table);
            long pinned = table.log().latestSnapshot().version();
            long updated = update(warehouse, table, read, read.fence(table)).version();

            PartitionDelete.Result result = new PartitionDelete().delete(table, EU, pinned);

            assertNoEuRowAfterTiering(warehouse, table);
            assertThat(result.pinnedLogVersion()).isGreaterThanOrEqualTo(updated);
        }
    }

    /**
     * No spurious conflict: an update that read the lake after the delete landed commits, and a blind upsert after
     * the pin stays (last writer wins).
     */
    @Test
    void writesAfterTheDeleteStay() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            long pinned = table.log().latestSnapshot().version();
            PartitionDelete.Result result = new PartitionDelete().delete(table, EU, pinned);
            assertThat(result.snapshotId()).isPresent();
            upsertEu(warehouse, table, 100, 101);

            table.lake().refresh();
            update(warehouse, table, Read.now(table), Read.now(table).fence(table));

            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .filteredOn(row -> row.get(1).equals("eu"))
                    .containsExactlyInAnyOrder(List.of(5L, "eu", 6), List.of(100L, "eu", 100));
        }
    }

    /**
     * A marker whose delete never landed (its process died after publishing it): a write that read a lake from before
     * the marker conflicts (the delete might still land), and once tiering moved the lake's log version past the
     * marker (so the delete can no longer land), a write that read that lake commits.
     */
    @Test
    void markerOfADeleteThatNeverLandedStopsConflictingOnceTieringPassesIt() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read before = Read.now(table);
            long marker = table.log()
                    .commit(List.of(), Optional.of(CommitMarkers.partitionDelete("crashed")))
                    .version();

            assertThat(catchThrowable(() -> update(warehouse, table, before, before.fence(table))))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                    .hasMessageContaining("partition delete crashed");

            tierUntilUpToDate(warehouse, table);
            Read after = Read.now(table);
            assertThat(LakePosition.at(table.lake(), after.lakeSnapshotId().getAsLong())
                            .logVersion())
                    .isGreaterThanOrEqualTo(marker);
            update(warehouse, table, after, after.fence(table));
            tierUntilUpToDate(warehouse, table);
            assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                    .contains(List.of(5L, "eu", 6));
        }
    }

    /**
     * Per partition: a delete of eu committed inside the check of a write that read only us rows (its condition) and
     * writes only us commits; the write stays, the delete too. Before, the write failed ("partition delete").
     */
    @Test
    void deleteOfAnotherPartitionDoesNotFailAWriteThatNeitherReadsNorWritesIt() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read read = Read.now(table);
            CommitConflictCheck check = deleteInside(warehouse, read, read.fence(table, US));

            write(warehouse, table, read, check, Map.of("id", 1L, "region", "us", "score", 2));

            assertThat(LakeOracle.readLake(
                            afterTiering(warehouse, table), table.definition().schema()))
                    .containsExactly(List.of(1L, "us", 2));
        }
    }

    /**
     * A write whose condition covers the deleted partition (it may have read its rows) conflicts although it writes
     * only another partition; so does one that read only us rows and writes into eu (a MERGE inserting there).
     */
    @Test
    void writesThatReadOrWriteTheDeletedPartitionStillConflict() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read read = Read.now(table);
            Expression euOrUs = Expressions.in("region", "eu", "us");
            Throwable readsEu = catchThrowable(() -> write(
                    warehouse,
                    table,
                    read,
                    deleteInside(warehouse, read, read.fence(table, euOrUs)),
                    Map.of("id", 1L, "region", "us", "score", 2)));
            assertConflict(readsEu);

            upsertEu(warehouse, table, 0, 3);
            Read second = Read.now(table);
            Throwable writesEu = catchThrowable(() -> write(
                    warehouse,
                    table,
                    second,
                    deleteInside(warehouse, second, second.fence(table, US)),
                    Map.of("id", 7L, "region", "eu", "score", 7)));
            assertConflict(writesEu);
            assertNoEuRowAfterTiering(warehouse, table);
        }
    }

    /**
     * A delete that gave up (it lost its lake commit to tiering {@link PartitionDelete#MAX_ATTEMPTS} times) abandons
     * its markers, so a racing write that read before them commits. Before, each marker failed it until tiering moved
     * the lake past it.
     */
    @Test
    void markersOfADeleteThatGaveUpDoNotFailWrites() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read read = Read.now(table);
            AtomicInteger tiered = new AtomicInteger();
            TieringHooks tierInside = (identifier, step, bucket) -> {
                if (step == TieringStep.COMMITTING) {
                    // a new change tiered inside the delete's commit: its offsets are gone, it starts again
                    try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                        writer.upsert(Map.of("id", 100L + tiered.incrementAndGet(), "region", "us", "score", 0));
                        writer.commit();
                    }
                    tierUntilUpToDate(warehouse, table);
                }
            };
            Throwable gaveUp =
                    catchThrowable(() -> new PartitionDelete(tierInside).delete(table, EU, read.logVersion()));
            assertThat(gaveUp)
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.LAKE_COMMIT_CONFLICT));
            // each attempt's marker was abandoned: none is left that may still land
            assertThat(CommitMarkers.find(
                            table.log().latestSnapshot(),
                            CommitMarkers.PARTITION_DELETE_PREFIX,
                            read.logVersion(),
                            Long.MAX_VALUE))
                    .hasSize(PartitionDelete.MAX_ATTEMPTS);
            assertThat(CommitMarkers.partitionDeletes(table.log().latestSnapshot(), read.logVersion()))
                    .isEmpty();

            update(warehouse, table, read, read.fence(table));

            assertThat(LakeOracle.readLake(
                            afterTiering(warehouse, table), table.definition().schema()))
                    .contains(List.of(5L, "eu", 6));
        }
    }

    /**
     * A marker whose delete died: once tiering moved the lake past it without the delete, a write that read the lake
     * from before the marker commits too (the lake as it is now shows the delete can no longer land). Before, it
     * failed until its retry read the newer lake.
     */
    @Test
    void aWriteThatReadBeforeADeadMarkerCommitsOnceTheLakeIsPastIt() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read before = Read.now(table);
            table.log().commit(List.of(), Optional.of(CommitMarkers.partitionDelete("died", 0, Optional.empty())));
            tierUntilUpToDate(warehouse, table);

            update(warehouse, table, before, before.fence(table));

            assertThat(LakeOracle.readLake(
                            afterTiering(warehouse, table), table.definition().schema()))
                    .contains(List.of(5L, "eu", 6));
        }
    }

    /** A check that deletes the eu partition (once) inside the write's commit, then runs {@code fence}. */
    private static CommitConflictCheck deleteInside(TestingWarehouse warehouse, Read read, CommitConflictCheck fence) {
        AtomicReference<PartitionDelete.Result> deleted = new AtomicReference<>();
        return (segments, from, current) -> {
            if (deleted.get() == null) {
                deleted.set(new PartitionDelete().delete(warehouse.load("scores"), EU, read.logVersion()));
                assertThat(deleted.get().snapshotId()).isPresent();
            }
            return fence.findConflict(segments, from, current);
        };
    }

    /**
     * More keyed commits than the log remembers came after the lake the write read, none of them a marker: a marker
     * may have dropped out of the window, so the write fails rather than being let through on a window that cannot
     * tell.
     */
    @Test
    void aKeyWindowThatNoLongerReachesTheReadLakeFailsTheWrite() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = tieredTable(warehouse);
            Read read = Read.now(table);
            LogSnapshot checkedFrom = table.log().latestSnapshot();
            long firstKept = checkedFrom.version() + 10;
            Map<String, Long> keys = new HashMap<>();
            for (int i = 0; i < LogSnapshot.RETAINED_IDEMPOTENCY_KEYS; i++) {
                keys.put(CommitMarkers.CONDITIONAL_PREFIX + "write-" + i, firstKept + i);
            }
            LogSnapshot current = new LogSnapshot(
                    checkedFrom.formatVersion(),
                    firstKept + LogSnapshot.RETAINED_IDEMPOTENCY_KEYS - 1,
                    checkedFrom.committedAtMillis(),
                    checkedFrom.buckets(),
                    keys,
                    checkedFrom.swept(),
                    checkedFrom.tableUuid(),
                    checkedFrom.partitions(),
                    checkedFrom.nextPartitionId(),
                    checkedFrom.expiredPartitions());

            assertThat(read.fence(table).findConflict(List.of(), checkedFrom, current))
                    .hasValueSatisfying(conflict -> assertThat(conflict).contains("than the log remembers"));
        }
    }

    private static void assertConflict(Throwable failure) {
        assertThat(failure)
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("partition delete");
    }

    private static org.apache.iceberg.Table afterTiering(TestingWarehouse warehouse, LakestreamTable table) {
        tierUntilUpToDate(warehouse, table);
        return table.lake();
    }

    /** What the update read: the lake snapshot and the log version its scan pinned. */
    private record Read(OptionalLong lakeSnapshotId, long logVersion) {
        static Read now(LakestreamTable table) {
            table.lake().refresh();
            Snapshot snapshot = table.lake().currentSnapshot();
            return new Read(
                    snapshot == null ? OptionalLong.empty() : OptionalLong.of(snapshot.snapshotId()),
                    table.log().latestSnapshot().version());
        }

        /** A write whose condition was not pushed down: it may have read every partition. */
        CommitConflictCheck fence(LakestreamTable table) {
            return fence(table, Expressions.alwaysTrue());
        }

        CommitConflictCheck fence(LakestreamTable table, Expression condition) {
            return PartitionDeleteFence.afterReading(table, lakeSnapshotId, condition, NO_ROW_CONFLICT);
        }
    }

    /** Key (5, eu) had score 5 when read: publishes score 6 as a write planned from that read. */
    private static StreamLog.CommitResult update(
            TestingWarehouse warehouse, LakestreamTable table, Read read, CommitConflictCheck check) {
        return write(warehouse, table, read, check, Map.of("id", 5L, "region", "eu", "score", 6));
    }

    /** Publishes {@code row} as a write planned from {@code read}. */
    private static StreamLog.CommitResult write(
            TestingWarehouse warehouse,
            LakestreamTable table,
            Read read,
            CommitConflictCheck check,
            Map<String, Object> row) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.upsert(row);
            List<StagedSegment> staged = writer.prepare();
            try {
                return table.log().commitIfNoConflict(staged, Optional.empty(), read.logVersion(), check);
            } catch (RuntimeException e) {
                table.log().discard(staged);
                throw e;
            }
        }
    }

    /** eu and us rows, part of them tiered. */
    private static LakestreamTable tieredTable(TestingWarehouse warehouse) {
        LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
        upsertEu(warehouse, table, 0, 10);
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.upsert(Map.of("id", 1L, "region", "us", "score", 1));
            writer.commit();
        }
        tierUntilUpToDate(warehouse, table);
        upsertEu(warehouse, table, 10, 20);
        return table;
    }

    private static void upsertEu(TestingWarehouse warehouse, LakestreamTable table, long from, long to) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = from; id < to; id++) {
                writer.upsert(Map.of("id", id, "region", "eu", "score", (int) id));
            }
            writer.commit();
        }
    }

    private static void assertNoEuRowAfterTiering(TestingWarehouse warehouse, LakestreamTable table) {
        tierUntilUpToDate(warehouse, table);
        assertThat(LakeOracle.readLake(table.lake(), table.definition().schema()))
                .as("the deleted partition's rows, after tiering to the end: a resurrected row shows here")
                .noneMatch(row -> row.get(1).equals("eu"))
                .containsExactly(List.of(1L, "us", 1));
    }

    private static void tierUntilUpToDate(TestingWarehouse warehouse, LakestreamTable table) {
        TieringConfig config = TieringConfig.builder()
                .maxRecordsPerBucket(1_000)
                .writerThreads(1)
                .build();
        try (TieringService service = new TieringService(warehouse.catalog(), config)) {
            for (int round = 0; round < 20; round++) {
                TieringResult result = service.tierTable(table.identifier());
                assertThat(result.error()).isEmpty();
                if (result.outcome() == TieringResult.Outcome.UP_TO_DATE) {
                    table.lake().refresh();
                    return;
                }
            }
        }
        throw new AssertionError("tiering did not catch up");
    }
}
