package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.trino.RaceFunctions;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Snapshot isolation across engines: Trino and Spark update the same row of one table at the same
 * time. Each statement commits only if nothing it read changed since; a statement that loses is told
 * to retry and published nothing. Retried until each engine's increments all landed, the counter
 * holds every one of them. The random interleaving of the first test may or may not overlap; the
 * second makes Spark's write land inside Trino's statement every time ({@link RaceFunctions}).
 */
final class TestCrossEngineIsolation {
    private static final int INCREMENTS = Integer.getInteger("lakestream.test.increments", 8);

    private final CrossEngine engines = CrossEngine.get();

    @Test
    void trinoAndSparkIncrementingOneCounterLoseNoIncrement() throws Exception {
        String s = engines.createSchema("isolation");
        engines.trino("CREATE TABLE " + s + ".counter (id bigint, n bigint)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        engines.trino("INSERT INTO " + s + ".counter VALUES (1, 0), (2, 0)");
        String increment = "UPDATE " + s + ".counter SET n = n + 1 WHERE id = 1";

        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> trino = threads.submit(incrementer(engines::trino, increment));
            Future<Integer> spark = threads.submit(incrementer(engines::spark, increment));
            int conflicts = trino.get() + spark.get();
            List<List<Object>> expected = List.of(List.of(1L, 2L * INCREMENTS), List.of(2L, 0L));
            assertThat(engines.trino("SELECT id, n FROM " + s + ".counter ORDER BY id"))
                    .isEqualTo(expected);
            assertThat(engines.spark("SELECT id, n FROM " + s + ".counter ORDER BY id"))
                    .isEqualTo(expected);
            System.out.printf(
                    "%s increments by Trino and %s by Spark: %s conflicts retried%n",
                    INCREMENTS, INCREMENTS, conflicts);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void sparkUpdateBetweenTrinoUpdatesReadAndCommitMakesTrinoRetry() {
        String s = engines.createSchema("isolation_race");
        engines.installTrinoRace();
        engines.trino("CREATE TABLE " + s + ".counter (id bigint, n bigint)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        engines.trino("INSERT INTO " + s + ".counter VALUES (1, 0), (2, 0)");
        // Spark increments the counter after Trino's UPDATE read n = 0 and before it commits
        RaceFunctions.arm(() -> engines.spark("UPDATE " + s + ".counter SET n = n + 1 WHERE id = 1"));

        assertThatThrownBy(() -> engines.trino("UPDATE " + s + ".counter SET n = race(n) + 1 WHERE id = 1"))
                .hasMessageContaining("LOG_COMMIT_CONFLICT")
                .hasMessageContaining("retry the statement");
        assertThat(RaceFunctions.fired()).isTrue();
        // Spark's increment is there, Trino's published nothing; retried, Trino's lands on top
        assertThat(engines.spark("SELECT n FROM " + s + ".counter WHERE id = 1"))
                .isEqualTo(List.of(List.of(1L)));
        engines.trino("UPDATE " + s + ".counter SET n = n + 1 WHERE id = 1");
        List<List<Object>> expected = List.of(List.of(1L, 2L), List.of(2L, 0L));
        assertThat(engines.trino("SELECT id, n FROM " + s + ".counter ORDER BY id"))
                .isEqualTo(expected);
        assertThat(engines.spark("SELECT id, n FROM " + s + ".counter ORDER BY id"))
                .isEqualTo(expected);
    }

    /** Runs the statement {@link #INCREMENTS} times, retrying each conflict; returns how many it retried. */
    private static Callable<Integer> incrementer(Function<String, List<List<Object>>> engine, String statement) {
        return () -> {
            int conflicts = 0;
            for (int done = 0; done < INCREMENTS; ) {
                try {
                    engine.apply(statement);
                    done++;
                } catch (RuntimeException e) {
                    if (!String.valueOf(e.getMessage()).contains("LOG_COMMIT_CONFLICT")) {
                        throw e;
                    }
                    conflicts++;
                }
            }
            return conflicts;
        };
    }
}
