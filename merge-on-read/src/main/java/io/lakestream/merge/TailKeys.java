package io.lakestream.merge;

import static com.google.common.base.Preconditions.checkState;

import io.lakestream.log.ChangeType;
import io.lakestream.reader.LogBatch;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.iceberg.types.Type;

/**
 * The keys of a log tail's index for one merge pass, each mapped to its last change
 * ({@code offset << 1 | 1 if a delete}). Two layouts with the same meaning: {@link SingleLong} for a
 * primary key of one integral column (keys are primitive longs, sorted once: lake rows in key order are
 * merged with them in order), {@link Generic} for every other key (the canonical byte encoding of docs/merge.md).
 *
 * <p>Each layout decides which merge pass a key belongs to with its own hash; the index of a pass
 * and the lake rows probed against it always go through the same layout, so every key is still
 * handled in exactly one pass.
 */
sealed interface TailKeys permits TailKeys.SingleLong, TailKeys.Generic {
    /** The layout for a key of these column types. */
    static TailKeys forKeyTypes(List<Type> keyTypes, int expectedKeys) {
        if (keyTypes.size() == 1 && SingleLong.supports(keyTypes.get(0))) {
            return new SingleLong(expectedKeys);
        }
        return new Generic(keyTypes);
    }

    /** Indexes the changes of {@code batch} whose key belongs to the pass; returns how many it indexed. */
    long add(List<FieldVector> keyVectors, LogBatch batch, int pass, int passes);

    /**
     * Drops from {@code selection} the rows whose key has a change in the index and the rows whose key
     * belongs to another pass; returns how many rows a change hid.
     */
    int retainUnchanged(List<FieldVector> keyVectors, Selection selection, int pass, int passes);

    /** The value of every key. */
    long[] values();

    /** Encodes a change: its offset and whether it is a delete. */
    static long change(long offset, ChangeType type) {
        return change(offset, type.code());
    }

    /** {@link #change(long, ChangeType)} from the change type's code, as the log's vector holds it. */
    static long change(long offset, byte changeTypeCode) {
        if (changeTypeCode == ChangeType.DELETE.code()) {
            return offset << 1 | 1;
        }
        if (changeTypeCode != ChangeType.UPSERT.code()) {
            ChangeType.fromCode(changeTypeCode); // an unknown code: a corrupt segment, refused there
        }
        return offset << 1;
    }

    /**
     * A key of one int, date, long, time or timestamp column: the changes are collected in offset order and
     * sorted by key once after the last ({@link SortedLongChanges}); the null key beside them.
     */
    final class SingleLong implements TailKeys {
        private SortedLongChanges.Builder builder;
        /** The last change per key, sorted when the index is first read (all changes are added by then). */
        private SortedLongChanges sorted;

        private ChangedLongKeys changedKeys;
        private long nullValue = -1;
        private long[] scratch = new long[0];

        /** @param expectedChanges how many changes the pass is expected to add (the arrays grow beyond it) */
        SingleLong(int expectedChanges) {
            this.builder = new SortedLongChanges.Builder(expectedChanges);
        }

        /** The keys with a change (a primary key is never null: without the null key). */
        ChangedLongKeys changedKeys() {
            sorted();
            return changedKeys;
        }

        static boolean supports(Type type) {
            return switch (type.typeId()) {
                case INTEGER, DATE, LONG, TIME, TIMESTAMP -> true;
                default -> false;
            };
        }

        /** The merge pass of a key. */
        static int partition(long key, int passes) {
            return (int) ((LongKeyIndex.hash(key) >>> 1) % passes);
        }

        // the merge pass of the null key
        private static final int NULL_PARTITION = 0;

        @Override
        public long add(List<FieldVector> keyVectors, LogBatch batch, int pass, int passes) {
            checkState(sorted == null, "a change was added after the index was read");
            FieldVector vector = keyVectors.get(0);
            int rows = batch.rowCount();
            long[] keys = load(vector, rows);
            boolean nulls = vector.getNullCount() > 0;
            TinyIntVector changeTypes = batch.changeTypes();
            long added = 0;
            for (int row = 0; row < rows; row++) {
                long value = change(batch.firstOffset() + row, changeTypes.get(row));
                if (nulls && vector.isNull(row)) {
                    if (passes == 1 || NULL_PARTITION == pass) {
                        nullValue = value;
                        added++;
                    }
                    continue;
                }
                long key = keys[row];
                if (passes > 1 && partition(key, passes) != pass) {
                    continue;
                }
                builder.add(key, value);
                added++;
            }
            return added;
        }

        @Override
        public int retainUnchanged(List<FieldVector> keyVectors, Selection selection, int pass, int passes) {
            ChangedLongKeys changed = changedKeys();
            FieldVector vector = keyVectors.get(0);
            int[] rows = selection.rows();
            int size = selection.size();
            if (size == 0) {
                return 0;
            }
            long[] keys = load(vector, rows[size - 1] + 1);
            int kept = 0;
            int hidden = 0;
            if (passes == 1 && vector.getNullCount() == 0) {
                // the common case: one pass, no null keys; in key order, a merge with the sorted keys
                kept = changed.retainUnchanged(keys, rows, size);
                hidden = size - kept;
            } else {
                for (int i = 0; i < size; i++) {
                    int row = rows[i];
                    boolean isNull = vector.isNull(row);
                    int partition = isNull ? NULL_PARTITION : partition(keys[row], passes);
                    if (passes > 1 && partition != pass) {
                        continue;
                    }
                    boolean isChanged = isNull ? nullValue != -1 : changed.contains(keys[row]);
                    if (isChanged) {
                        hidden++;
                    } else {
                        rows[kept++] = row;
                    }
                }
            }
            selection.truncate(kept);
            return hidden;
        }

        @Override
        public long[] values() {
            long[] values = sorted().changes();
            if (nullValue == -1) {
                return values;
            }
            long[] withNull = java.util.Arrays.copyOf(values, values.length + 1);
            withNull[values.length] = nullValue;
            return withNull;
        }

        private SortedLongChanges sorted() {
            if (sorted == null) {
                sorted = builder.build();
                builder = null;
                changedKeys = new ChangedLongKeys(sorted.keys());
            }
            return sorted;
        }

        /** The first {@code rows} values of an int or long vector as longs (null rows hold garbage). */
        private long[] load(FieldVector vector, int rows) {
            if (scratch.length < rows) {
                scratch = new long[Math.max(rows, 1024)];
            }
            LongKeyVectors.load(vector, rows, scratch);
            return scratch;
        }
    }

    /** Any key: encoded into bytes ({@link ArrowKeyEncoder}) and kept in a {@link KeyIndex}. */
    final class Generic implements TailKeys {
        private final KeyIndex index = new KeyIndex();

        KeyIndex index() {
            return index;
        }

        private final List<Type> keyTypes;
        private final KeyBuffer key = new KeyBuffer();

        Generic(List<Type> keyTypes) {
            this.keyTypes = keyTypes;
        }

        /** The merge pass of an encoded key. */
        static int partition(KeyBuffer key, int passes) {
            return (key.hash() & Integer.MAX_VALUE) % passes;
        }

        @Override
        public long add(List<FieldVector> keyVectors, LogBatch batch, int pass, int passes) {
            ArrowKeyEncoder encoder = new ArrowKeyEncoder(keyVectors, keyTypes);
            TinyIntVector changeTypes = batch.changeTypes();
            long added = 0;
            for (int row = 0; row < batch.rowCount(); row++) {
                encoder.encode(row, key);
                if (passes > 1 && partition(key, passes) != pass) {
                    continue;
                }
                index.put(key, change(batch.firstOffset() + row, changeTypes.get(row)));
                added++;
            }
            return added;
        }

        @Override
        public int retainUnchanged(List<FieldVector> keyVectors, Selection selection, int pass, int passes) {
            ArrowKeyEncoder encoder = new ArrowKeyEncoder(keyVectors, keyTypes);
            int[] hidden = new int[1];
            selection.retain(row -> {
                encoder.encode(row, key);
                if (passes > 1 && partition(key, passes) != pass) {
                    return false;
                }
                if (index.contains(key)) {
                    hidden[0]++;
                    return false;
                }
                return true;
            });
            return hidden[0];
        }

        @Override
        public long[] values() {
            return index.values();
        }
    }
}
