package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A tiny run of {@link SparkStreamBenchmark}, so that the program keeps working (its figures mean nothing here). */
class TestSparkStreamBenchmark {
    @Test
    void smallRunMeasuresBothParts() throws Exception {
        SparkStreamBenchmark.Result result = SparkStreamBenchmark.run(new String[] {
            "--commits",
            "10",
            "--pace-ms",
            "20",
            "--rows",
            "4000",
            "--insert-commits",
            "2",
            "--warmup",
            "0",
            "--rounds",
            "1"
        });
        assertThat(result.commits()).isEqualTo(10);
        assertThat(result.p99Millis()).isGreaterThanOrEqualTo(result.p50Millis());
        assertThat(result.oursRows()).as("our stream read every row").isEqualTo(4000);
        assertThat(result.stockRows())
                .as("the stock Iceberg stream read every row")
                .isEqualTo(4000);
        assertThat(result.oursSeconds()).isPositive();
        assertThat(result.stockSeconds()).isPositive();
    }
}
