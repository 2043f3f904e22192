package io.lakestream.tiering;

import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.types.Type;

/**
 * Primary key → position of the key's last change, with no object per key. {@link #put} replaces an
 * existing key's position and returns the old one, which is how a range scanned in offset order
 * collapses to the last change per key. A single integral key column (int, bigint, date, time,
 * timestamp) is indexed by its value ({@link LongKeys}); any other key by its encoded bytes: an
 * open-addressing table whose slots pack the key's hash and an entry number into one long, the key
 * bytes in one growing arena.
 */
abstract sealed class LastChangeIndex permits LastChangeIndex.EncodedKeys, LastChangeIndex.LongKeys {
    /**
     * @param positions vector positions of the key columns in the batches
     * @param types the key columns' Iceberg types
     * @param expectedKeys how many keys to size the index for (it grows beyond as needed)
     */
    static LastChangeIndex forKey(int[] positions, Type[] types, long expectedKeys) {
        if (positions.length == 1) {
            switch (types[0].typeId()) {
                case INTEGER, DATE:
                    return new LongKeys(positions[0], 4, expectedKeys);
                case LONG, TIME, TIMESTAMP:
                    return new LongKeys(positions[0], 8, expectedKeys);
                default:
                    break;
            }
        }
        return new EncodedKeys(new KeyEncoder(positions, types));
    }

    /** Sets the position of the key of the row; returns the key's previous position, or -1 if it is new. */
    abstract long put(ArrowRow row, long position);

    abstract int size();

    /** Approximate heap bytes held. */
    abstract long memoryBytes();

    static final class LongKeys extends LastChangeIndex {
        private final int vectorPosition;
        private final int width;
        private long[] keys;
        private long[] values;
        private int mask;
        private int size;
        private long nullKeyPosition = -1;

        LongKeys(int vectorPosition, int width, long expectedKeys) {
            this.vectorPosition = vectorPosition;
            this.width = width;
            // sized for the range up front (growing from 2,048 slots rehashed a 125,000-key bucket 7 times), but
            // at most 16 MB ahead of need: a range of many changes to few keys must not reserve a slot per change
            int slots = Integer.highestOneBit(Math.clamp(expectedKeys * 2, 1 << 11, 1 << 20) - 1) << 1;
            this.keys = new long[slots];
            this.values = filled(slots);
            this.mask = slots - 1;
        }

        @Override
        long put(ArrowRow row, long position) {
            FieldVector vector = row.vector(vectorPosition);
            int index = row.index();
            if (row.isNull(vectorPosition)) {
                long previous = nullKeyPosition;
                nullKeyPosition = position;
                return previous;
            }
            ArrowBuf data = vector.getDataBuffer();
            long key = width == 8 ? data.getLong((long) index * 8) : data.getInt((long) index * 4);
            int slot = slot(key);
            while (values[slot] >= 0) {
                if (keys[slot] == key) {
                    long previous = values[slot];
                    values[slot] = position;
                    return previous;
                }
                slot = (slot + 1) & mask;
            }
            keys[slot] = key;
            values[slot] = position;
            if (++size * 2 > keys.length) {
                rehash();
            }
            return -1;
        }

        @Override
        int size() {
            return size + (nullKeyPosition >= 0 ? 1 : 0);
        }

        @Override
        long memoryBytes() {
            return keys.length * 16L;
        }

        private int slot(long key) {
            long hash = key * 0x9E3779B97F4A7C15L;
            return (int) (hash ^ (hash >>> 32)) & mask;
        }

        private void rehash() {
            long[] oldKeys = keys;
            long[] oldValues = values;
            keys = new long[oldKeys.length * 2];
            values = filled(oldKeys.length * 2);
            mask = keys.length - 1;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldValues[i] >= 0) {
                    int slot = slot(oldKeys[i]);
                    while (values[slot] >= 0) {
                        slot = (slot + 1) & mask;
                    }
                    keys[slot] = oldKeys[i];
                    values[slot] = oldValues[i];
                }
            }
        }

        private static long[] filled(int length) {
            long[] values = new long[length];
            Arrays.fill(values, -1);
            return values;
        }
    }

    static final class EncodedKeys extends LastChangeIndex {
        private static final long EMPTY = 0;

        private final KeyEncoder key;

        private byte[] arena = new byte[1 << 14];
        private int arenaUsed;
        private long[] slots = new long[1 << 11];
        private int mask = slots.length - 1;
        private int[] entryHash = new int[1 << 10];
        private int[] entryOffset = new int[1 << 10];
        private int[] entryLength = new int[1 << 10];
        private long[] entryPosition = new long[1 << 10];
        private int size;

        EncodedKeys(KeyEncoder key) {
            this.key = key;
        }

        @Override
        int size() {
            return size;
        }

        @Override
        long memoryBytes() {
            return arena.length + slots.length * 8L + entryHash.length * (4L + 4 + 4 + 8);
        }

        @Override
        long put(ArrowRow row, long position) {
            key.encode(row);
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
                    if (entryLength[entry] == length
                            && Arrays.equals(arena, offset, offset + length, bytes, 0, length)) {
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
}
