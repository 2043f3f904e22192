package io.lakestream.tiering.orphan;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringConfig;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orphan sweep of the tiering service: for each table, at most once per {@link
 * TieringConfig#orphanSweepInterval}, removes log files no commit references that are older than {@link
 * TieringConfig#orphanAge} ({@link LogOrphanSweeper}) and lake files no retained metadata references that
 * are older than {@link TieringConfig#lakeOrphanAge} ({@link LakeOrphanSweeper}). The first round of a
 * table in a (re)started service sweeps it, so files of a crash before the restart go soon.
 *
 * <p>The log is swept only where this process can publish log commits: a sweep deletes staged segments
 * only after publishing a commit that records them (docs/format.md), and a log this process can only read
 * (e.g. on {@code s3a:} through Hadoop, written by Trino) may have live writers that nothing else would
 * protect. The lake is swept either way: lake files are never named by log commits, so whether this
 * process can write the log says nothing about whether a lake commit in progress may still name a file;
 * their age alone protects them (docs/tiering.md, "Orphan files").
 */
public final class OrphanSweeper {
    private static final Logger log = LoggerFactory.getLogger(OrphanSweeper.class);

    private final TieringConfig config;
    private final Clock clock;
    private final Map<String, Long> lastSweepMillis = new ConcurrentHashMap<>();
    /** Per table: the writer leases seen at earlier sweeps, to tell expired ones by this service's clock. */
    private final Map<String, WriterLeaseObservations> leases = new ConcurrentHashMap<>();

    public OrphanSweeper(TieringConfig config, Clock clock) {
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Sweeps the table if it is due; returns the files removed. */
    public int sweepIfDue(LakestreamTable table) {
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

    public int sweep(LakestreamTable table, long nowMillis) {
        int removed = 0;
        if (table.log().fileSystem().canPublish(table.log().paths().root())) {
            WriterLeaseObservations observations =
                    leases.computeIfAbsent(table.lake().uuid().toString(), uuid -> new WriterLeaseObservations());
            removed += LogOrphanSweeper.sweep(
                    table.log(), nowMillis - config.orphanAge().toMillis(), observations, nowMillis);
        } else {
            log.debug(
                    "The log of {} at {} is not swept for orphans: this process cannot publish commits there",
                    table,
                    table.log().paths().root());
        }
        Optional<LakeFileListing> listing = LakeFileListing.of(table);
        if (listing.isEmpty()) {
            log.debug("The lake of {} is not swept for orphans: its file IO cannot list files", table);
            return removed;
        }
        return removed
                + LakeOrphanSweeper.sweep(
                        table.lake(),
                        listing.get(),
                        nowMillis - config.lakeOrphanAge().toMillis());
    }
}
