package io.lakestream.merge;

import io.lakestream.table.LakestreamTable;
import java.util.List;

/**
 * The keys a log tail changes ({@link ChangedKeys}) when the primary key is one {@code int},
 * {@code long} or {@code date} column, whose values every engine holds as the same integer (unlike
 * time and timestamp, whose units differ by engine): primitive longs, ascending ({@link
 * SortedLongChanges}). Lake rows in key order (a lake file written sorted by key) are merged with them
 * in order; for rows out of order a hash index of the keys is built on first need. Keys given as a hash
 * index ({@link #of}) are sorted on first need instead.
 */
public final class ChangedLongKeys implements ChangedKeys {
    /*
     * At least one of the two is set from the start; the other is made from it when rows first need it. One
     * split's thread reads them.
     */
    private AscendingLongKeys ascending;
    private LongKeyIndex hashed;

    private long rowsInKeyOrder;

    /** @param sortedKeys distinct and ascending (kept, not copied) */
    ChangedLongKeys(long[] sortedKeys) {
        this.ascending = new AscendingLongKeys(sortedKeys);
    }

    private ChangedLongKeys(LongKeyIndex keys) {
        this.hashed = keys;
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
        return ascending != null ? ascending.size() : hashed.size();
    }

    /** True if the tail changes this key (a hash probe: for rows one at a time). */
    boolean contains(long key) {
        return hashed().contains(key);
    }

    /**
     * Narrows {@code positions[0, size)} in place to those whose key the tail does not change; returns
     * how many remain. Position {@code p}'s key is {@code keys[p]}. Positions whose keys ascend (a lake
     * file written in key order) are merged with the changed keys in order (by galloping searches when the
     * positions are all of {@code 0..size-1}); others are probed in the hash index.
     */
    public int retainUnchanged(long[] keys, int[] positions, int size) {
        if (size >= AscendingLongKeys.MIN_ROWS) {
            switch (AscendingLongKeys.order(keys, positions, size)) {
                case EVERY_ROW_ASCENDING -> {
                    rowsInKeyOrder += size;
                    // the positions are 0..size-1: the kept rows are written over them, never ahead of the reads
                    return sorted().retainAbsentInRange(keys, 0, size, positions);
                }
                case ASCENDING -> {
                    rowsInKeyOrder += size;
                    return sorted().retainAbsent(keys, positions, size);
                }
                case UNORDERED -> {}
            }
        }
        return hashed().retainAbsent(keys, positions, size);
    }

    /**
     * The rows of {@code keys[from, to)}, whose keys the caller knows to ascend (a lake file written in key
     * order, checked once), whose key the tail does not change, written into {@code kept} as offsets from
     * {@code from} (a page's positions when the page is rows {@code [from, to)} of the file); returns how many.
     * The changed keys are found among the rows by galloping searches, without comparing every row.
     */
    public int retainUnchangedInAscendingRange(long[] keys, int from, int to, int[] kept) {
        rowsInKeyOrder += to - from;
        return sorted().retainAbsentInRange(keys, from, to, kept);
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

    private AscendingLongKeys sorted() {
        if (ascending == null) {
            ascending = new AscendingLongKeys(hashed.sortedKeys());
        }
        return ascending;
    }

    private LongKeyIndex hashed() {
        if (hashed == null) {
            hashed = ascending.hashed();
        }
        return hashed;
    }

    /**
     * Rows {@link #retainUnchanged} and {@link #retainUnchangedInAscendingRange} have merged in key order so far (the
     * rest were probed in the hash index).
     */
    public long rowsInKeyOrder() {
        return rowsInKeyOrder;
    }
}
