package io.lakestream.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.benchmarks.LogCommitBenchmark.Round;
import io.lakestream.benchmarks.LogCommitBenchmark.Store;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The log commit benchmark at tiny sizes (what {@code ./lakestream bench log-commits} runs, against S3Mock and
 * the local disk): it completes, every acknowledged commit is counted once, and the log holds every row. Never
 * a speed.
 */
class TestLogCommitBenchmark {
    @Test
    void everyCommitOfConcurrentWritersIsCountedOnBothStores() throws Exception {
        LogCommitBenchmark.Options options =
                LogCommitBenchmark.Options.parse(new String[] {"--commits", "4", "--rows", "3", "--rounds", "1"});
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<Round> rounds =
                LogCommitBenchmark.measure(options, new PrintStream(printed, true, StandardCharsets.UTF_8));

        assertThat(rounds)
                .extracting(round -> round.store() + "/" + round.writers())
                .containsExactlyInAnyOrder("LOCAL/1", "S3/1", "LOCAL/2", "S3/2", "LOCAL/4", "S3/4");
        assertThat(rounds).allSatisfy(round -> {
            assertThat(round.commits()).isEqualTo(round.writers() * 4L);
            assertThat(round.latestVersion()).isEqualTo(round.commits());
            assertThat(round.rowsWritten()).isEqualTo(round.commits() * 3);
            assertThat(round.rowsInLog()).isEqualTo(round.rowsWritten());
            // every commit was published by at least one conditional create; each lost race is one more attempt
            assertThat(round.publishAttempts()).isGreaterThanOrEqualTo(round.commits() + round.lostRaces());
            assertThat(round.seconds()).isPositive();
        });
        assertThat(rounds.stream().filter(round -> round.writers() == 1))
                .allSatisfy(round -> assertThat(round.lostRaces()).isZero());
        assertThat(printed.toString(StandardCharsets.UTF_8))
                .contains("Log commits per second", Store.S3.label(), Store.LOCAL.label());
    }
}
