package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The smoke run of {@link LogSnapshotApplyBenchmark} ({@code ./lakestream bench snapshot-apply}): the harness was
 * generated and every benchmark replays its commits without an error, in this JVM, one short iteration on short
 * segment lists. It says nothing about speed.
 */
class TestLogSnapshotApplyBenchmark {
    @Test
    void everyBenchmarkRuns() throws RunnerException {
        Options options = new OptionsBuilder()
                .include("^" + LogSnapshotApplyBenchmark.class.getName() + "\\.")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(20))
                .param("segmentsPerBucket", "20")
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).hasSize(3);
        for (RunResult result : results) {
            assertThat(result.getPrimaryResult().getScore())
                    .as("score of %s", result.getParams().getBenchmark())
                    .isPositive();
        }
    }
}
