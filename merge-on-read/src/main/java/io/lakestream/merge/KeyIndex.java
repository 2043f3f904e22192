package io.lakestream.merge;

import java.util.Arrays;

/**
 * An open-addressing hash map from encoded keys to a long value, with the key bytes in one
 * growing arena: no object per key. Each slot packs the key's hash and its entry number into one
 * long, so a probe touches one array and compares full keys only when the hashes match. {@link #put} replaces the value of an existing key, which is
 * how "last change per key" is kept while scanning a log range in offset order.
 */
public final class KeyIndex {
    private static final long EMPTY = 0;

    private byte[] arena = new byte[1 << 16];
    private int arenaUsed;
    private long[] slots;
    private int[] entryHash = new int[1024];
    private int[] entryOffset = new int[1024];
    private int[] entryLength = new int[1024];
    private long[] entryValue = new long[1024];
    private int size;
    private int mask;

    public KeyIndex() {
        slots = new long[2048];
        mask = slots.length - 1;
    }

    public int size() {
        return size;
    }

    /** Approximate heap bytes held. */
    public long memoryBytes() {
        return arena.length + slots.length * 8L + entryHash.length * (4L + 4 + 4 + 8);
    }

    /** Sets the key's value; returns the previous value, or -1 if the key was new. */
    public long put(KeyBuffer key, long value) {
        int hash = key.hash();
        int slot = findSlot(key, hash);
        long packed = slots[slot];
        if (packed != EMPTY) {
            int entry = entryOf(packed);
            long previous = entryValue[entry];
            entryValue[entry] = value;
            return previous;
        }
        int entry = addEntry(key, hash, value);
        slots[slot] = pack(hash, entry);
        if (size * 2 > slots.length) {
            rehash();
        }
        return -1;
    }

    /** The key's value, or -1 if the index does not hold the key. */
    public long get(KeyBuffer key) {
        long packed = slots[findSlot(key, key.hash())];
        return packed == EMPTY ? -1 : entryValue[entryOf(packed)];
    }

    public boolean contains(KeyBuffer key) {
        return slots[findSlot(key, key.hash())] != EMPTY;
    }

    /** The value of every entry, in insertion order of the keys. */
    public long[] values() {
        return Arrays.copyOf(entryValue, size);
    }

    private int findSlot(KeyBuffer key, int hash) {
        int slot = hash & mask;
        while (true) {
            long packed = slots[slot];
            if (packed == EMPTY) {
                return slot;
            }
            if ((int) (packed >>> 32) == hash) {
                int entry = entryOf(packed);
                if (key.contentEquals(arena, entryOffset[entry], entryLength[entry])) {
                    return slot;
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    // entry + 1 in the low half, so that an empty slot is 0
    private static long pack(int hash, int entry) {
        return (long) hash << 32 | (entry + 1L);
    }

    private static int entryOf(long packed) {
        return (int) packed - 1;
    }

    private int addEntry(KeyBuffer key, int hash, long value) {
        if (size == entryHash.length) {
            int capacity = size * 2;
            entryHash = Arrays.copyOf(entryHash, capacity);
            entryOffset = Arrays.copyOf(entryOffset, capacity);
            entryLength = Arrays.copyOf(entryLength, capacity);
            entryValue = Arrays.copyOf(entryValue, capacity);
        }
        if (arenaUsed + key.length() > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaUsed + key.length()));
        }
        System.arraycopy(key.bytes(), 0, arena, arenaUsed, key.length());
        entryHash[size] = hash;
        entryOffset[size] = arenaUsed;
        entryLength[size] = key.length();
        entryValue[size] = value;
        arenaUsed += key.length();
        return size++;
    }

    private void rehash() {
        slots = new long[slots.length * 2];
        mask = slots.length - 1;
        for (int entry = 0; entry < size; entry++) {
            int slot = entryHash[entry] & mask;
            while (slots[slot] != EMPTY) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = pack(entryHash[entry], entry);
        }
    }
}
