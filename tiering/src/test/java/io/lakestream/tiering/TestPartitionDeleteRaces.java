package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.CommitConflictCheck;
import io.lakestream.log.CommitMarkers;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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

    /** What the update read: the lake snapshot and the log version its scan pinned. */
    private record Read(OptionalLong lakeSnapshotId, long logVersion) {
        static Read now(LakestreamTable table) {
            table.lake().refresh();
            Snapshot snapshot = table.lake().currentSnapshot();
            return new Read(
                    snapshot == null ? OptionalLong.empty() : OptionalLong.of(snapshot.snapshotId()),
                    table.log().latestSnapshot().version());
        }

        CommitConflictCheck fence(LakestreamTable table) {
            return PartitionDeleteFence.afterReading(table, lakeSnapshotId, Expressions.alwaysTrue(), NO_ROW_CONFLICT);
        }
    }

    /** Key (5, eu) had score 5 when read: publishes score 6 as a write planned from that read. */
    private static StreamLog.CommitResult update(
            TestingWarehouse warehouse, LakestreamTable table, Read read, CommitConflictCheck check) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.upsert(Map.of("id", 5L, "region", "eu", "score", 6));
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
