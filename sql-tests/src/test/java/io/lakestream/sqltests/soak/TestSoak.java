package io.lakestream.sqltests.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The short soak of the test suite (docs/reliability-soak.md): about two and a half minutes of faults
 * with every kind of process and fault, then the final checks. Replay a seed with {@code
 * -Dsoak.seed=N}; {@code -Dsoak.seconds=N} runs longer.
 */
final class TestSoak {
    private static final long DEFAULT_SEED = 18;

    @Test
    void everyAcknowledgedCommitVisibleExactlyOnceUnderFaults() throws Exception {
        long seed = Long.getLong("soak.seed", DEFAULT_SEED);
        SoakOptions options = SoakOptions.ci(
                        seed, Path.of("target", "soak", "seed-" + seed).toAbsolutePath())
                .withDiskFull(!"false".equals(System.getProperty("soak.disk-full")));
        if (System.getProperty("soak.seconds") != null) {
            options = options.withDuration(java.time.Duration.ofSeconds(Long.getLong("soak.seconds")));
        }
        SoakReport report = new SoakRun(options).run();
        System.out.println(report.text());
        assertThat(report.passed())
                .as("soak (seed %d) found violations:%n%s", seed, report.text())
                .isTrue();
    }
}
