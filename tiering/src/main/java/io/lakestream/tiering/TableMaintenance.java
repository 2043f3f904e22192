package io.lakestream.tiering;

import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.orphan.OrphanSweeper;
import java.time.Clock;
import java.time.Duration;

/**
 * The tiering service's housekeeping for one table on demand (the Spark procedures {@code system.expire_log}
 * and {@code system.remove_orphans}): the same code the service runs after its rounds.
 */
public final class TableMaintenance {
    private TableMaintenance() {}

    /**
     * Log retention: removes the log segments the lake holds completely (below the lake's offsets) that were
     * committed before {@code now - retention}. Returns the segments removed.
     */
    public static int expireLog(LakestreamTable table, Duration retention, long nowMillis) {
        table.lake().refresh();
        return table.log()
                .removeSegments(LakePosition.current(table.lake()).offsets(), nowMillis - retention.toMillis());
    }

    /**
     * One orphan sweep of the log and the lake with {@code config}'s ages ({@code tiering.orphan-age},
     * {@code tiering.lake-orphan-age}). A sweep that starts afresh takes every writer lease it finds for live (it
     * would need a second look a lease timeout later to expire one), so it never removes a live write's segments.
     * Returns the files removed.
     */
    public static int removeOrphans(LakestreamTable table, TieringConfig config, Clock clock) {
        return new OrphanSweeper(config, clock).sweep(table, clock.millis());
    }
}
