package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.sqltests.S3UnionReadBenchmark.Measurement;
import io.lakestream.sqltests.S3UnionReadBenchmark.Options;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The S3 union read benchmark at tiny sizes (what {@code ./lakestream bench s3-union-read} runs: S3Mock, one Trino
 * with our connector and the stock Iceberg connector on S3 and on local disk): it completes, both sides of every
 * comparison of one state return the same rows, and every scan counts every row written. Never a speed.
 */
class TestS3UnionReadBenchmark {
    private static final int ROWS = 2_000;

    @Test
    void everyComparisonCompletesAndReadsEveryRowWritten() throws Exception {
        Options options = Options.parse(
                new String[] {"--rows", Integer.toString(ROWS), "--warmup-rounds", "0", "--warmup", "0", "--rounds", "1"
                });
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Measurement measurement =
                S3UnionReadBenchmark.measure(options, new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertThat(measurement.results()).hasSize(13);
        assertThat(measurement.results()).allSatisfy(result -> {
            assertThat(result.oursSeconds()).isPositive();
            assertThat(result.theirsSeconds()).isPositive();
        });
        // scans: one row, count(*) first; ours on S3 counts every row written in every section
        assertThat(measurement.results().stream()
                        .filter(result -> result.comparison().query().equals("scan 4 columns")))
                .hasSize(5)
                .allSatisfy(result -> {
                    assertThat(result.oursRows().getFirst().getField(0)).isEqualTo((long) ROWS);
                    assertThat(result.theirsRows().getFirst().getField(0)).isEqualTo((long) ROWS);
                });
        // the point lookup finds its key on every side
        assertThat(measurement.results().stream()
                        .filter(result -> result.comparison().query().equals("point lookup")))
                .hasSize(3)
                .allSatisfy(result -> {
                    assertThat(result.oursRows()).hasSize(1);
                    assertThat(result.theirsRows()).isEqualTo(result.oursRows());
                });
        // the read counters of the connector on S3 were read
        // (at most one catalog read per union read, even with no recent lake to reuse)
        assertThat(measurement.s3UnionReads()).isEqualTo(S3ReadComparisons.CATALOG_LOAD_QUERIES);
        assertThat(measurement.s3CatalogReads()).containsKeys("catalogReads", "logFileReads");
        assertThat(measurement.s3CatalogReads().get("catalogReads"))
                .isBetween(0L, (long) S3ReadComparisons.CATALOG_LOAD_QUERIES);
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("(1) compacted table on S3", "<=1.1");
    }
}
