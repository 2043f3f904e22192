package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The freshness benchmark at a tiny size, in the shape {@code ./lakestream bench freshness} runs by default (only
 * Trino in this JVM; the Java writer, Spark and the tiering service in child JVMs that acknowledge each write over
 * their standard output): it completes, and a union read saw every acknowledged commit, one Java writer commit and
 * one Spark {@code INSERT}. Never a speed.
 */
class TestFreshnessBenchmark {
    @Test
    void everyCommitOfBothChildWritersIsSeenByAUnionRead(@TempDir Path directory) throws Exception {
        Path trace = directory.resolve("trace.csv");

        List<Long> freshness = FreshnessBenchmark.run(new String[] {
            "--commits", "2", "--warmup", "1", "--warmup-max", "1", "--floor-samples", "2", "--trace", trace.toString()
        });

        assertThat(freshness).hasSize(2).allSatisfy(millis -> assertThat(millis).isNotNegative());
        // commit 0 by the Java writer child, commit 1 by the Spark child
        assertThat(Files.readAllLines(trace))
                .hasSize(2)
                .satisfiesExactly(
                        line -> assertThat(line).endsWith(",java"),
                        line -> assertThat(line).endsWith(",spark"));
    }
}
