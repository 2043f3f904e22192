package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import java.util.OptionalLong;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * How to read a table.
 *
 * @param mode union (default), lake or changes
 * @param logVersion read as of this log version (time travel); empty means the newest
 * @param asOfTimestampMillis read as of this time: the newest log version committed at or before it
 * @param changesAfterVersion for {@link ReadMode#CHANGES}: only changes committed after this log version
 * @param filter a filter in Iceberg's expression language; used for pruning (files, row groups,
 *     buckets) and applied to rows; engines re-apply whatever they did not hand over exactly
 */
public record ReadOptions(
        ReadMode mode,
        OptionalLong logVersion,
        OptionalLong asOfTimestampMillis,
        OptionalLong changesAfterVersion,
        Expression filter) {
    public static final ReadOptions UNION = new ReadOptions(
            ReadMode.UNION, OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), Expressions.alwaysTrue());

    public ReadOptions {
        requireNonNull(mode, "mode is null");
        requireNonNull(logVersion, "logVersion is null");
        requireNonNull(asOfTimestampMillis, "asOfTimestampMillis is null");
        requireNonNull(changesAfterVersion, "changesAfterVersion is null");
        requireNonNull(filter, "filter is null");
    }

    public static ReadOptions of(ReadMode mode) {
        return UNION.withMode(mode);
    }

    public ReadOptions withMode(ReadMode newMode) {
        return new ReadOptions(newMode, logVersion, asOfTimestampMillis, changesAfterVersion, filter);
    }

    public ReadOptions withFilter(Expression newFilter) {
        return new ReadOptions(mode, logVersion, asOfTimestampMillis, changesAfterVersion, newFilter);
    }

    public ReadOptions atLogVersion(long version) {
        return new ReadOptions(mode, OptionalLong.of(version), asOfTimestampMillis, changesAfterVersion, filter);
    }

    public ReadOptions asOfTimestamp(long timestampMillis) {
        return new ReadOptions(mode, logVersion, OptionalLong.of(timestampMillis), changesAfterVersion, filter);
    }

    public ReadOptions changesAfter(long version) {
        return new ReadOptions(mode, logVersion, asOfTimestampMillis, OptionalLong.of(version), filter);
    }
}
