package io.lakestream.sqltests.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * When the soak injects which fault, drawn from the seed before the run starts (so a seed names the
 * same schedule every time): SIGKILLs of slots at random moments (exponentially distributed gaps), with
 * a budget for the engine slots, whose restart costs seconds; and the disk-full episodes. Every engine
 * slot is killed as often as its budget allows, however short the run: the test's short run must kill
 * Trino and Spark as the long one does (a kill the random draw did not place goes at a random moment in
 * the first 60% of the run, so that the restart is over before the faults stop).
 */
record FaultPlan(List<Kill> kills, List<DiskFull> diskFulls) {
    record Kill(long atMillis, String slot) {}

    /** The warehouse's file system is full from {@code atMillis} for {@code holdMillis}. */
    record DiskFull(long atMillis, long holdMillis) {}

    FaultPlan {
        kills = List.copyOf(kills);
        diskFulls = List.copyOf(diskFulls);
    }

    /**
     * @param cheapSlots slots that restart in about a second (Java writers, tiering services)
     * @param engineSlots slots that restart in several seconds (Trino, Spark): {@code engineKills} kills each
     */
    static FaultPlan draw(
            Random random,
            Duration run,
            Duration meanKillGap,
            List<String> cheapSlots,
            List<String> engineSlots,
            int engineKills,
            int diskFullEpisodes) {
        List<Kill> kills = new ArrayList<>();
        Map<String, Integer> engineKillsLeft = new HashMap<>();
        engineSlots.forEach(slot -> engineKillsLeft.put(slot, engineKills));
        long end = run.toMillis() - 5_000;
        long at = 3_000;
        while (true) {
            at += (long) (-Math.log(1 - random.nextDouble()) * meanKillGap.toMillis());
            if (at >= end) {
                break;
            }
            List<String> engines = engineSlots.stream()
                    .filter(slot -> engineKillsLeft.get(slot) > 0)
                    .toList();
            String victim;
            if (!engines.isEmpty() && random.nextInt(100) < 30) {
                victim = engines.get(random.nextInt(engines.size()));
                engineKillsLeft.merge(victim, -1, Integer::sum);
            } else {
                victim = cheapSlots.get(random.nextInt(cheapSlots.size()));
            }
            kills.add(new Kill(at, victim));
        }
        List<DiskFull> diskFulls = new ArrayList<>();
        for (int episode = 0; episode < diskFullEpisodes; episode++) {
            // within the first 60% of its share of the run, so that the slots have time to show they recovered
            long share = run.toMillis() / diskFullEpisodes;
            long start = episode * share + (long) ((0.2 + 0.4 * random.nextDouble()) * share);
            diskFulls.add(new DiskFull(start, 3_000 + random.nextInt(5_000)));
        }
        long latestEngineKill = Math.max(3_001, run.toMillis() * 6 / 10);
        for (String engine : engineSlots) {
            for (int left = engineKillsLeft.get(engine); left > 0; left--) {
                kills.add(new Kill(random.nextLong(3_000, latestEngineKill), engine));
            }
        }
        kills.sort(Comparator.comparingLong(Kill::atMillis));
        return new FaultPlan(kills, diskFulls);
    }
}
