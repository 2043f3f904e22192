package io.lakestream.sqltests.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The test's short soak ({@link SoakOptions#ci}) must inject every kind of fault the long one does: both engines
 * killed (as often as their budget says), the writers and tiering services killed, the disk filled; whatever the
 * seed. A short run that left an engine alive would prove less while still passing.
 */
final class TestFaultPlan {
    private static final List<String> CHEAP_SLOTS = List.of("tiering-0", "tiering-1", "writer-0", "writer-1");
    private static final List<String> ENGINE_SLOTS = List.of("trino", "spark");

    @Test
    void theShortRunKillsEveryKindOfSlotAndFillsTheDisk() {
        for (long seed = 0; seed < 200; seed++) {
            SoakOptions options = SoakOptions.ci(seed, Path.of("unused"));
            FaultPlan plan = draw(seed, options);
            long runMillis = options.duration().toMillis();
            for (String engine : ENGINE_SLOTS) {
                assertThat(plan.kills().stream().filter(kill -> kill.slot().equals(engine)))
                        .as("seed %d: kills of %s in %s", seed, engine, plan)
                        .hasSize(options.engineKills());
            }
            assertThat(plan.kills().stream().map(FaultPlan.Kill::slot).filter(CHEAP_SLOTS::contains))
                    .as("seed %d: kills of writers and tiering services in %s", seed, plan)
                    .isNotEmpty();
            assertThat(plan.kills())
                    .as("seed %d: kills in the order they happen, all within the run", seed)
                    .isSortedAccordingTo((a, b) -> Long.compare(a.atMillis(), b.atMillis()))
                    .allMatch(kill -> kill.atMillis() >= 3_000 && kill.atMillis() < runMillis);
            assertThat(plan.diskFulls())
                    .as("seed %d: disk-full episodes", seed)
                    .hasSize(options.diskFullEpisodes())
                    .allMatch(episode -> episode.atMillis() + episode.holdMillis() < runMillis);
        }
    }

    @Test
    void engineKillsTheDrawDidNotPlaceComeEarlyEnoughToRestartWithinTheRun() {
        for (long seed = 0; seed < 200; seed++) {
            SoakOptions options = SoakOptions.ci(seed, Path.of("unused"));
            FaultPlan plan = draw(seed, options);
            long latest = options.duration().toMillis() - 5_000;
            assertThat(plan.kills())
                    .as("seed %d: every kill before the last 5 s of the run", seed)
                    .allMatch(kill -> kill.atMillis() < latest);
        }
    }

    @Test
    void theSameSeedDrawsTheSamePlan() {
        SoakOptions options = SoakOptions.ci(18, Path.of("unused"));
        assertThat(draw(18, options)).isEqualTo(draw(18, options));
    }

    private static FaultPlan draw(long seed, SoakOptions options) {
        return FaultPlan.draw(
                new Random(seed),
                options.duration(),
                options.meanKillGap(),
                CHEAP_SLOTS,
                ENGINE_SLOTS,
                options.engineKills(),
                options.diskFullEpisodes());
    }
}
