package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.LogFiles;
import io.lakestream.testing.PausePoint;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A Spark {@code INSERT} that has staged segments (one task done, the other writing) when the tiering
 * service's first sweep runs two hours later by its clock: the driver's writer lease keeps them and the
 * insert commits every row; before leases the sweep deleted them, the insert was acknowledged and every
 * read of the table failed. With the lease lost (its file removed, as if it expired) the sweep takes the
 * segments and the insert fails with nothing published.
 *
 * <p>The insert runs over two partitions; {@code pause_at(x, n)}, a test function, blocks the task that
 * reaches row {@code n} (the last row of the second partition) until the test lets it go.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkWriteLeases {
    private static final String NS = "leases";
    private static final int ROWS = 5_000;

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService background = Executors.newCachedThreadPool();

    @BeforeAll
    void setUp() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        testing.spark()
                .udf()
                .register(
                        "pause_at",
                        (UDF2<Long, Long, Long>) (value, at) -> value.equals(at) ? PausePoint.reached(value) : value,
                        DataTypes.LongType);
    }

    @AfterAll
    void stopBackground() {
        background.shutdownNow();
    }

    @Test
    void anInsertWhoseStagedSegmentsLookAbandonedKeepsThemAndCommits() throws Exception {
        testing.sql("CREATE TABLE ls.leases.long_insert (id BIGINT, name STRING, score INT) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        LakestreamTable table = SparkTables.load(NS, "long_insert");
        CompletableFuture<?> insert = pausedInsert("long_insert", table);
        try {
            TieringResult round = sweepTwoHoursLater(table);
            assertThat(round.error()).isEmpty();
            assertThat(round.orphansRemoved()).isZero();
        } finally {
            PausePoint.resume();
        }
        insert.get(2, TimeUnit.MINUTES);

        assertThat(rows(testing.sql("SELECT count(*), sum(id) FROM ls.leases.long_insert")))
                .containsExactly(List.of((long) ROWS, (long) ROWS * (ROWS + 1) / 2));
        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "long_insert"));
        assertThat(rows(testing.sql("SELECT count(*) FROM ls.leases.long_insert")))
                .containsExactly(List.of((long) ROWS));
        assertThat(LogFiles.leaseFiles(table)).isEmpty();
    }

    @Test
    void anInsertWhoseLeaseWasLostFailsAndPublishesNothing() throws Exception {
        testing.sql("CREATE TABLE ls.leases.lost_lease (id BIGINT, name STRING, score INT) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.leases.lost_lease VALUES (-1, 'before', 0)");
        LakestreamTable table = SparkTables.load(NS, "lost_lease");
        long before = table.log().latestSnapshot().version();
        CompletableFuture<?> insert = pausedInsert("lost_lease", table);
        try {
            List<Path> leases = LogFiles.leaseFiles(table);
            assertThat(leases).hasSize(1);
            Files.delete(leases.getFirst());
            TieringResult round = sweepTwoHoursLater(table);
            assertThat(round.error()).isEmpty();
            assertThat(round.orphansRemoved()).isPositive();
        } finally {
            PausePoint.resume();
        }
        assertThatThrownBy(() -> insert.get(2, TimeUnit.MINUTES)).hasStackTraceContaining("was removed as an orphan");

        assertThat(SparkTables.load(NS, "lost_lease").log().latestSnapshot().version())
                .isEqualTo(before + 1); // the sweep's commit only
        assertThat(rows(testing.sql("SELECT id, name FROM ls.leases.lost_lease")))
                .containsExactly(List.of(-1L, "before"));
    }

    /** Starts the insert and returns once a task is held at the last row and segments are staged. */
    private CompletableFuture<?> pausedInsert(String name, LakestreamTable table) throws Exception {
        PausePoint.arm(ROWS);
        CompletableFuture<?> insert = CompletableFuture.runAsync(
                () -> testing.sql(("INSERT INTO ls.leases.%s SELECT pause_at(id, CAST(%s AS BIGINT)), "
                                + "CONCAT('v', CAST(id AS STRING)), 1 FROM range(1, %s, 1, 2)")
                        .formatted(name, ROWS, ROWS + 1)),
                background);
        if (!PausePoint.awaitPaused()) {
            PausePoint.resume();
            throw new AssertionError("the insert did not reach row " + ROWS + ": " + insert);
        }
        // waits for an event (the other task's segments), not a time; the bound keeps a broken test from hanging
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (LogFiles.stagedSegments(table).isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(LogFiles.stagedSegments(table)).isNotEmpty();
        return insert;
    }

    /** The first round of a tiering service whose clock is two hours ahead: it sweeps, and every staged file is old. */
    private TieringResult sweepTwoHoursLater(LakestreamTable table) {
        TieringConfig config = TieringConfig.builder()
                .writerThreads(1)
                .orphanAge(Duration.ofHours(1))
                .build();
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            return new TableTiering(
                            config,
                            testing.warehouse().allocator(),
                            threads,
                            TieringHooks.NONE,
                            Clock.offset(Clock.systemUTC(), Duration.ofHours(2)))
                    .tier(table);
        } finally {
            threads.shutdownNow();
        }
    }
}
