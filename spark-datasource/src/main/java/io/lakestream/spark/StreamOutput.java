package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;

import io.lakestream.common.LakestreamException;
import java.util.Locale;
import java.util.Map;

/**
 * What the rows of a stream are. An append-only table {@code t} streams its rows; the changelog {@code
 * t$changes} streams, by option {@value #OPTION}:
 *
 * <ul>
 *   <li>{@code log} (default): exactly the rows of {@code t$changes}, as every engine shows them ({@code
 *       upsert} and {@code delete} on a primary-key table, {@code insert} on an append-only one);
 *   <li>{@code changelog}: on a primary-key table, each change with its effect on the table: {@code
 *       insert} (the key was absent), {@code update_before} (the replaced row) followed by {@code
 *       update_after}, {@code delete} (with the removed row); a delete of an absent key emits nothing;
 *   <li>{@code upsert}: on a primary-key table, the last change of each key in each micro-batch, as
 *       {@code upsert} or {@code delete} (key columns only).
 * </ul>
 */
enum StreamOutput {
    ROWS,
    LOG,
    CHANGELOG,
    UPSERT;

    static final String OPTION = "stream.output";

    /** @param options the read options (case-insensitive keys, lower-cased) */
    static StreamOutput resolve(
            String tableName, boolean changesView, boolean primaryKey, Map<String, String> options) {
        String value = options.get(OPTION);
        if (!changesView) {
            if (value != null) {
                throw new LakestreamException(
                        INVALID_READ_OPTIONS,
                        "Stream option '%s' applies to a changelog stream (`%s$changes`, or read-mode=changes); the stream of %s returns its rows"
                                .formatted(OPTION, tableName, tableName));
            }
            return ROWS;
        }
        StreamOutput output = parse(value == null ? "log" : value);
        if (output == UPSERT && !primaryKey) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "Stream option '%s' = 'upsert' needs a primary key, and %s has none: its changelog holds only inserts (use 'log')"
                            .formatted(OPTION, tableName));
        }
        // an append-only table's changes are all inserts: its changelog is its log
        return output == CHANGELOG && !primaryKey ? LOG : output;
    }

    private static StreamOutput parse(String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "log" -> LOG;
            case "changelog" -> CHANGELOG;
            case "upsert" -> UPSERT;
            default ->
                throw new LakestreamException(
                        INVALID_READ_OPTIONS,
                        "Stream option '%s' must be one of log (the rows of t$changes), changelog (insert, update_before, update_after, delete) or upsert (the last change per key in each batch), but was '%s'"
                                .formatted(OPTION, value));
        };
    }

    /** Whether rows carry the change columns. */
    boolean changeColumns() {
        return this != ROWS;
    }

    /** Whether a log range is read per key (the changelog's images, or the last change per key), not as it is. */
    boolean byKey() {
        return this == CHANGELOG || this == UPSERT;
    }

    /** The change type of the rows of a {@code full} start's state on the changelog. */
    String stateChangeType(boolean primaryKey) {
        if (!primaryKey) {
            return "insert";
        }
        return this == CHANGELOG ? "insert" : "upsert";
    }
}
