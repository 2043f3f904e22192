package io.lakestream.tiering.parquet;

import java.util.Arrays;

/**
 * A dictionary of fixed-width values (INT32, INT64, FLOAT, DOUBLE), keyed by their bits. Floating point
 * values are keyed by their exact bits, so every value (a NaN's payload, -0.0) reads back as written.
 *
 * <p>Values within {@link #WINDOW} of the chunk's first value are found by their distance from it in a
 * direct array (a small range of ints, such as scores, codes or years, is the usual dictionary column), the
 * others through the hash table: the table's probes, a hash and two dependent loads per value, took about
 * three times as long.
 */
final class LongDictionary extends ParquetDictionary {
    static final int WINDOW = 4096;

    private final int width;
    private long[] values = new long[256];
    /** value - windowBase → id + 1 (0 = not seen), for the values in the window; allocated at the first value. */
    private int[] window;

    private long windowBase;
    private boolean windowPlaced;

    /** @param width bytes per value in the file: 4 or 8 */
    LongDictionary(int width) {
        this.width = width;
    }

    int id(long value) {
        if (!windowPlaced) {
            placeWindow(value);
        }
        long inWindow = value - windowBase; // a bijection of the longs, overflow included: one entry per value
        if (inWindow >= 0 && inWindow < WINDOW) {
            int id = window[(int) inWindow] - 1;
            if (id >= 0) {
                return id;
            }
            id = addOutsideTable();
            store(id, value);
            window[(int) inWindow] = id + 1;
            return id;
        }
        int mask = mask();
        int slot = hash(value) & mask;
        while (true) {
            int id = idAt(slot);
            if (id < 0) {
                store(size(), value);
                return addAt(slot);
            }
            if (values[id] == value) {
                return id;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** Centres the window on the chunk's first value, so that values on either side of it fall in it. */
    private void placeWindow(long first) {
        if (window == null) {
            window = new int[WINDOW];
        }
        windowBase = first - WINDOW / 2;
        windowPlaced = true;
    }

    private void store(int id, long value) {
        if (id == values.length) {
            values = Arrays.copyOf(values, 2 * id);
        }
        values[id] = value;
    }

    @Override
    boolean inTable(int id) {
        long inWindow = values[id] - windowBase;
        return !(windowPlaced && inWindow >= 0 && inWindow < WINDOW);
    }

    @Override
    long byteSize() {
        return (long) size() * width;
    }

    @Override
    void writePage(GrowableBytes out) {
        for (int i = 0; i < size(); i++) {
            if (width == 4) {
                out.writeInt((int) values[i]);
            } else {
                out.writeLong(values[i]);
            }
        }
    }

    @Override
    int hashOf(int id) {
        return hash(values[id]);
    }

    @Override
    void clearValues() {
        if (windowPlaced) {
            Arrays.fill(window, 0);
            windowPlaced = false;
        }
    }

    private static int hash(long value) {
        long mixed = value * 0x9E3779B97F4A7C15L;
        return (int) (mixed ^ (mixed >>> 32));
    }
}
