package io.lakestream.merge;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.Arrays;

/**
 * The last change of every key of a log tail whose key is one integral column, keys ascending: the
 * sort-based index of a tail. The tail's (key, change) pairs are collected in offset order, then one
 * stable radix sort by key ({@link LongRadixSort#sortPairs}) leaves one run per key whose last pair is
 * the key's last change. The runs' keys are the changed keys, already in the order that a merge against
 * lake files sorted by key needs, and the runs' last changes give the winners: no hash table insert per
 * change and no second sort of the changed keys.
 */
final class SortedLongChanges {
    private final long[] keys;
    private final long[] changes;

    private SortedLongChanges(long[] keys, long[] changes) {
        this.keys = keys;
        this.changes = changes;
    }

    /** The distinct keys, ascending (not a copy: do not change). */
    long[] keys() {
        return keys;
    }

    /** The last change of each key ({@link TailKeys#change}), in the order of {@link #keys()} (not a copy). */
    long[] changes() {
        return changes;
    }

    int size() {
        return keys.length;
    }

    /** Collects a tail's (key, change) pairs in offset order, then sorts them once. */
    static final class Builder {
        private long[] keys;
        private long[] changes;
        private int size;
        private boolean built;

        /** @param expected how many changes are expected (the arrays grow beyond it as needed) */
        Builder(int expected) {
            int capacity = Math.max(expected, 16);
            this.keys = new long[capacity];
            this.changes = new long[capacity];
        }

        /** Adds the change of a key; changes must come in offset order (a later one wins). */
        void add(long key, long change) {
            if (size == keys.length) {
                grow();
            }
            keys[size] = key;
            changes[size] = change;
            size++;
        }

        /** Sorts the changes by key and keeps the last of each key; the builder is done after this. */
        SortedLongChanges build() {
            checkState(!built, "the changes were sorted already");
            built = true;
            LongRadixSort.sortPairs(keys, changes, size);
            // the sort is stable: the last pair of a run of equal keys is the key's last change
            int distinct = 0;
            for (int i = 0; i < size; i++) {
                long key = keys[i];
                if (i + 1 < size && keys[i + 1] == key) {
                    continue;
                }
                keys[distinct] = key;
                changes[distinct] = changes[i];
                distinct++;
            }
            SortedLongChanges sorted = new SortedLongChanges(trim(keys, distinct), trim(changes, distinct));
            keys = null;
            changes = null;
            return sorted;
        }

        private void grow() {
            checkArgument(keys.length < Integer.MAX_VALUE - 16, "too many changes for one index: %s", size);
            int capacity = (int) Math.min(Integer.MAX_VALUE - 16, keys.length * 2L);
            keys = Arrays.copyOf(keys, capacity);
            changes = Arrays.copyOf(changes, capacity);
        }

        private static long[] trim(long[] values, int size) {
            return values.length == size ? values : Arrays.copyOf(values, size);
        }
    }
}
