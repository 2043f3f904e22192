package io.lakestream.tiering;

import java.util.Arrays;

/**
 * Encoded key → position of the key's last change, with no object per key: an open-addressing table
 * whose slots pack the key's hash and an entry number into one long, the key bytes in one growing
 * arena. {@link #put} replaces an existing key's position and returns the old one, which is how a
 * range scanned in offset order collapses to the last change per key.
 */
final class LastChangeIndex {
    private static final long EMPTY = 0;

    private byte[] arena = new byte[1 << 14];
    private int arenaUsed;
    private long[] slots = new long[1 << 11];
    private int mask = slots.length - 1;
    private int[] entryHash = new int[1 << 10];
    private int[] entryOffset = new int[1 << 10];
    private int[] entryLength = new int[1 << 10];
    private long[] entryPosition = new long[1 << 10];
    private int size;

    int size() {
        return size;
    }

    /** Approximate heap bytes held. */
    long memoryBytes() {
        return arena.length + slots.length * 8L + entryHash.length * (4L + 4 + 4 + 8);
    }

    /** Sets the position of the encoder's current key; returns the key's previous position, or -1 if it is new. */
    long put(KeyEncoder key, long position) {
        byte[] bytes = key.bytes();
        int length = key.length();
        int hash = key.hash();
        int slot = hash & mask;
        while (true) {
            long packed = slots[slot];
            if (packed == EMPTY) {
                break;
            }
            if ((int) (packed >>> 32) == hash) {
                int entry = (int) packed - 1;
                int offset = entryOffset[entry];
                if (entryLength[entry] == length && Arrays.equals(arena, offset, offset + length, bytes, 0, length)) {
                    long previous = entryPosition[entry];
                    entryPosition[entry] = position;
                    return previous;
                }
            }
            slot = (slot + 1) & mask;
        }
        int entry = addEntry(bytes, length, hash, position);
        slots[slot] = (long) hash << 32 | (entry + 1L);
        if (size * 2 > slots.length) {
            rehash();
        }
        return -1;
    }

    private int addEntry(byte[] bytes, int length, int hash, long position) {
        if (size == entryHash.length) {
            int capacity = size * 2;
            entryHash = Arrays.copyOf(entryHash, capacity);
            entryOffset = Arrays.copyOf(entryOffset, capacity);
            entryLength = Arrays.copyOf(entryLength, capacity);
            entryPosition = Arrays.copyOf(entryPosition, capacity);
        }
        if (arenaUsed + length > arena.length) {
            arena = Arrays.copyOf(arena, Math.max(arena.length * 2, arenaUsed + length));
        }
        System.arraycopy(bytes, 0, arena, arenaUsed, length);
        entryHash[size] = hash;
        entryOffset[size] = arenaUsed;
        entryLength[size] = length;
        entryPosition[size] = position;
        arenaUsed += length;
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
            slots[slot] = (long) entryHash[entry] << 32 | (entry + 1L);
        }
    }
}
