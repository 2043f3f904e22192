package io.lakestream.tiering;

import java.util.Arrays;

/**
 * A Parquet dictionary of fixed-width values (INT32, INT64, FLOAT, DOUBLE), keyed by their bits: ids in
 * order of first appearance, and the dictionary page in PLAIN encoding. Floating point values are keyed by
 * their exact bits, so every value (a NaN's payload, -0.0) reads back as written.
 */
final class LongDictionary {
    private final int width;
    private long[] values = new long[256];
    private int size;
    // open addressing: slot → id + 1 (0 = empty)
    private int[] slots = new int[512];

    /** @param width bytes per value in the file: 4 or 8 */
    LongDictionary(int width) {
        this.width = width;
    }

    int id(long value) {
        int mask = slots.length - 1;
        int slot = hash(value) & mask;
        while (true) {
            int entry = slots[slot];
            if (entry == 0) {
                return add(value, slot);
            }
            if (values[entry - 1] == value) {
                return entry - 1;
            }
            slot = (slot + 1) & mask;
        }
    }

    int size() {
        return size;
    }

    /** Bytes of the dictionary page, as parquet-mr counts them against the dictionary size limit. */
    long byteSize() {
        return (long) size * width;
    }

    void clear() {
        size = 0;
        Arrays.fill(slots, 0);
    }

    void writePage(GrowableBytes out) {
        for (int i = 0; i < size; i++) {
            if (width == 4) {
                out.writeInt((int) values[i]);
            } else {
                out.writeLong(values[i]);
            }
        }
    }

    private int add(long value, int slot) {
        if (size == values.length) {
            values = Arrays.copyOf(values, 2 * size);
        }
        values[size] = value;
        slots[slot] = ++size;
        if (2 * size > slots.length) {
            rehash();
        }
        return size - 1;
    }

    private void rehash() {
        slots = new int[2 * slots.length];
        int mask = slots.length - 1;
        for (int id = 0; id < size; id++) {
            int slot = hash(values[id]) & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = id + 1;
        }
    }

    private static int hash(long value) {
        long mixed = value * 0x9E3779B97F4A7C15L;
        return (int) (mixed ^ (mixed >>> 32));
    }
}
