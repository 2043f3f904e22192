package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;

import io.lakestream.common.LakestreamException;
import io.lakestream.tiering.parquet.ArrowRow;
import io.lakestream.tiering.parquet.ReusePool;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.types.Type;

/**
 * Primary key → position of the key's last change, with no object per key. {@link #putBatch} replaces
 * each existing key's position and unmarks the old one, which is how a range scanned in offset order
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
     * @param tables hash tables of earlier indexes of the round, to reuse (see {@link #release})
     */
    static LastChangeIndex forKey(int[] positions, Type[] types, long expectedKeys, ReusePool<long[]> tables) {
        if (positions.length == 1) {
            switch (types[0].typeId()) {
                case INTEGER, DATE:
                    return new LongKeys(positions[0], 4, expectedKeys, tables);
                case LONG, TIME, TIMESTAMP:
                    return new LongKeys(positions[0], 8, expectedKeys, tables);
                default:
                    break;
            }
        }
        return new EncodedKeys(new KeyEncoder(positions, types));
    }

    /**
     * Puts every row of the batch in {@code row} ({@code rows} rows, batch number {@code batchNumber}) in
     * order, and clears in {@code lastChange} the mark of each key's previous last change.
     */
    abstract void putBatch(ArrowRow row, int rows, int batchNumber, List<BitSet> lastChange);

    private static long position(int batchNumber, int row) {
        return (long) batchNumber << 32 | row;
    }

    private static void unmark(List<BitSet> lastChange, long previous) {
        if (previous >= 0) {
            lastChange.get((int) (previous >>> 32)).clear((int) previous);
        }
    }

    abstract int size();

    /** Gives the index's hash table to the round's next index; use this one no more. */
    void release() {}

    static final class LongKeys extends LastChangeIndex {
        private static final long EMPTY = -1;

        private final int vectorPosition;
        private final int width;
        /**
         * Open addressing with each slot's key and position side by side ({@code 2 * slot} and
         * {@code 2 * slot + 1}), so a probe touches one cache line: the table outgrows the caches for a
         * bucket's range, and with keys and positions in two arrays each put missed twice.
         */
        private long[] slots;

        private int mask;
        private int size;
        private long nullKeyPosition = EMPTY;
        private final ReusePool<long[]> tables;

        LongKeys(int vectorPosition, int width, long expectedKeys, ReusePool<long[]> tables) {
            this.vectorPosition = vectorPosition;
            this.width = width;
            // sized for the range up front (growing from 2,048 slots rehashed a 125,000-key bucket 7 times): a
            // slot per change, rounded up to a power of two, so a range that updates keys more than once in a
            // while stays under half full with no rehash, and one whose every change is a new key rehashes
            // once; a table twice that size missed the caches more often. At most 16 MB ahead of need.
            int capacity = Integer.highestOneBit(Math.clamp(expectedKeys, 1 << 11, 1 << 20) - 1) << 1;
            // A bucket's table is megabytes: allocating one per task made G1 start a marking cycle each time.
            this.tables = tables;
            this.slots = tables.take(reused -> reused.length == 2 * capacity, () -> new long[2 * capacity]);
            markEmpty(slots);
            this.mask = capacity - 1;
        }

        @Override
        void release() {
            tables.give(slots);
        }

        /** Reads the keys straight from the vector's buffers: the per-row accessors' checks were most of the loop. */
        @Override
        void putBatch(ArrowRow row, int rows, int batchNumber, List<BitSet> lastChange) {
            FieldVector vector = row.vector(vectorPosition);
            if (vector.getValueCount() < rows || vector.getDataBuffer().capacity() < (long) rows * width) {
                throw new LakestreamException(
                        LOG_CORRUPT,
                        "A log batch's key column %s holds fewer than its %s rows: the log segment is corrupt"
                                .formatted(vector.getField().getName(), rows));
            }
            long data = vector.getDataBuffer().memoryAddress();
            boolean mayHaveNulls = vector.getNullCount() > 0;
            for (int i = 0; i < rows; i++) {
                long position = position(batchNumber, i);
                long previous;
                if (mayHaveNulls && vector.isNull(i)) {
                    previous = putNull(position);
                } else {
                    long key = width == 8 ? MemoryUtil.getLong(data + 8L * i) : MemoryUtil.getInt(data + 4L * i);
                    previous = putKey(key, position);
                }
                unmark(lastChange, previous);
            }
        }

        private long putNull(long position) {
            long previous = nullKeyPosition;
            nullKeyPosition = position;
            return previous;
        }

        private long putKey(long key, long position) {
            int slot = slot(key);
            while (slots[2 * slot + 1] != EMPTY) {
                if (slots[2 * slot] == key) {
                    long previous = slots[2 * slot + 1];
                    slots[2 * slot + 1] = position;
                    return previous;
                }
                slot = (slot + 1) & mask;
            }
            slots[2 * slot] = key;
            slots[2 * slot + 1] = position;
            if (++size * 2 > mask + 1) {
                rehash();
            }
            return EMPTY;
        }

        @Override
        int size() {
            return size + (nullKeyPosition >= 0 ? 1 : 0);
        }

        private int slot(long key) {
            long hash = key * 0x9E3779B97F4A7C15L;
            return (int) (hash ^ (hash >>> 32)) & mask;
        }

        private void rehash() {
            long[] old = slots;
            int capacity = (mask + 1) * 2;
            slots = new long[2 * capacity];
            markEmpty(slots);
            mask = capacity - 1;
            for (int i = 0; i < old.length; i += 2) {
                if (old[i + 1] != EMPTY) {
                    int slot = slot(old[i]);
                    while (slots[2 * slot + 1] != EMPTY) {
                        slot = (slot + 1) & mask;
                    }
                    slots[2 * slot] = old[i];
                    slots[2 * slot + 1] = old[i + 1];
                }
            }
        }

        /** Empties every slot: a slot is empty by its position alone, whatever its key. */
        private static void markEmpty(long[] slots) {
            for (int i = 1; i < slots.length; i += 2) {
                slots[i] = EMPTY;
            }
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
        void putBatch(ArrowRow row, int rows, int batchNumber, List<BitSet> lastChange) {
            for (int i = 0; i < rows; i++) {
                row.setIndex(i);
                unmark(lastChange, put(row, position(batchNumber, i)));
            }
        }

        /** Sets the position of the key of the row; returns the key's previous position, or -1 if it is new. */
        private long put(ArrowRow row, long position) {
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
