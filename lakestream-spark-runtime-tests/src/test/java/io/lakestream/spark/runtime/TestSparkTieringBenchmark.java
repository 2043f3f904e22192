package io.lakestream.spark.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CI smoke run of {@link SparkTieringBenchmark}: a tiny backlog (2,000 changes, the job on {@code local[2]}) unless
 * {@value SparkTieringBenchmark#CHANGES_PROPERTY} is set, which makes this the benchmark run; both contenders tier it to
 * the same offsets and the same lake rows (checked inside the run), and every rate is measured.
 */
class TestSparkTieringBenchmark {
    @Test
    void tiersTheSameBacklogBothWays() throws Exception {
        Long changes = Long.getLong(SparkTieringBenchmark.CHANGES_PROPERTY);
        // the smoke run: local[2] (reported as 0 executors); the benchmark run: local-cluster with 2, then 1 executor
        List<Integer> executors = changes == null ? List.of() : List.of(2, 1);
        SparkTieringBenchmark.Result result = SparkTieringBenchmark.run(changes == null ? 2_000L : changes, executors);
        System.out.println("SparkTieringBenchmark: " + result.describe());
        assertThat(result.embeddedRowsPerSecond()).isPositive();
        assertThat(result.jobRowsPerSecond())
                .containsOnlyKeys(executors.isEmpty() ? List.of(0) : executors)
                .allSatisfy((count, rate) -> assertThat(rate).isPositive());
    }
}
