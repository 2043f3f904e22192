package io.lakestream.spark;

import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StreamLog;
import java.util.OptionalLong;
import org.apache.spark.sql.connector.read.streaming.CompositeReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReadMaxFiles;
import org.apache.spark.sql.connector.read.streaming.ReadMaxRows;

/**
 * How far one micro-batch reads: whole log commits, at least one that adds rows, and no more than the
 * limits allow (rows summed over buckets, and over the buckets of every partition of a partitioned log; commits that add no rows, e.g. retention, are free). A commit
 * is never split, so a batch never shows half of one; a single commit larger than the row limit is a
 * batch of its own.
 *
 * @param maxRows most rows per batch, if limited
 * @param maxCommits most commits that add rows per batch, if limited
 */
record StreamAdmission(OptionalLong maxRows, OptionalLong maxCommits) {
    /** The limits Spark hands to {@code latestOffset}: ours from {@code getDefaultReadLimit}, or all available (Trigger.Once). */
    static StreamAdmission of(ReadLimit limit) {
        OptionalLong rows = OptionalLong.empty();
        OptionalLong commits = OptionalLong.empty();
        ReadLimit[] parts =
                limit instanceof CompositeReadLimit composite ? composite.getReadLimits() : new ReadLimit[] {limit};
        for (ReadLimit part : parts) {
            if (part instanceof ReadMaxRows maxRows) {
                rows = OptionalLong.of(maxRows.maxRows());
            } else if (part instanceof ReadMaxFiles maxFiles) {
                commits = OptionalLong.of(maxFiles.maxFiles());
            }
        }
        return new StreamAdmission(rows, commits);
    }

    /** The newest version after {@code fromVersion}, up to {@code newest}, that the limits admit. */
    LogSnapshot end(StreamLog log, long fromVersion, LogSnapshot newest) {
        if (maxRows.isEmpty() && maxCommits.isEmpty()) {
            return newest;
        }
        LogSnapshot previous = log.snapshot(fromVersion);
        LogSnapshot accepted = previous;
        long rows = 0;
        long commits = 0;
        for (long version = fromVersion + 1; version <= newest.version(); version++) {
            LogSnapshot next = version == newest.version() ? newest : log.snapshot(version);
            long added = addedRows(previous, next);
            previous = next;
            if (added > 0) {
                if (commits > 0 && (rows + added > maxRows.orElse(Long.MAX_VALUE))) {
                    break;
                }
                rows += added;
                commits++;
            }
            accepted = next;
            if (commits >= maxCommits.orElse(Long.MAX_VALUE)) {
                break;
            }
        }
        return accepted;
    }

    private static long addedRows(LogSnapshot before, LogSnapshot after) {
        // every bucket of every partition too; a partition new in after counts from offset 0
        return StreamRanges.rows(before.endOffsets(), after.endOffsets());
    }
}
