package io.lakestream.tiering;

import java.util.Arrays;

/**
 * A Parquet dictionary of byte strings (BINARY): ids in order of first appearance, kept as the dictionary
 * page itself (PLAIN: 4-byte little-endian length, then the bytes), so writing the page is one copy.
 */
final class BinaryDictionary {
    private final GrowableBytes page = new GrowableBytes(4096);
    private int[] starts = new int[256]; // offset of each entry's length prefix in page
    private int[] hashes = new int[256];
    private int size;
    private int[] slots = new int[512]; // slot → id + 1 (0 = empty)

    /** The id of {@code bytes[offset, offset + length)}, added if new. */
    int id(byte[] bytes, int offset, int length) {
        int hash = hash(bytes, offset, length);
        int mask = slots.length - 1;
        int slot = hash & mask;
        byte[] entries = page.array();
        while (true) {
            int entry = slots[slot];
            if (entry == 0) {
                return add(bytes, offset, length, hash, slot);
            }
            int id = entry - 1;
            if (hashes[id] == hash) {
                int start = starts[id];
                int entryLength = GrowableBytes.readInt(entries, start);
                if (entryLength == length
                        && Arrays.equals(entries, start + 4, start + 4 + length, bytes, offset, offset + length)) {
                    return id;
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    int size() {
        return size;
    }

    long byteSize() {
        return page.size();
    }

    void clear() {
        size = 0;
        page.clear();
        Arrays.fill(slots, 0);
    }

    void writePage(GrowableBytes out) {
        out.write(page.array(), 0, page.size());
    }

    private int add(byte[] bytes, int offset, int length, int hash, int slot) {
        if (size == starts.length) {
            starts = Arrays.copyOf(starts, 2 * size);
            hashes = Arrays.copyOf(hashes, 2 * size);
        }
        starts[size] = page.size();
        hashes[size] = hash;
        page.writeInt(length);
        page.write(bytes, offset, length);
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
            int slot = hashes[id] & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = id + 1;
        }
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
