package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
        testing.spark().udf().register("pause_at", (UDF2<Long, Long, Long>) Pause::pauseAt, DataTypes.LongType);
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
            Pause.resume();
        }
        insert.get(2, TimeUnit.MINUTES);

        assertThat(rows(testing.sql("SELECT count(*), sum(id) FROM ls.leases.long_insert")))
                .containsExactly(List.of((long) ROWS, (long) ROWS * (ROWS + 1) / 2));
        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "long_insert"));
        assertThat(rows(testing.sql("SELECT count(*) FROM ls.leases.long_insert")))
                .containsExactly(List.of((long) ROWS));
        assertThat(leaseFiles(table)).isEmpty();
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
            List<Path> leases = leaseFiles(table);
            assertThat(leases).hasSize(1);
            Files.delete(leases.getFirst());
            TieringResult round = sweepTwoHoursLater(table);
            assertThat(round.error()).isEmpty();
            assertThat(round.orphansRemoved()).isPositive();
        } finally {
            Pause.resume();
        }
        assertThatThrownBy(() -> insert.get(2, TimeUnit.MINUTES)).hasStackTraceContaining("was removed as an orphan");

        assertThat(SparkTables.load(NS, "lost_lease").log().latestSnapshot().version())
                .isEqualTo(before + 1); // the sweep's commit only
        assertThat(rows(testing.sql("SELECT id, name FROM ls.leases.lost_lease")))
                .containsExactly(List.of(-1L, "before"));
    }

    /** Starts the insert and returns once a task is held at the last row and segments are staged. */
    private CompletableFuture<?> pausedInsert(String name, LakestreamTable table) throws Exception {
        Pause.arm(ROWS);
        CompletableFuture<?> insert = CompletableFuture.runAsync(
                () -> testing.sql(("INSERT INTO ls.leases.%s SELECT pause_at(id, CAST(%s AS BIGINT)), "
                                + "CONCAT('v', CAST(id AS STRING)), 1 FROM range(1, %s, 1, 2)")
                        .formatted(name, ROWS, ROWS + 1)),
                background);
        if (!Pause.awaitPaused()) {
            Pause.resume();
            throw new AssertionError("the insert did not reach row " + ROWS + ": " + insert);
        }
        // waits for an event (the other task's segments), not a time; the bound keeps a broken test from hanging
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (stagedSegments(table).isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(stagedSegments(table)).isNotEmpty();
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

    private static List<Path> stagedSegments(LakestreamTable table) throws IOException {
        LogSnapshot snapshot = table.log().latestSnapshot();
        Set<Path> committed = new HashSet<>();
        for (int bucket = 0; bucket < snapshot.bucketCount(); bucket++) {
            snapshot.bucket(bucket)
                    .segments()
                    .forEach(segment -> committed.add(
                            LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path()))));
        }
        List<Path> staged = new ArrayList<>();
        try (Stream<Path> files =
                Files.walk(LocalLogFileSystem.toPath(table.log().paths().root()))) {
            files.filter(path -> path.toString().endsWith(".arrow") && !committed.contains(path))
                    .forEach(staged::add);
        }
        return staged;
    }

    private static List<Path> leaseFiles(LakestreamTable table) throws IOException {
        Path directory = LocalLogFileSystem.toPath(table.log().paths().leasesDirectory());
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(path -> path.toString().endsWith(".json")).toList();
        }
    }

    /** {@code pause_at(x, n)}: returns {@code x}; the call with {@code x = n} blocks until the test resumes it. */
    static final class Pause {
        private static volatile long pauseAt = -1;
        private static volatile CountDownLatch paused = new CountDownLatch(1);
        private static volatile CountDownLatch resumed = new CountDownLatch(1);

        private Pause() {}

        static void arm(long value) {
            paused = new CountDownLatch(1);
            resumed = new CountDownLatch(1);
            pauseAt = value;
        }

        static boolean awaitPaused() throws InterruptedException {
            return paused.await(2, TimeUnit.MINUTES);
        }

        static void resume() {
            pauseAt = -1;
            resumed.countDown();
        }

        static Long pauseAt(Long value, Long at) throws InterruptedException {
            if (value.equals(at) && value == pauseAt) {
                paused.countDown();
                // bounded, so a failed test cannot hang the build
                resumed.await(2, TimeUnit.MINUTES);
            }
            return value;
        }
    }
}
