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

    /** True if the keys of {@code rows[0, size)} do not descend ({@code keys[rows[i]] <= keys[rows[i + 1]]}). */
    static boolean ascending(long[] keys, int[] rows, int size) {
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < size; i++) {
            long key = keys[rows[i]];
            if (key < previous) {
                return false;
            }
            previous = key;
        }
        return true;
    }

    /**
     * Narrows {@code rows[0, size)}, whose keys must ascend ({@link #ascending}), in place to the rows whose
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

    /** The index of the first key {@code >= key}. */
    private int lowerBound(long key) {
        int found = Arrays.binarySearch(keys, key);
        return found >= 0 ? found : -found - 1;
    }
}
