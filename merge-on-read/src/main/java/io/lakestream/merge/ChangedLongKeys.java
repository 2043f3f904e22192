package io.lakestream.merge;

import io.lakestream.table.LakestreamTable;
import java.util.List;

/**
 * The keys a log tail changes ({@link ChangedKeys}) when the primary key is one {@code int},
 * {@code long} or {@code date} column, whose values every engine holds as the same integer (unlike
 * time and timestamp, whose units differ by engine): primitive longs in a {@link LongKeyIndex}.
 */
public final class ChangedLongKeys implements ChangedKeys {
    private final LongKeyIndex index;
    /** The keys in order, made when rows with ascending keys first come (a sorted lake); one split's thread reads them. */
    private AscendingLongKeys ascending;

    private long rowsInKeyOrder;

    ChangedLongKeys(LongKeyIndex index) {
        this.index = index;
    }

    /**
     * A set of keys from another source than a log tail, matched against lake rows the same way: the keys of
     * Iceberg equality delete files on the primary key. The values of {@code keys} are ignored.
     */
    public static ChangedLongKeys of(LongKeyIndex keys) {
        return new ChangedLongKeys(keys);
    }

    /** True if the table's primary key is one column these keys can hold. */
    public static boolean supports(LakestreamTable table) {
        List<String> key = table.definition().primaryKey();
        if (key.size() != 1) {
            return false;
        }
        return switch (table.definition()
                .schema()
                .findField(key.getFirst())
                .type()
                .typeId()) {
            case INTEGER, LONG, DATE -> true;
            default -> false;
        };
    }

    @Override
    public int size() {
        return index.size();
    }

    /**
     * Narrows {@code positions[0, size)} in place to those whose key the tail does not change; returns
     * how many remain. Position {@code p}'s key is {@code keys[p]}. Positions whose keys ascend (a lake
     * file written in key order) are merged with the changed keys in order; others are probed in the
     * hash index.
     */
    public int retainUnchanged(long[] keys, int[] positions, int size) {
        if (size >= AscendingLongKeys.MIN_ROWS && AscendingLongKeys.ascending(keys, positions, size)) {
            if (ascending == null) {
                ascending = new AscendingLongKeys(index.sortedKeys());
            }
            rowsInKeyOrder += size;
            return ascending.retainAbsent(keys, positions, size);
        }
        return index.retainAbsent(keys, positions, size);
    }

    /**
     * The rows of {@code keys[from, to)}, whose keys the caller knows to ascend (a lake file written in key
     * order, checked once), whose key the tail does not change, written into {@code kept} as offsets from
     * {@code from} (a page's positions when the page is rows {@code [from, to)} of the file); returns how many.
     * The changed keys are found among the rows by galloping searches, without comparing every row.
     */
    public int retainUnchangedInAscendingRange(long[] keys, int from, int to, int[] kept) {
        if (ascending == null) {
            ascending = new AscendingLongKeys(index.sortedKeys());
        }
        rowsInKeyOrder += to - from;
        return ascending.retainAbsentInRange(keys, from, to, kept);
    }

    /** True if {@code keys} never descend along the array. */
    public static boolean ascending(long[] keys) {
        for (int i = 1; i < keys.length; i++) {
            if (keys[i] < keys[i - 1]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Rows {@link #retainUnchanged} and {@link #retainUnchangedInAscendingRange} have merged in key order so far (the
     * rest were probed in the hash index).
     */
    public long rowsInKeyOrder() {
        return rowsInKeyOrder;
    }
}
