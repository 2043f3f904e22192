package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LakeRowSelector} against an oracle built from what the test made: random lake batches (a long key, or a
 * key of an int and a string column), random position deletes, equality deletes on the key and on a nullable
 * column, a random engine filter and random changed keys of a log tail; keys in and out of order, and keys from a
 * whole file's cached keys ({@link FileRowKeys}). The kept positions and the counters must be exactly the
 * oracle's.
 */
@ExtendWith(Seeds.class)
class TestLakeRowSelector {
    private static final Types.NestedField LONG_KEY = Types.NestedField.required(1, "id", Types.LongType.get());
    private static final Types.NestedField INT_KEY = Types.NestedField.required(2, "a", Types.IntegerType.get());
    private static final Types.NestedField STRING_KEY = Types.NestedField.required(3, "b", Types.StringType.get());
    private static final Types.NestedField NULLABLE = Types.NestedField.optional(4, "c", Types.StringType.get());

    /** One lake batch as the test wrote it: per position, its key parts, its nullable column, its filter result. */
    private record Batch(long[] longKeys, int[] ints, String[] strings, String[] nullable, boolean[] passes) {
        int rowCount() {
            return passes.length;
        }
    }

    @Test
    void keepsExactlyTheRowsNoDeleteFilterOrTailDrops() {
        Random random = Seeds.random(19);
        for (int round = 0; round < 600; round++) {
            boolean longKey = random.nextBoolean();
            boolean ascending = longKey && random.nextInt(3) == 0;
            int keyRange = 1 + random.nextInt(round % 4 == 0 ? 40 : 5_000);
            int rowCount = random.nextInt(round % 5 == 0 ? 20 : 3_000);
            Batch batch = batch(random, rowCount, keyRange, ascending);
            long fileRows = rowCount + random.nextInt(100);
            long firstRow = fileRows - rowCount == 0 ? 0 : random.nextLong(fileRows - rowCount + 1);

            // the deletes and the tail, as sets the oracle checks
            Set<Long> deletedRows = new HashSet<>();
            int deletes = random.nextInt(4) == 0 ? 0 : random.nextInt(rowCount + 10);
            for (int i = 0; i < deletes; i++) {
                deletedRows.add((long) random.nextInt((int) fileRows));
            }
            Set<String> keyDeletes = keySet(random, longKey, keyRange, random.nextInt(3) == 0 ? 0 : 200);
            Set<String> nullableDeletes = new HashSet<>();
            if (random.nextBoolean()) {
                for (int i = 0; i < 20; i++) {
                    nullableDeletes.add(nullableValue(random));
                }
            }
            boolean hasTail = random.nextInt(4) != 0;
            Set<String> tailKeys = keySet(random, longKey, keyRange, random.nextInt(keyRange + 1));

            KeyColumns primaryKey =
                    longKey ? new KeyColumns(List.of(LONG_KEY)) : new KeyColumns(List.of(INT_KEY, STRING_KEY));
            KeyColumns nullableColumn = new KeyColumns(List.of(NULLABLE));
            List<LakeFileDeletes.EqualityDeleteKeys> equality = new ArrayList<>();
            if (!keyDeletes.isEmpty() || random.nextBoolean()) {
                equality.add(new LakeFileDeletes.EqualityDeleteKeys(
                        primaryKey, changedKeys(keyDeletes, longKey, random.nextBoolean())));
            }
            if (!nullableDeletes.isEmpty()) {
                equality.add(new LakeFileDeletes.EqualityDeleteKeys(
                        nullableColumn, changedKeys(nullableDeletes, false, false)));
            }
            long[] sortedDeletedRows =
                    deletedRows.stream().mapToLong(Long::longValue).sorted().toArray();
            LakeRowSelector selector = hasTail
                    ? LakeRowSelector.withTail(primaryKey, changedKeys(tailKeys, longKey, random.nextBoolean()))
                    : LakeRowSelector.withoutTail();
            selector.startFile(new LakeFileDeletes.FileDeletes(PositionDeletes.of(sortedDeletedRows), equality));

            // the file's cached keys: the batch's keys at its rows, other rows' keys around them in order
            boolean cachedKeys = longKey && random.nextBoolean();
            long[] fileKeys = new long[(int) fileRows];
            for (int row = 0; row < fileKeys.length; row++) {
                long offset = row - firstRow;
                fileKeys[row] = offset >= 0 && offset < rowCount
                        ? batch.longKeys()[(int) offset]
                        : offset < 0 ? Long.MIN_VALUE + row : Long.MAX_VALUE - fileKeys.length + row;
            }

            int[] positions = new int[rowCount];
            int kept = selector.select(
                    columns -> {
                        if (columns.equals(nullableColumn)) {
                            return accessor(batch, false, true);
                        }
                        return cachedKeys
                                ? new FileRowKeys(fileKeys, ascending, firstRow, rowCount)
                                : accessor(batch, longKey, false);
                    },
                    firstRow,
                    rowCount,
                    positions,
                    (rows, size) -> {
                        int left = 0;
                        for (int i = 0; i < size; i++) {
                            if (batch.passes()[rows[i]]) {
                                rows[left++] = rows[i];
                            }
                        }
                        return left;
                    });

            // the oracle
            List<Integer> expected = new ArrayList<>();
            long lakeRows = 0;
            long hidden = 0;
            for (int position = 0; position < rowCount; position++) {
                String key = key(batch, position, longKey);
                if (deletedRows.contains(firstRow + position)
                        || keyDeletes.contains(key)
                        || nullableDeletes.contains(batch.nullable()[position])) {
                    continue;
                }
                lakeRows++;
                if (!batch.passes()[position]) {
                    continue;
                }
                if (hasTail && tailKeys.contains(key)) {
                    hidden++;
                    continue;
                }
                expected.add(position);
            }
            assertThat(Arrays.stream(positions, 0, kept).boxed().toList())
                    .as("round %d (long key %s, ascending %s, cached keys %s)", round, longKey, ascending, cachedKeys)
                    .isEqualTo(expected);
            assertThat(selector.lakeRows()).as("lake rows, round %d", round).isEqualTo(lakeRows);
            assertThat(selector.lakeRowsHidden())
                    .as("hidden rows, round %d", round)
                    .isEqualTo(hidden);
        }
    }

    @Test
    void aFileWithoutDeletesOrTailSelectsNothingAndCountsItsRows() {
        LakeRowSelector selector = LakeRowSelector.withoutTail();
        selector.startFile(LakeFileDeletes.FileDeletes.NONE);
        assertThat(selector.selects()).isFalse();
        assertThat(selector.needsFileRows()).isFalse();
        selector.keepAll(7);
        assertThat(selector.lakeRows()).isEqualTo(7);

        selector.startFile(new LakeFileDeletes.FileDeletes(PositionDeletes.of(new long[] {3}), List.of()));
        assertThat(selector.selects()).isTrue();
        assertThat(selector.needsFileRows()).isTrue();
    }

    private static Batch batch(Random random, int rowCount, int keyRange, boolean ascending) {
        long[] longKeys = new long[rowCount];
        int[] ints = new int[rowCount];
        String[] strings = new String[rowCount];
        String[] nullable = new String[rowCount];
        boolean[] passes = new boolean[rowCount];
        boolean filter = random.nextBoolean();
        for (int i = 0; i < rowCount; i++) {
            longKeys[i] = random.nextInt(keyRange) - keyRange / 2;
            ints[i] = random.nextInt(keyRange);
            strings[i] = "s" + random.nextInt(3);
            nullable[i] = nullableValue(random);
            passes[i] = !filter || random.nextInt(4) != 0;
        }
        if (ascending) {
            Arrays.sort(longKeys);
        }
        return new Batch(longKeys, ints, strings, nullable, passes);
    }

    private static String nullableValue(Random random) {
        return random.nextInt(5) == 0 ? null : "v" + random.nextInt(30);
    }

    /** Random keys in the test's own notation (the long, or int and string joined). */
    private static Set<String> keySet(Random random, boolean longKey, int keyRange, int count) {
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < count; i++) {
            keys.add(
                    longKey
                            ? Long.toString(random.nextInt(keyRange + 20) - keyRange / 2 - 10)
                            : random.nextInt(keyRange) + "/s" + random.nextInt(4));
        }
        return keys;
    }

    private static String key(Batch batch, int position, boolean longKey) {
        return longKey
                ? Long.toString(batch.longKeys()[position])
                : batch.ints()[position] + "/" + batch.strings()[position];
    }

    /** The same keys in the selector's layouts; sorted long keys as a tail's, or hashed as a delete file's. */
    private static ChangedKeys changedKeys(Set<String> keys, boolean longKey, boolean sorted) {
        if (longKey) {
            long[] values = keys.stream().mapToLong(Long::parseLong).sorted().toArray();
            if (sorted) {
                return new ChangedLongKeys(values);
            }
            LongKeyIndex index = new LongKeyIndex();
            Arrays.stream(values).forEach(value -> index.put(value, 0));
            return ChangedLongKeys.of(index);
        }
        KeyIndex index = new KeyIndex();
        KeyBuffer buffer = new KeyBuffer();
        for (String key : keys) {
            if (key == null || !key.contains("/")) {
                encodeNullable(key, buffer);
            } else {
                String[] parts = key.split("/", 2);
                encodeComposite(Integer.parseInt(parts[0]), parts[1], buffer);
            }
            index.put(buffer, 0);
        }
        return ChangedEncodedKeys.of(index);
    }

    private static LakeKeyAccessor accessor(Batch batch, boolean longKey, boolean nullableColumn) {
        return new LakeKeyAccessor() {
            @Override
            public long[] longKeys(int[] positions, int size) {
                assertThat(longKey).as("long keys asked of an encoded key").isTrue();
                return batch.longKeys();
            }

            @Override
            public void encode(int position, KeyBuffer key) {
                if (nullableColumn) {
                    encodeNullable(batch.nullable()[position], key);
                } else {
                    encodeComposite(batch.ints()[position], batch.strings()[position], key);
                }
            }
        };
    }

    private static void encodeComposite(int a, String b, KeyBuffer key) {
        key.reset();
        key.putByte((byte) 0);
        key.putInt(a);
        key.putByte((byte) 0);
        byte[] bytes = b.getBytes(StandardCharsets.UTF_8);
        key.putVariable(bytes, 0, bytes.length);
    }

    private static void encodeNullable(String value, KeyBuffer key) {
        key.reset();
        if (value == null) {
            key.putByte((byte) 1);
            return;
        }
        key.putByte((byte) 0);
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        key.putVariable(bytes, 0, bytes.length);
    }
}
