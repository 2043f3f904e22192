package io.lakestream.sqltests.soak;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What the soak found wrong, by kind: a count (rows for the row-level kinds, occurrences otherwise) and
 * the first descriptions of each kind for the report.
 */
final class Violations {
    enum Kind {
        /** An acknowledged change is missing. */
        LOST,
        /** A row (or key) is visible more than once. */
        DUPLICATED,
        /** A change of an operation that failed is visible. */
        FAILED_VISIBLE,
        /** Only part of one commit is visible. */
        TORN,
        /** A row no operation wrote, or one visible before its operation started. */
        PHANTOM,
        /** A primary-key row's value is none of those its owner's history allows. */
        WRONG_STATE,
        /** A counter is below its acknowledged increments. */
        LOST_UPDATE,
        /** A counter is above every increment that may have committed. */
        EXTRA_UPDATE,
        /** A read failed. */
        READ_ERROR,
        /**
         * An operation failed with {@code LOG_CORRUPT}: in ordinary operation (kills, a full disk, retention
         * under a running query) the log is never corrupt, so this is either lost data or a wrong diagnosis.
         */
        LOG_CORRUPT_ERROR,
        /** A child did not answer in time. */
        HANG,
        /** A tiering service stopped a table (or a pass failed outside a disk-full fault). */
        TIERING_STOPPED,
        /** The final tiering pass could not bring the lake up to the log. */
        FINAL_TIERING,
        /** A slot acknowledged nothing after the disk was freed, or in the last third of the run. */
        NO_PROGRESS,
        /** A child could not be (re)started. */
        START_FAILURE
    }

    private static final int DESCRIPTIONS_PER_KIND = 10;
    private static final int MAX_DESCRIPTION = 700;

    private final Map<Kind, Long> counts = new EnumMap<>(Kind.class);
    private final Map<Kind, Long> finalCounts = new EnumMap<>(Kind.class);
    private final Map<Kind, List<String>> descriptions = new EnumMap<>(Kind.class);
    private final Map<Kind, List<String>> finalDescriptions = new EnumMap<>(Kind.class);

    /** A violation found during the run (or outside the final reads). */
    synchronized void add(Kind kind, long count, String description) {
        add(kind, count, description, counts, descriptions);
    }

    /**
     * A violation found by a final read. Kept apart: reads during the run see the same lost row or update
     * again and again, while the final reads give each fault's figure once.
     */
    synchronized void addFinal(Kind kind, long count, String description) {
        add(kind, count, description, finalCounts, finalDescriptions);
    }

    private static void add(
            Kind kind, long count, String description, Map<Kind, Long> counts, Map<Kind, List<String>> descriptions) {
        counts.merge(kind, count, Long::sum);
        List<String> list = descriptions.computeIfAbsent(kind, ignored -> new ArrayList<>());
        if (list.size() < DESCRIPTIONS_PER_KIND) {
            // engine errors carry stack traces in their messages: the first lines say enough, the logs have the rest
            list.add(
                    description.length() > MAX_DESCRIPTION
                            ? description.substring(0, MAX_DESCRIPTION) + " ..."
                            : description);
        }
    }

    /** How much of the kind the final reads found. */
    synchronized long finalCount(Kind kind) {
        return finalCounts.getOrDefault(kind, 0L);
    }

    /** How much of the kind was found in all. */
    synchronized long count(Kind kind) {
        return counts.getOrDefault(kind, 0L) + finalCount(kind);
    }

    synchronized boolean isEmpty() {
        return counts.isEmpty() && finalCounts.isEmpty();
    }

    synchronized String describe() {
        StringBuilder text = new StringBuilder();
        describe(text, "final reads", finalCounts, finalDescriptions);
        describe(text, "during the run", counts, descriptions);
        return text.toString();
    }

    private static void describe(
            StringBuilder text, String phase, Map<Kind, Long> counts, Map<Kind, List<String>> descriptions) {
        counts.forEach((kind, count) -> {
            text.append(kind)
                    .append(" (")
                    .append(phase)
                    .append("): ")
                    .append(count)
                    .append('\n');
            for (String description : descriptions.get(kind)) {
                text.append("  - ").append(description).append('\n');
            }
        });
    }
}
