package io.lakestream.merge;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * An open-addressing hash map from a primitive {@code long} key to a non-negative {@code long}
 * value: the index of a primary key of one integral column (int, long, date, time, timestamp),
 * without the canonical byte encoding of {@link KeyIndex}, for lake rows out of key order (the keys of a
 * tail are sorted first, see {@link SortedLongChanges}; rows in key order are merged with them). Keys live in one {@code long[]} (linear
 * probing, Fibonacci hashing), so a miss, the common case when probing lake rows, reads one array.
 * Key {@code 0} marks a free slot and is kept beside the table. A two-bit filter (8 bits per
 * slot, in 64-bit blocks) answers most misses without touching the table.
 */
public final class LongKeyIndex {
    private static final long FREE = 0;
    private static final long NONE = -1;
    private static final long PHI = 0x9E3779B97F4A7C15L;
    private static final long FILTER_MULTIPLIER = 0xC2B2AE3D27D4EB4FL;

    private long[] keys;
    private long[] values;
    private long[] filter;
    private int filterWordShift;
    private int shift;
    private int mask;
    private int tableSize;
    private long zeroValue = NONE;

    public LongKeyIndex() {
        this(1024);
    }

    /** @param expectedKeys how many keys are expected (the table grows beyond it as needed) */
    public LongKeyIndex(int expectedKeys) {
        int bits = Math.max(4, 64 - Long.numberOfLeadingZeros(Math.max(expectedKeys, 1) * 2L - 1));
        allocate(Math.min(bits, 30));
    }

    /** The number of keys. */
    public int size() {
        return tableSize + (zeroValue == NONE ? 0 : 1);
    }

    /** Approximate heap bytes held. */
    public long memoryBytes() {
        return keys.length * 17L;
    }

    /** Sets the key's value ({@code >= 0}); returns the previous value, or -1 if the key was new. */
    public long put(long key, long value) {
        checkArgument(value >= 0, "value must not be negative: %s", value);
        if (key == FREE) {
            long previous = zeroValue;
            zeroValue = value;
            addToFilter(key);
            return previous;
        }
        int slot = slot(key);
        while (true) {
            long current = keys[slot];
            if (current == key) {
                long previous = values[slot];
                values[slot] = value;
                return previous;
            }
            if (current == FREE) {
                keys[slot] = key;
                values[slot] = value;
                addToFilter(key);
                if (++tableSize * 2 > keys.length) {
                    grow();
                }
                return NONE;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** The key's value, or -1 if the index does not hold the key. */
    public long get(long key) {
        if (key == FREE) {
            return zeroValue;
        }
        int slot = slot(key);
        while (true) {
            long current = keys[slot];
            if (current == key) {
                return values[slot];
            }
            if (current == FREE) {
                return NONE;
            }
            slot = (slot + 1) & mask;
        }
    }

    public boolean contains(long key) {
        return mayContain(key) && containsInTable(key);
    }

    /**
     * Narrows {@code rows[0, size)} in place to the rows whose key is not in the index; returns how many
     * remain. Row {@code r}'s key is {@code keys[r]}. The bit filter is consulted for every row before
     * the table, so the table is read only for the few rows the filter cannot rule out.
     */
    public int retainAbsent(long[] keys, int[] rows, int size) {
        long[] bits = filter;
        int wordShift = filterWordShift;
        int kept = 0;
        for (int i = 0; i < size; i++) {
            int row = rows[i];
            long key = keys[row];
            long hash = key * FILTER_MULTIPLIER;
            long mask = filterMask(hash);
            rows[kept] = row;
            if ((bits[filterWord(hash, wordShift)] & mask) != mask || !containsInTable(key)) {
                kept++;
            }
        }
        return kept;
    }

    private boolean mayContain(long key) {
        long hash = key * FILTER_MULTIPLIER;
        long mask = filterMask(hash);
        return (filter[filterWord(hash, filterWordShift)] & mask) == mask;
    }

    /*
     * The filter is blocked: a key sets two bits of one 64-bit word. The top 12 bits of the multiplicative hash
     * choose the two bits, the bits below them the word: a probe reads one word. At 16 to 32 filter bits per
     * key, an absent key passes one bit 3-6% of the time and two bits 0.5-1.5%; each pass costs a cache miss
     * in the table (JFR, Trino's merge of a 5% tail: the table lookups were 6% of the query's CPU).
     */
    private static long filterMask(long hash) {
        return (1L << (hash >>> 58)) | (1L << ((hash >>> 52) & 63));
    }

    private static int filterWord(long hash, int wordShift) {
        return (int) ((hash << 12) >>> wordShift);
    }

    private boolean containsInTable(long key) {
        if (key == FREE) {
            return zeroValue != NONE;
        }
        long[] table = keys;
        int slot = slot(key);
        while (true) {
            long current = table[slot];
            if (current == key) {
                return true;
            }
            if (current == FREE) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
    }

    /** The value of every key, in no particular order. */
    public long[] values() {
        long[] result = new long[size()];
        int next = 0;
        for (int slot = 0; slot < keys.length; slot++) {
            if (keys[slot] != FREE) {
                result[next++] = values[slot];
            }
        }
        if (zeroValue != NONE) {
            result[next] = zeroValue;
        }
        return result;
    }

    /** Every key, ascending (a copy). */
    public long[] sortedKeys() {
        long[] result = new long[size()];
        int next = 0;
        for (long key : keys) {
            if (key != FREE) {
                result[next++] = key;
            }
        }
        if (zeroValue != NONE) {
            result[next] = FREE;
        }
        LongRadixSort.sort(result);
        return result;
    }

    /** A well-mixed hash of a key (murmur3's 64-bit finalizer), also used to partition keys into merge passes. */
    static long hash(long key) {
        long h = key;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    private int slot(long key) {
        return (int) ((key * PHI) >>> shift);
    }

    private void allocate(int bits) {
        keys = new long[1 << bits];
        values = new long[1 << bits];
        shift = 64 - bits;
        mask = keys.length - 1;
        int filterBits = Math.min(bits + 3, 27);
        filter = new long[(1 << filterBits) / Long.SIZE];
        filterWordShift = 64 - (filterBits - 6);
    }

    private void addToFilter(long key) {
        long hash = key * FILTER_MULTIPLIER;
        filter[filterWord(hash, filterWordShift)] |= filterMask(hash);
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldValues = values;
        int bits = 64 - shift + 1;
        checkArgument(bits <= 30, "too many keys for one index: %s", tableSize);
        allocate(bits);
        for (int i = 0; i < oldKeys.length; i++) {
            long key = oldKeys[i];
            if (key != FREE) {
                int slot = slot(key);
                while (keys[slot] != FREE) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = key;
                values[slot] = oldValues[i];
                addToFilter(key);
            }
        }
        if (zeroValue != NONE) {
            addToFilter(FREE);
        }
    }
}
