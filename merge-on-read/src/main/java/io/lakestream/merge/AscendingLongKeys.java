package io.lakestream.merge;

import java.util.Arrays;

/**
 * Changed keys in ascending order, to drop the lake rows they hide by a merge walk instead of hash
 * probes when the lake rows' keys ascend (compaction writes a primary-key bucket sorted by key): the
 * walk compares each row's key with the next changed key only, in sequential memory, and skips the
 * changed keys below the rows' first key by a binary search.
 */
final class AscendingLongKeys {
    /** Below this many rows, checking the order costs more than the walk saves. */
    static final int MIN_ROWS = 16;

    private final long[] keys;

    /** @param keys ascending */
    AscendingLongKeys(long[] keys) {
        this.keys = keys;
    }

    /** How rows are ordered by key. */
    enum RowOrder {
        /** Some key descends. */
        UNORDERED,
        /** The keys do not descend ({@code keys[rows[i]] <= keys[rows[i + 1]]}). */
        ASCENDING,
        /** {@link #ASCENDING}, and the rows are {@code 0..size-1}: every row of a batch. */
        EVERY_ROW_ASCENDING
    }

    /** How the keys of {@code rows[0, size)} are ordered. */
    static RowOrder order(long[] keys, int[] rows, int size) {
        long previous = Long.MIN_VALUE;
        boolean everyRow = true;
        for (int i = 0; i < size; i++) {
            int row = rows[i];
            long key = keys[row];
            if (key < previous) {
                return RowOrder.UNORDERED;
            }
            everyRow &= row == i;
            previous = key;
        }
        return everyRow ? RowOrder.EVERY_ROW_ASCENDING : RowOrder.ASCENDING;
    }

    int size() {
        return keys.length;
    }

    /** A hash index of these keys, for rows out of key order. */
    LongKeyIndex hashed() {
        LongKeyIndex index = new LongKeyIndex(keys.length);
        for (long key : keys) {
            index.put(key, 0);
        }
        return index;
    }

    /**
     * Narrows {@code rows[0, size)}, whose keys must ascend ({@link #order}), in place to the rows whose
     * key is not one of these keys; returns how many remain.
     */
    int retainAbsent(long[] rowKeys, int[] rows, int size) {
        if (size == 0) {
            return 0;
        }
        int next = lowerBound(rowKeys[rows[0]]);
        int kept = 0;
        int i = 0;
        while (i < size && next < keys.length) {
            long changed = keys[next++];
            while (i < size && rowKeys[rows[i]] < changed) {
                rows[kept++] = rows[i++];
            }
            while (i < size && rowKeys[rows[i]] == changed) {
                i++; // hidden
            }
        }
        while (i < size) {
            rows[kept++] = rows[i++];
        }
        return kept;
    }

    /**
     * The rows of {@code rowKeys[from, to)}, whose keys ascend, whose key is not one of these keys, written into
     * {@code kept} as offsets from {@code from}; returns how many. Each changed key in the range is found by a
     * galloping search from the last one (a few comparisons for the rows between two changed keys), and the
     * rows between are written without reading their keys: cheaper than {@link #retainAbsent} when the changed
     * keys are a small share of the rows, the case of a merge that reads every row of a page.
     */
    int retainAbsentInRange(long[] rowKeys, int from, int to, int[] kept) {
        int count = 0;
        int row = from;
        if (from < to) {
            for (int next = lowerBound(rowKeys[from]); next < keys.length && row < to; next++) {
                long changed = keys[next];
                int hit = firstAtLeast(rowKeys, row, to, changed);
                while (row < hit) {
                    kept[count++] = row++ - from;
                }
                while (row < to && rowKeys[row] == changed) {
                    row++; // hidden
                }
            }
        }
        while (row < to) {
            kept[count++] = row++ - from;
        }
        return count;
    }

    /**
     * The first row in {@code [from, to)} whose key is at least {@code key} ({@code to} if none), keys ascending:
     * steps of doubling length from {@code from}, then a binary search in the last step.
     */
    static int firstAtLeast(long[] rowKeys, int from, int to, long key) {
        if (from >= to || rowKeys[from] >= key) {
            return from;
        }
        // invariant: rowKeys[low] < key, and high == to or rowKeys[high] >= key
        int low = from;
        int step = 1;
        int high = from + 1;
        while (high < to && rowKeys[high] < key) {
            low = high;
            step = Math.min(step << 1, to - from);
            high = (int) Math.min(to, (long) low + step);
        }
        while (high - low > 1) {
            int middle = (low + high) >>> 1;
            if (rowKeys[middle] < key) {
                low = middle;
            } else {
                high = middle;
            }
        }
        return high;
    }

    /** The index of the first key {@code >= key}. */
    private int lowerBound(long key) {
        int found = Arrays.binarySearch(keys, key);
        return found >= 0 ? found : -found - 1;
    }
}
