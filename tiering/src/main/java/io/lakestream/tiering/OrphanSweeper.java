package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.LakestreamTable;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The orphan sweep of the tiering service: for each table, at most once per {@link
 * TieringConfig#orphanSweepInterval}, removes log and lake files no commit references that are older than
 * {@link TieringConfig#orphanAge} ({@link LogOrphanSweeper}, {@link LakeOrphanSweeper}). The first round of
 * a table in a (re)started service sweeps it, so files of a crash before the restart go soon.
 */
final class OrphanSweeper {
    private final TieringConfig config;
    private final Clock clock;
    private final Map<String, Long> lastSweepMillis = new ConcurrentHashMap<>();

    OrphanSweeper(TieringConfig config, Clock clock) {
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Sweeps the table if it is due; returns the files removed. */
    int sweepIfDue(LakestreamTable table) {
        long now = clock.millis();
        String key = table.lake().uuid().toString();
        Long last = lastSweepMillis.get(key);
        if (last != null && now - last < config.orphanSweepInterval().toMillis()) {
            return 0;
        }
        int removed = sweep(table, now);
        // Only a completed sweep counts: a failed one is retried next round.
        lastSweepMillis.put(key, now);
        return removed;
    }

    int sweep(LakestreamTable table, long nowMillis) {
        long cutoff = nowMillis - config.orphanAge().toMillis();
        return LogOrphanSweeper.sweep(table.log(), cutoff) + LakeOrphanSweeper.sweep(table.lake(), cutoff);
    }
}
