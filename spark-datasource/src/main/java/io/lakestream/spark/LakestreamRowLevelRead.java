package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import org.apache.iceberg.expressions.Expression;

/**
 * What a row-level operation read, for its conflict check: the log version its scan read and a
 * filter every row it read through its condition satisfies.
 *
 * @param logVersion the log version the operation's scan read
 * @param condition the filter the scan applied ({@code alwaysTrue} when unknown)
 */
record LakestreamRowLevelRead(long logVersion, Expression condition) {
    LakestreamRowLevelRead {
        requireNonNull(condition, "condition is null");
    }
}
