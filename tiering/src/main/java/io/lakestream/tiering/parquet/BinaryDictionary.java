package io.lakestream.tiering.parquet;

import java.util.Arrays;

/**
 * A dictionary of byte strings (BINARY), kept as the dictionary page itself (PLAIN: 4-byte little-endian
 * length, then the bytes), so writing the page is one copy.
 */
final class BinaryDictionary extends ParquetDictionary {
    private final GrowableBytes page = new GrowableBytes(4096);
    private int[] starts = new int[256]; // offset of each entry's length prefix in page
    private int[] hashes = new int[256];

    /** The id of {@code bytes[offset, offset + length)}, added if new. */
    int id(byte[] bytes, int offset, int length) {
        int hash = hash(bytes, offset, length);
        int mask = mask();
        int slot = hash & mask;
        while (true) {
            int id = idAt(slot);
            if (id < 0) {
                return add(bytes, offset, length, hash, slot);
            }
            if (hashes[id] == hash && equal(id, bytes, offset, length)) {
                return id;
            }
            slot = (slot + 1) & mask;
        }
    }

    private boolean equal(int id, byte[] bytes, int offset, int length) {
        byte[] entries = page.array();
        int start = starts[id];
        return GrowableBytes.readInt(entries, start) == length
                && Arrays.equals(entries, start + 4, start + 4 + length, bytes, offset, offset + length);
    }

    private int add(byte[] bytes, int offset, int length, int hash, int slot) {
        int id = size();
        if (id == starts.length) {
            starts = Arrays.copyOf(starts, 2 * id);
            hashes = Arrays.copyOf(hashes, 2 * id);
        }
        starts[id] = page.size();
        hashes[id] = hash;
        page.writeInt(length);
        page.write(bytes, offset, length);
        return addAt(slot);
    }

    @Override
    long byteSize() {
        return page.size();
    }

    @Override
    void writePage(GrowableBytes out) {
        out.write(page.array(), 0, page.size());
    }

    @Override
    int hashOf(int id) {
        return hashes[id];
    }

    @Override
    void clearValues() {
        page.clear();
    }

    private static int hash(byte[] bytes, int offset, int length) {
        int hash = length;
        int i = offset;
        int end = offset + length;
        for (; i + 8 <= end; i += 8) {
            hash = hash * 0x9E3779B1 + Long.hashCode(GrowableBytes.readLong(bytes, i) * 0x9E3779B97F4A7C15L);
        }
        for (; i < end; i++) {
            hash = hash * 31 + bytes[i];
        }
        return hash ^ (hash >>> 16);
    }
}
