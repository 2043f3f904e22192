package io.lakestream.tiering;

import java.util.Arrays;

/**
 * A dictionary of fixed-width values (INT32, INT64, FLOAT, DOUBLE), keyed by their bits. Floating point
 * values are keyed by their exact bits, so every value (a NaN's payload, -0.0) reads back as written.
 */
final class LongDictionary extends ParquetDictionary {
    private final int width;
    private long[] values = new long[256];

    /** @param width bytes per value in the file: 4 or 8 */
    LongDictionary(int width) {
        this.width = width;
    }

    int id(long value) {
        int mask = mask();
        int slot = hash(value) & mask;
        while (true) {
            int id = idAt(slot);
            if (id < 0) {
                if (size() == values.length) {
                    values = Arrays.copyOf(values, 2 * size());
                }
                values[size()] = value;
                return addAt(slot);
            }
            if (values[id] == value) {
                return id;
            }
            slot = (slot + 1) & mask;
        }
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
    void clearValues() {}

    private static int hash(long value) {
        long mixed = value * 0x9E3779B97F4A7C15L;
        return (int) (mixed ^ (mixed >>> 32));
    }
}
