package io.lakestream.tiering.parquet;

import java.util.Arrays;

/**
 * A Parquet column chunk's dictionary: values get ids in order of first appearance, found through an
 * open-addressing table of ids (or another index of the subclass's, {@link #addOutsideTable}); the
 * subclasses keep the values and write them as the dictionary page (PLAIN encoding, in id order).
 */
abstract class ParquetDictionary {
    // slot → id + 1 (0 = empty)
    private int[] slots = new int[512];
    private int size;
    /** Ids in {@link #slots}. */
    private int tableSize;

    final int size() {
        return size;
    }

    /** Bytes of the dictionary page, as parquet-mr counts them against the dictionary size limit. */
    abstract long byteSize();

    abstract void writePage(GrowableBytes out);

    /** The hash of the value with id {@code id}. */
    abstract int hashOf(int id);

    /** Drops the subclass's values. */
    abstract void clearValues();

    /** Whether the id is found through the table, not through an index of the subclass's own. */
    boolean inTable(int id) {
        return true;
    }

    final void clear() {
        size = 0;
        tableSize = 0;
        Arrays.fill(slots, 0);
        clearValues();
    }

    final int mask() {
        return slots.length - 1;
    }

    /** The id in {@code slot}, or -1 if the slot is empty. */
    final int idAt(int slot) {
        return slots[slot] - 1;
    }

    /** Puts the next id (the subclass has stored its value) into the empty {@code slot}; returns the id. */
    final int addAt(int slot) {
        slots[slot] = ++size;
        tableSize++;
        if (2 * tableSize > slots.length) {
            rehash();
        }
        return size - 1;
    }

    /** The next id, for a value the subclass finds through an index of its own (not the table); returns it. */
    final int addOutsideTable() {
        return size++;
    }

    private void rehash() {
        slots = new int[2 * slots.length];
        int mask = mask();
        for (int id = 0; id < size; id++) {
            if (!inTable(id)) {
                continue;
            }
            int slot = hashOf(id) & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = id + 1;
        }
    }
}
