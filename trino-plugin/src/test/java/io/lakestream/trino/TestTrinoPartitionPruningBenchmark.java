package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.trino.TrinoPartitionPruningBenchmark.DayResult;
import io.lakestream.trino.TrinoPartitionPruningBenchmark.Options;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A smoke test of the partition pruning benchmark with a few rows over four days: the program runs, the union read
 * of a day returns what the stock connector returns on the compacted copy (the program checks it), and the bytes it
 * counts show the pruning: a day of the lake opens a fraction of the full scan's lake bytes, and the log tail is
 * counted apart.
 */
class TestTrinoPartitionPruningBenchmark {
    @Test
    void smallRun(@TempDir Path warehouse) throws Exception {
        Options options = Options.parse(new String[] {
            "--days",
            "4",
            "--rows-per-day",
            "300",
            "--tail-rows",
            "40",
            "--buckets",
            "1",
            "--warmup",
            "0",
            "--rounds",
            "1"
        });
        List<DayResult> results = TrinoPartitionPruningBenchmark.run(warehouse, options, System.err);

        assertThat(results).extracting(DayResult::day).containsExactly("2026-11-04", "2026-11-03");
        DayResult tailDay = results.get(0);
        DayResult lakeDay = results.get(1);
        assertThat(tailDay.rows().getMaterializedRows().getFirst().getField(0)).isEqualTo(340L);
        assertThat(lakeDay.rows().getMaterializedRows().getFirst().getField(0)).isEqualTo(300L);
        assertThat(lakeDay.fullBytes().lake()).isPositive();
        assertThat(lakeDay.dayBytes().lake() * 2)
                .as("one day of four opens less than half the lake bytes")
                .isPositive()
                .isLessThan(lakeDay.fullBytes().lake());
        assertThat(tailDay.fullBytes().log())
                .as("the log tail is counted apart")
                .isPositive();
        assertThat(tailDay.dayBytes().log()).isPositive();
        assertThat(tailDay.bytesRatio()).isLessThan(1.0);
        assertThat(lakeDay.lakeBytesRatio()).isLessThan(0.5);
        assertThat(tailDay.oursSeconds()).isPositive();
        assertThat(tailDay.stockSeconds()).isPositive();
    }
}
