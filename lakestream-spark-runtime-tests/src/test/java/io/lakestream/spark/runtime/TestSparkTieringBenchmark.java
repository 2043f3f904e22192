package io.lakestream.spark.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CI smoke run of {@link SparkTieringBenchmark}: a tiny backlog (2,000 changes, the job on {@code local[2]}) unless
 * {@value SparkTieringBenchmark#CHANGES_PROPERTY} is set, which makes this the benchmark run (options: {@link
 * SparkTieringBenchmark.Options#fromSystemProperties}); both contenders tier it to the same offsets and the same lake
 * rows (checked inside the run), and every rate is measured.
 */
class TestSparkTieringBenchmark {
    @Test
    void tiersTheSameBacklogBothWays() throws Exception {
        SparkTieringBenchmark.Options options = SparkTieringBenchmark.Options.fromSystemProperties();
        List<SparkTieringBenchmark.Result> results = SparkTieringBenchmark.run(options);
        assertThat(results).hasSize(options.repeats());
        for (SparkTieringBenchmark.Result result : results) {
            System.out.println("SparkTieringBenchmark: " + result.describe());
            assertThat(result.embeddedRowsPerSecond()).isPositive();
            assertThat(result.jobRowsPerSecond())
                    .containsOnlyKeys(options.clusters(0))
                    .allSatisfy((count, rate) -> assertThat(rate).isPositive());
        }
    }

    /** Repeats alternate which contender and which cluster size goes first. */
    @Test
    void repeatsAlternateTheOrder() {
        SparkTieringBenchmark.Options options = new SparkTieringBenchmark.Options(1_000, List.of(2, 1), 3);
        assertThat(options.clusters(0)).containsExactly(2, 1);
        assertThat(options.clusters(1)).containsExactly(1, 2);
        assertThat(options.clusters(2)).containsExactly(2, 1);
        assertThat(SparkTieringBenchmark.Options.jobFirst(0)).isTrue();
        assertThat(SparkTieringBenchmark.Options.jobFirst(1)).isFalse();
    }
}
