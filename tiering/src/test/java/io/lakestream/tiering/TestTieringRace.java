package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.StreamSupport;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two tiering services (each with its own catalog connection, as two JVMs would have) on one table:
 * every change reaches the lake exactly once.
 */
class TestTieringRace {
    @TempDir
    Path directory;

    /**
     * Service A validates its commit, then pauses inside Iceberg's commit while B commits the same
     * range. Iceberg then retries A's commit on the newer lake; the offsets check runs again against
     * that lake and rejects it, so A's changes are not applied a second time.
     */
    @Test
    void commitThatLosesTheRaceIsRejectedOnIcebergsRetry() throws Exception {
        try (TestingWarehouse first = new TestingWarehouse(directory);
                TestingWarehouse second = new TestingWarehouse(directory)) {
            LakestreamTable table = first.createPrimaryKeyTable("raced", 4);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(first.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 200, "a"));
            oracle.commit(first.allocator(), TieringTests.deletes(0, 20));

            CountDownLatch aInsideCommit = new CountDownLatch(1);
            CountDownLatch bCommitted = new CountDownLatch(1);
            AtomicBoolean paused = new AtomicBoolean();
            TieringHooks pauseOnce = (identifier, step, bucket) -> {
                if (step == TieringStep.COMMITTING && paused.compareAndSet(false, true)) {
                    aInsideCommit.countDown();
                    await(bCommitted);
                }
            };
            TieringConfig config = TieringConfig.builder().writerThreads(2).build();
            try (TieringService a = new TieringService(first.catalog(), config, pauseOnce, Clock.systemUTC());
                    TieringService b = new TieringService(second.catalog(), config)) {
                CompletableFuture<TieringResult> aResult =
                        CompletableFuture.supplyAsync(() -> a.tierTable(table.identifier()));
                assertThat(aInsideCommit.await(60, TimeUnit.SECONDS)).isTrue();
                TieringResult bResult = b.tierTable(table.identifier());
                bCommitted.countDown();
                TieringResult aOutcome = aResult.get(60, TimeUnit.SECONDS);

                assertThat(bResult.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                assertThat(bResult.changesTiered()).isEqualTo(220);
                // A lost: it re-planned from B's offsets and found nothing left to tier.
                assertThat(aOutcome.outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
                assertThat(aOutcome.changesTiered()).isZero();
            }

            Table lake = first.load("raced").lake();
            assertThat(tieringSnapshots(lake)).isEqualTo(1);
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(oracle.ends());
            // A deleted the files of its rejected commit.
            assertThat(TieringTests.orphanDataFiles(lake)).isEmpty();
        }
    }

    /**
     * Two services with retention zero. A has planned and written its first bucket when B tiers the whole
     * table and its retention removes the segments A was about to read. A finds its range removed: a normal
     * race, not a bad state. It re-plans from B's lake and finds nothing left; the table is not stopped.
     */
    @Test
    void rangeTieredAndRemovedByAnotherServiceWhileWritingIsReplanned() throws Exception {
        try (TestingWarehouse first = new TestingWarehouse(directory);
                TestingWarehouse second = new TestingWarehouse(directory)) {
            LakestreamTable table = first.createPrimaryKeyTable("raced", 3);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(first.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 90, "a"));
            oracle.commit(first.allocator(), TieringTests.deletes(0, 9));
            // one writer thread: A writes its buckets one after the other
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(1)
                    .retention(Duration.ZERO)
                    .build();
            try (TieringService b = new TieringService(second.catalog(), config)) {
                List<TieringResult> bResults = new CopyOnWriteArrayList<>();
                AtomicBoolean raced = new AtomicBoolean();
                TieringHooks raceOnce = (identifier, step, bucket) -> {
                    if (step == TieringStep.DATA_FILES_WRITTEN && raced.compareAndSet(false, true)) {
                        bResults.add(b.tierTable(table.identifier()));
                    }
                };
                try (TieringService a = new TieringService(first.catalog(), config, raceOnce, Clock.systemUTC())) {
                    TieringResult aResult = a.tierTable(table.identifier());

                    assertThat(bResults).singleElement().satisfies(result -> {
                        assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                        assertThat(result.segmentsRemoved()).isPositive();
                    });
                    assertThat(aResult.error()).isEmpty();
                    assertThat(aResult.outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
                    assertThat(a.status().get(table.identifier()).stopped()).isFalse();
                }
            }
            Table lake = first.load("raced").lake();
            assertThat(tieringSnapshots(lake)).isEqualTo(1);
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(oracle.ends());
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
            assertThat(TieringTests.orphanDataFiles(lake)).isEmpty();
        }
    }

    /**
     * The same race earlier: A read the lake, then B tiered everything and its retention removed the log
     * below, then A read the log. A's plan finds the range removed; the lake moved, so A re-plans instead
     * of stopping the table.
     */
    @Test
    void rangeTieredAndRemovedBetweenReadingLakeAndLogIsReplanned() throws Exception {
        try (TestingWarehouse first = new TestingWarehouse(directory);
                TestingWarehouse second = new TestingWarehouse(directory);
                BufferAllocator allocator = new RootAllocator()) {
            LakestreamTable table = first.createPrimaryKeyTable("raced", 3);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(first.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 90, "a"));
            TieringConfig config =
                    TieringConfig.builder().retention(Duration.ZERO).build();
            ExecutorService writers = Executors.newFixedThreadPool(2);
            try (TieringService b = new TieringService(second.catalog(), config)) {
                AtomicBoolean raced = new AtomicBoolean();
                StreamLog racingLog = new ForwardingStreamLog(table.log()) {
                    @Override
                    public LogSnapshot latestSnapshot() {
                        if (raced.compareAndSet(false, true)) {
                            assertThat(b.tierTable(table.identifier()).segmentsRemoved())
                                    .isPositive();
                        }
                        return super.latestSnapshot();
                    }
                };
                LakestreamTable racing =
                        new LakestreamTable(table.identifier(), table.lake(), table.definition(), racingLog);
                TieringResult result =
                        new TableTiering(config, allocator, writers, TieringHooks.NONE, Clock.systemUTC()).tier(racing);
                assertThat(raced).isTrue();
                assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
            } finally {
                writers.shutdownNow();
            }
            Table lake = first.load("raced").lake();
            assertThat(tieringSnapshots(lake)).isEqualTo(1);
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
        }
    }

    /** Free-running: a writer keeps appending while two services tier the same table in loops. */
    @Test
    void twoServicesTieringConcurrentlyApplyEveryChangeOnce() throws Exception {
        try (TestingWarehouse first = new TestingWarehouse(directory);
                TestingWarehouse second = new TestingWarehouse(directory)) {
            LakestreamTable table = first.create(
                    "appended",
                    TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                            .bucketKey("id")
                            .bucketCount(3)
                            .build());
            LakeOracle oracle = new LakeOracle(table);
            TieringConfig config = TieringConfig.builder()
                    .interval(Duration.ofMillis(5))
                    .maxRecordsPerBucket(40)
                    .writerThreads(1)
                    .maxConsecutiveFailures(1000)
                    .build();
            List<TieringResult> results = new CopyOnWriteArrayList<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            try (TieringService a = new TieringService(first.catalog(), config);
                    TieringService b = new TieringService(second.catalog(), config)) {
                CompletableFuture<Void> loopA = CompletableFuture.runAsync(() -> loop(a, table, writing, results));
                CompletableFuture<Void> loopB = CompletableFuture.runAsync(() -> loop(b, table, writing, results));
                for (int batch = 0; batch < 25; batch++) {
                    oracle.commit(first.allocator(), TieringTests.rows(ChangeType.INSERT, batch * 30L, 30, "r"));
                }
                writing.set(false);
                loopA.get(120, TimeUnit.SECONDS);
                loopB.get(120, TimeUnit.SECONDS);
                // Catch up with one service.
                for (int round = 0; round < 20; round++) {
                    a.resume(table.identifier());
                    if (a.tierTable(table.identifier()).outcome() == TieringResult.Outcome.UP_TO_DATE) {
                        break;
                    }
                }
            }
            assertThat(results).noneMatch(result -> result.outcome() == TieringResult.Outcome.STOPPED);
            Table lake = first.load("appended").lake();
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(oracle.ends());
            List<List<Object>> rows =
                    LakeOracle.readLake(lake, table.definition().schema());
            assertThat(rows).hasSize(750).isEqualTo(oracle.stateAt(oracle.ends()));
        }
    }

    private static void loop(
            TieringService service, LakestreamTable table, AtomicBoolean writing, List<TieringResult> results) {
        while (writing.get()) {
            service.resume(table.identifier()); // no back-off between rounds: maximize contention
            results.add(service.tierTable(table.identifier()));
        }
    }

    private static long tieringSnapshots(Table lake) {
        return StreamSupport.stream(lake.snapshots().spliterator(), false)
                .filter(snapshot -> snapshot.summary().containsKey(LakeCommitter.SUMMARY_COMMIT_ID))
                .filter(snapshot -> snapshot.summary().containsKey(LakestreamProperties.SUMMARY_LOG_OFFSETS))
                .count();
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new AssertionError("timed out waiting for the other service");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
