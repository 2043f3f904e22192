package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.log.LogSnapshot;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.LogFiles;
import io.lakestream.testing.PausePoint;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.trino.spi.Plugin;
import io.trino.spi.function.ScalarFunction;
import io.trino.spi.function.SqlType;
import io.trino.spi.type.StandardTypes;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A Trino {@code INSERT} that has staged segments when the tiering service's first sweep runs two hours
 * later (by the sweeper's clock, so the files look abandoned): the coordinator's writer lease keeps them
 * and the insert commits every row; before leases the sweep deleted them, the insert was acknowledged
 * and every read of the table failed. If the lease is lost (here: its file removed, as if it expired),
 * the sweep removes the segments and the insert fails with {@code LAKESTREAM_STAGED_SEGMENT_MISSING},
 * acknowledging nothing.
 *
 * <p>The insert reads an append-only source table of five log segments (Trino reads them as separate
 * pages) and is held in the middle by {@code pause_at(x, n)}, a test function that blocks the driver
 * evaluating row {@code n} (in the last segment) until the test lets it go; the rows before it reach the
 * page sink meanwhile, which stages them in segment files.
 */
final class TestLakestreamWriteLeases extends AbstractLakestreamSqlTest {
    private static final int ROWS = 5_000;
    private static final long PAUSE_AT = 4_500;

    private final ExecutorService background = Executors.newCachedThreadPool();

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        QueryRunner runner = super.createQueryRunner();
        runner.installPlugin(new Plugin() {
            @Override
            public Set<Class<?>> getFunctions() {
                return Set.of(Pause.class);
            }
        });
        return runner;
    }

    @org.junit.jupiter.api.BeforeAll
    void createSource() {
        assertUpdate("CREATE TABLE source (x bigint) WITH (bucket_count = 1)");
        for (int first = 1; first <= ROWS; first += 1_000) {
            assertUpdate(
                    "INSERT INTO source SELECT x FROM UNNEST(sequence(%s, %s)) t(x)".formatted(first, first + 999),
                    1_000);
        }
    }

    @AfterAll
    void stopBackground() {
        background.shutdownNow();
    }

    @Test
    void anInsertWhoseStagedSegmentsLookAbandonedKeepsThemAndCommits() throws Exception {
        assertUpdate(
                "CREATE TABLE long_insert (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        LakestreamTable table = tables.load("long_insert");
        CompletableFuture<MaterializedResult> insert = pausedInsert("long_insert");
        try {
            assertThat(LogFiles.stagedSegments(table)).isNotEmpty();
            TieringResult round = sweepTwoHoursLater(table);
            assertThat(round.error()).isEmpty();
            assertThat(round.orphansRemoved()).isZero();
        } finally {
            PausePoint.resume();
        }
        assertThat(insert.get(2, TimeUnit.MINUTES).getUpdateCount()).hasValue(ROWS);

        assertQuery("SELECT count(*), sum(id) FROM long_insert", "VALUES (%s, %s)".formatted(ROWS, sum(ROWS)));
        tables.tier("long_insert");
        assertQuery("SELECT count(*) FROM \"long_insert$lake\"", "VALUES " + ROWS);
        assertThat(LogFiles.leaseFiles(table)).isEmpty();
    }

    @Test
    void anInsertWhoseLeaseWasLostFailsAndAcknowledgesNothing() throws Exception {
        assertUpdate(
                "CREATE TABLE lost_lease (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO lost_lease VALUES (-1, 'before')", 1);
        LakestreamTable table = tables.load("lost_lease");
        long before = table.log().latestSnapshot().version();
        CompletableFuture<MaterializedResult> insert = pausedInsert("lost_lease");
        try {
            assertThat(LogFiles.stagedSegments(table)).isNotEmpty();
            // the coordinator's lease is gone (as if it had expired): nothing protects the staged files
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

        LogSnapshot after = tables.load("lost_lease").log().latestSnapshot();
        assertThat(after.version()).isEqualTo(before + 1); // the sweep's commit only
        assertQuery("SELECT id, v FROM lost_lease", "VALUES (-1, 'before')");
        tables.tier("lost_lease");
        assertQuery("SELECT id FROM \"lost_lease$lake\"", "VALUES -1");
    }

    /** Starts the insert and returns once it is held at row {@link #PAUSE_AT} with segments staged. */
    private CompletableFuture<MaterializedResult> pausedInsert(String table) throws InterruptedException, IOException {
        PausePoint.arm(PAUSE_AT);
        CompletableFuture<MaterializedResult> insert = CompletableFuture.supplyAsync(
                () -> getQueryRunner()
                        .execute("INSERT INTO %s SELECT pause_at(x, %s), 'v' || CAST(x AS varchar) FROM source"
                                .formatted(table, PAUSE_AT)),
                background);
        if (!PausePoint.awaitPaused()) {
            PausePoint.resume();
            throw new AssertionError("the insert did not reach row " + PAUSE_AT + ": " + insert);
        }
        // the rows before the paused one are on their way to the sink: wait for its segment files (an event,
        // not a time; the bound only keeps a broken test from hanging)
        LakestreamTable target = tables.load(table);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (LogFiles.stagedSegments(target).isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
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
                            tables.allocator(),
                            threads,
                            TieringHooks.NONE,
                            Clock.offset(Clock.systemUTC(), Duration.ofHours(2)))
                    .tier(table);
        } finally {
            threads.shutdownNow();
        }
    }

    private static long sum(long n) {
        return n * (n + 1) / 2;
    }

    /** {@code pause_at(x, n)}: returns {@code x}; the call with the value the test armed blocks until it resumes. */
    public static final class Pause {
        private Pause() {}

        @ScalarFunction(value = "pause_at", deterministic = false)
        @SqlType(StandardTypes.BIGINT)
        public static long pauseAt(@SqlType(StandardTypes.BIGINT) long value, @SqlType(StandardTypes.BIGINT) long at) {
            return value == at ? PausePoint.reached(value) : value;
        }
    }
}
