package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * What an overwrite replaces: the rows matching {@code filter} (all rows for {@code INSERT
 * OVERWRITE}) in the table state at a pinned log version. The commit deletes their keys as of that
 * version and publishes only if the log still ends where it did then, so a change committed in
 * between is never silently overwritten (nor a row it added silently kept).
 *
 * @param filter the rows to replace, exactly (Spark needs every matching row removed)
 * @param logVersion the pinned log version
 * @param logEnds every bucket's end offset at that version
 */
record LakestreamOverwrite(Expression filter, long logVersion, OffsetMap logEnds) {
    LakestreamOverwrite {
        requireNonNull(filter, "filter is null");
        requireNonNull(logEnds, "logEnds is null");
    }

    /** Pins the table's newest log version; the write's scan of the same table is planned at about the same time. */
    static LakestreamOverwrite pin(LakestreamTable table, Expression filter) {
        LogSnapshot snapshot = table.log().latestSnapshot();
        return new LakestreamOverwrite(filter, snapshot.version(), snapshot.endOffsets());
    }

    boolean replacesAll() {
        return filter.equals(Expressions.alwaysTrue());
    }

    String description() {
        return (replacesAll() ? "all rows" : "rows where " + filter) + " as of log version " + logVersion;
    }
}
