package io.lakestream.sqltests.soak;

import static io.lakestream.sqltests.soak.Violations.Kind.DUPLICATED;
import static io.lakestream.sqltests.soak.Violations.Kind.LOST;
import static io.lakestream.sqltests.soak.Violations.Kind.LOST_UPDATE;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The figures of a soak run and what it found; {@link #passed} only without a single violation. */
record SoakReport(SoakOptions options, Tally tally, Violations violations, List<String> skews, long elapsedNanos) {
    boolean passed() {
        return violations.isEmpty();
    }

    String text() {
        StringBuilder text = new StringBuilder();
        text.append("Lakestream soak, seed %d: %d s of faults, %d s in all; output in %s%n"
                .formatted(
                        options.seed(),
                        options.duration().toSeconds(),
                        elapsedNanos / 1_000_000_000L,
                        options.output()));
        text.append("  replay: -Dsoak.seed=%d (test) or ./lakestream bench soak --seed %d --minutes N%n"
                .formatted(options.seed(), options.seed()));
        long ok = sum("operations ok: ");
        long failed = sum("operations failed: ");
        long unknown = sum("operations unknown (killed): ");
        text.append(
                "operations: %d acknowledged, %d failed, %d unknown (process killed)%n".formatted(ok, failed, unknown));
        section(text, "  acknowledged", tally.withPrefix("operations ok: "));
        section(text, "  failed", tally.withPrefix("operations failed: "));
        section(text, "  unknown", tally.withPrefix("operations unknown (killed): "));
        text.append(
                "  java writes: %d attempts failed and were retried with the same key, %d retried after a kill, %d retries found already applied%n"
                        .formatted(
                                tally.get("java attempts failed (retried with the same key)"),
                                tally.get("java writes retried after a kill"),
                                tally.get("java retries found already applied")));
        Map<String, Long> kills = tally.withPrefix("kills: ");
        text.append("kills (SIGKILL): %d %s, %d skipped (slot restarting)%n"
                .formatted(
                        kills.values().stream().mapToLong(Long::longValue).sum(),
                        kills,
                        tally.get("kills skipped (the slot was restarting)")));
        Map<String, Long> starts = tally.withPrefix("starts: ");
        text.append("process starts: %s, mean start ms %s%n"
                .formatted(
                        starts,
                        tally.withPrefix("start ms: ").entrySet().stream()
                                .collect(Collectors.toMap(
                                        Map.Entry::getKey,
                                        entry -> entry.getValue()
                                                / Math.max(1, starts.getOrDefault(entry.getKey(), 1L))))));
        text.append("faults: disk full %d time(s) for %d ms in all%s; clock skew: %s%n"
                .formatted(
                        tally.get("disk-full episodes"),
                        tally.get("disk-full ms"),
                        options.diskFull() ? " (" + options.tmpfsMegabytes() + " MB tmpfs)" : " (off)",
                        skews));
        text.append("tiering: rounds %s; %s%n"
                .formatted(tally.withPrefix("tiering rounds: "), tally.withPrefix("tiering: ")));
        text.append("checked: %d reads during the run (%d rows), %d final reads (%d rows)%n"
                .formatted(
                        tally.get("reads checked (during the run)"), tally.get("rows checked (during the run)"),
                        tally.get("reads checked (final)"), tally.get("rows checked (final)")));
        text.append(
                "reads refused with LOG_RANGE_REMOVED (retention under the read): %d; reads failed while the disk was full: %d%n"
                        .formatted(
                                tally.get("reads refused: LOG_RANGE_REMOVED (retention ran under the read)"),
                                tally.get("reads failed while the disk was full")));
        // the final reads give each loss once; reads during the run see the same loss again and again
        text.append(
                "final reads: lost %d, duplicated %d, lost updates %d (reads during the run: lost %d, duplicated %d, lost updates %d)%n"
                        .formatted(
                                violations.finalCount(LOST),
                                violations.finalCount(DUPLICATED),
                                violations.finalCount(LOST_UPDATE),
                                violations.count(LOST) - violations.finalCount(LOST),
                                violations.count(DUPLICATED) - violations.finalCount(DUPLICATED),
                                violations.count(LOST_UPDATE) - violations.finalCount(LOST_UPDATE)));
        text.append(passed() ? "RESULT: PASSED, no violation\n" : "RESULT: FAILED\n" + violations.describe());
        return text.toString();
    }

    private long sum(String prefix) {
        return tally.withPrefix(prefix).values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    private static void section(StringBuilder text, String title, Map<String, Long> counts) {
        if (!counts.isEmpty()) {
            text.append(title).append(": ").append(counts).append('\n');
        }
    }
}
