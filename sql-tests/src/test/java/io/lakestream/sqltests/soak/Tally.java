package io.lakestream.sqltests.soak;

import java.util.Map;
import java.util.TreeMap;

/** Named counts for the report's figures (operations by outcome, kills by slot, tiering outcomes, ...). */
final class Tally {
    private final Map<String, Long> counts = new TreeMap<>();

    synchronized void add(String name, long amount) {
        counts.merge(name, amount, Long::sum);
    }

    void increment(String name) {
        add(name, 1);
    }

    synchronized long get(String name) {
        return counts.getOrDefault(name, 0L);
    }

    /** The counts whose names start with the prefix, the prefix left off. */
    synchronized Map<String, Long> withPrefix(String prefix) {
        Map<String, Long> selected = new TreeMap<>();
        counts.forEach((name, count) -> {
            if (name.startsWith(prefix)) {
                selected.put(name.substring(prefix.length()), count);
            }
        });
        return selected;
    }
}
