package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.CommitConflictCheck;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.PartitionDeleteFence;
import java.util.OptionalLong;
import org.apache.iceberg.expressions.Expression;

/**
 * What a row-level operation read, for its conflict check: the log version its scan read, a filter every row it
 * read through its condition satisfies, and the lake snapshot the scan read.
 *
 * @param logVersion the log version the operation's scan read
 * @param condition the filter the scan applied ({@code alwaysTrue} when unknown)
 * @param readRows whether a scan was planned (else the operation read no row)
 * @param lakeSnapshotId the lake snapshot the scan read; empty for an empty lake or when it read no row
 */
record LakestreamRowLevelRead(long logVersion, Expression condition, boolean readRows, OptionalLong lakeSnapshotId) {
    LakestreamRowLevelRead {
        requireNonNull(condition, "condition is null");
        requireNonNull(lakeSnapshotId, "lakeSnapshotId is null");
    }

    /** {@code rows} (the row check), and no partition delete the read did not see (docs/writes.md). */
    CommitConflictCheck check(LakestreamTable table, CommitConflictCheck rows) {
        return readRows
                ? PartitionDeleteFence.afterReading(table, lakeSnapshotId, condition, rows)
                : PartitionDeleteFence.afterReadingNothing(table, logVersion, rows);
    }
}
