package io.lakestream.sqltests.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The short soak of the test suite (docs/reliability-soak.md): 75 s of faults with every kind of process
 * and fault, then the final checks. Replay a seed with {@code
 * -Dsoak.seed=N}; {@code -Dsoak.seconds=N} runs longer; {@code -Dsoak.minutes=N} runs the long program's
 * settings ({@code ./lakestream bench soak}) on this build's class path.
 */
final class TestSoak {
    private static final long DEFAULT_SEED = 18;

    @Test
    void everyAcknowledgedCommitVisibleExactlyOnceUnderFaults() throws Exception {
        long seed = Long.getLong("soak.seed", DEFAULT_SEED);
        Path output = Path.of("target", "soak", "seed-" + seed).toAbsolutePath();
        // -Dsoak.minutes=N: the long program's settings, run on this build's class path
        SoakOptions options = System.getProperty("soak.minutes") != null
                ? SoakOptions.longRun(seed, Duration.ofMinutes(Long.getLong("soak.minutes")), output)
                : SoakOptions.ci(seed, output);
        options = options.withDiskFull(!"false".equals(System.getProperty("soak.disk-full")));
        if (System.getProperty("soak.seconds") != null) {
            options = options.withDuration(Duration.ofSeconds(Long.getLong("soak.seconds")));
        }
        SoakReport report = new SoakRun(options).run();
        System.out.println(report.text());
        assertThat(report.passed())
                .as("soak (seed %d) found violations:%n%s", seed, report.text())
                .isTrue();
    }
}
