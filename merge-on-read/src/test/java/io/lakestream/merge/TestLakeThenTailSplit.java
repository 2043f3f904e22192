package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.Seeds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LakeThenTailSplit} with a batch type of the test's own (a batch is its rows' keys): the kept lake rows of
 * every file in order, then the tail's winners, never more rows than the limit, the tail opened only when the lake
 * phase ends below the limit, both sides closed. Against an oracle built from the files, deletes, filter and tail
 * the test made.
 */
@ExtendWith(Seeds.class)
class TestLakeThenTailSplit {
    private static final KeyColumns KEY =
            new KeyColumns(List.of(Types.NestedField.required(1, "id", Types.LongType.get())));

    /** A batch: the keys of its rows, in the engine's type. A lake batch also knows where it starts in its file. */
    private record Rows(long[] keys, long firstFileRow) {
        Rows(long... keys) {
            this(keys, 0);
        }
    }

    /** One lake file as the test wrote it: its batches and its deleted file rows. */
    private record File(List<long[]> batches, long[] deletedRows) {}

    @Test
    void lakeRowsThenTheTailsWinners() {
        Lake lake =
                new Lake(List.of(new File(List.of(new long[] {1, 2, 3}, new long[] {4, 5}), new long[] {1})), false);
        Tail tail = new Tail(List.of(new long[] {2, 9}));
        List<Long> rows = readAll(split(lake, Optional.of(tail), Set.of(2L, 9L), Long.MAX_VALUE));
        // row 1 of the file (key 2) is deleted, key 2 is changed by the tail, which returns its winners 2 and 9
        assertThat(rows).containsExactly(1L, 3L, 4L, 5L, 2L, 9L);
        assertThat(lake.closed).isTrue();
        assertThat(tail.opened).isTrue();
        assertThat(tail.closed).isTrue();
    }

    @Test
    void aLimitReachedInTheLakeNeverOpensTheTail() {
        Lake lake = new Lake(List.of(new File(List.of(new long[] {1, 2, 3}, new long[] {4, 5}), new long[0])), false);
        Tail tail = new Tail(List.of(new long[] {7}));
        LakeThenTailSplit<Rows> split = split(lake, Optional.of(tail), Set.of(7L), 4);
        assertThat(readAll(split)).containsExactly(1L, 2L, 3L, 4L);
        assertThat(tail.opened).isFalse();
        assertThat(split.lakeRowsReturned()).isEqualTo(4);
        assertThat(split.tailRowsReturned()).isZero();
        // the limit was met with the second batch: no further lake batch is read
        assertThat(lake.batchesRead).isEqualTo(2);
    }

    @Test
    void aLimitReachedInTheTailCutsItsBatch() {
        Lake lake = new Lake(List.of(new File(List.of(new long[] {1, 2}), new long[0])), false);
        Tail tail = new Tail(List.of(new long[] {7, 8}, new long[] {9, 10, 11}));
        LakeThenTailSplit<Rows> split = split(lake, Optional.of(tail), Set.of(7L, 8L, 9L, 10L, 11L), 5);
        assertThat(readAll(split)).containsExactly(1L, 2L, 7L, 8L, 9L);
        assertThat(split.tailRowsReturned()).isEqualTo(3);
        assertThat(tail.batchesRead).isEqualTo(2);
    }

    @Test
    void anEmptyLakeGoesStraightToTheTail() {
        Lake lake = new Lake(List.of(), false);
        Tail tail = new Tail(List.of(new long[0], new long[] {3}));
        LakeThenTailSplit<Rows> split = split(lake, Optional.of(tail), Set.of(3L), Long.MAX_VALUE);
        assertThat(readAll(split)).containsExactly(3L);
        assertThat(split.lakeRowsReturned()).isZero();
        assertThat(split.selector().lakeRows()).isZero();
    }

    @Test
    void anEmptyTailEndsAfterTheLake() {
        Lake lake = new Lake(List.of(new File(List.of(new long[] {1, 2}), new long[0])), false);
        Tail tail = new Tail(List.of());
        LakeThenTailSplit<Rows> split = split(lake, Optional.of(tail), Set.of(2L), Long.MAX_VALUE);
        assertThat(readAll(split)).containsExactly(1L);
        assertThat(split.selector().lakeRowsHidden()).isEqualTo(1);
        assertThat(tail.opened).isTrue();
        assertThat(split.isFinished()).isTrue();
    }

    @Test
    void aBatchTheSelectorKeepsWholeIsTheEnginesOwn() {
        Lake lake = new Lake(List.of(new File(List.of(new long[] {1, 2}), new long[0])), false);
        LakeThenTailSplit<Rows> split = split(lake, Optional.empty(), Set.of(), Long.MAX_VALUE);
        Rows first = split.next();
        assertThat(first).isSameAs(lake.lastRead);
        assertThat(split.next()).isNull();
        assertThat(split.selector().lakeRows()).isEqualTo(2);
    }

    @Test
    void theLakeIsClosedWhenClosingTheTailFails() {
        Lake lake = new Lake(List.of(), false);
        Tail tail = new Tail(List.of(new long[] {1})) {
            @Override
            public void close() {
                super.close();
                throw new IllegalStateException("cannot close the tail");
            }
        };
        LakeThenTailSplit<Rows> split = split(lake, Optional.of(tail), Set.of(1L), Long.MAX_VALUE);
        assertThat(split.next().keys()).containsExactly(1);
        assertThatThrownBy(split::close).hasMessage("cannot close the tail");
        assertThat(lake.closed).isTrue();
    }

    @Test
    void aTailNeedsTheSelectorToHideItsKeys() {
        Tail tail = new Tail(List.of());
        assertThatThrownBy(() -> new LakeThenTailSplit<>(
                        new Lake(List.of(), false), LakeRowSelector.withoutTail(), Optional.of(() -> tail), 10))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void returnsWhatTheOracleReturns() {
        Random random = Seeds.random(1219);
        for (int round = 0; round < 2_000; round++) {
            int keyRange = 1 + random.nextInt(round % 3 == 0 ? 10 : 300);
            List<File> files = new ArrayList<>();
            int fileCount = random.nextInt(4);
            for (int f = 0; f < fileCount; f++) {
                List<long[]> batches = new ArrayList<>();
                int batchCount = random.nextInt(4);
                int fileRows = 0;
                for (int b = 0; b < batchCount; b++) {
                    long[] keys = new long[random.nextInt(round % 4 == 0 ? 3 : 50)];
                    for (int i = 0; i < keys.length; i++) {
                        keys[i] = random.nextInt(keyRange);
                    }
                    batches.add(keys);
                    fileRows += keys.length;
                }
                TreeSet<Long> deleted = new TreeSet<>();
                int deletes = fileRows == 0 || random.nextBoolean() ? 0 : random.nextInt(fileRows);
                for (int i = 0; i < deletes; i++) {
                    deleted.add((long) random.nextInt(fileRows));
                }
                files.add(new File(
                        batches, deleted.stream().mapToLong(Long::longValue).toArray()));
            }
            boolean filters = random.nextBoolean();
            boolean hasTail = random.nextInt(4) != 0;
            Set<Long> changed = new HashSet<>();
            List<long[]> winners = new ArrayList<>();
            if (hasTail) {
                int changes = random.nextInt(keyRange + 1);
                for (int i = 0; i < changes; i++) {
                    changed.add((long) random.nextInt(keyRange + 5));
                }
                // the winners are some of the changed keys (the others were deleted), cut into batches
                List<Long> upserted = changed.stream()
                        .sorted()
                        .filter(_ -> random.nextBoolean())
                        .toList();
                int from = 0;
                while (from < upserted.size()) {
                    int to = Math.min(upserted.size(), from + random.nextInt(5));
                    winners.add(upserted.subList(from, to).stream()
                            .mapToLong(Long::longValue)
                            .toArray());
                    from = to;
                }
            }
            long limit = random.nextInt(3) == 0 ? Long.MAX_VALUE : random.nextInt(60);

            // the oracle: kept lake rows file by file, then the winners, up to the limit
            List<Long> lakeRows = new ArrayList<>();
            long lakeRowsRead = 0;
            long hidden = 0;
            for (File file : files) {
                Set<Long> deleted = new HashSet<>();
                Arrays.stream(file.deletedRows()).forEach(deleted::add);
                long row = 0;
                for (long[] batch : file.batches()) {
                    for (long key : batch) {
                        if (!deleted.contains(row++)) {
                            lakeRowsRead++;
                            if (filters && !passes(key)) {
                                continue;
                            }
                            if (changed.contains(key)) {
                                hidden++;
                            } else {
                                lakeRows.add(key);
                            }
                        }
                    }
                }
            }
            List<Long> expected = new ArrayList<>(lakeRows);
            winners.forEach(batch -> Arrays.stream(batch).forEach(expected::add));
            boolean limitInLake = lakeRows.size() >= limit;
            List<Long> limited = expected.subList(0, (int) Math.min(expected.size(), limit));

            Lake lake = new Lake(files, filters);
            Tail tail = new Tail(winners);
            LakeThenTailSplit<Rows> split = split(lake, hasTail ? Optional.of(tail) : Optional.empty(), changed, limit);
            List<Long> actual = readAll(split);
            String description = "round %d (limit %d, tail %s, filter %s)".formatted(round, limit, hasTail, filters);
            assertThat(actual).as(description).isEqualTo(limited);
            assertThat(tail.opened).as("tail opened, " + description).isEqualTo(hasTail && !limitInLake);
            assertThat(split.lakeRowsReturned() + split.tailRowsReturned())
                    .as(description)
                    .isEqualTo(limited.size());
            if (limit == Long.MAX_VALUE) {
                // every lake batch was read: the selector counted all of them
                assertThat(split.selector().lakeRows()).as(description).isEqualTo(lakeRowsRead);
                assertThat(split.selector().lakeRowsHidden()).as(description).isEqualTo(hidden);
            }
            assertThat(lake.closed).as(description).isTrue();
            assertThat(tail.closed).as(description).isEqualTo(tail.opened);
        }
    }

    /** The engine's own filter of the test: even keys pass. */
    private static boolean passes(long key) {
        return key % 2 == 0;
    }

    private static LakeThenTailSplit<Rows> split(Lake lake, Optional<Tail> tail, Set<Long> changed, long limit) {
        LakeRowSelector selector = tail.isPresent()
                ? LakeRowSelector.withTail(
                        KEY,
                        new ChangedLongKeys(changed.stream()
                                .mapToLong(Long::longValue)
                                .sorted()
                                .toArray()))
                : LakeRowSelector.withoutTail();
        Optional<Supplier<LakeThenTailSplit.TailBatches<Rows>>> opener = tail.map(batches -> () -> {
            batches.opened = true;
            return batches;
        });
        return new LakeThenTailSplit<>(lake, selector, opener, limit);
    }

    /** Every key the split returns, in order; closes it. */
    private static List<Long> readAll(LakeThenTailSplit<Rows> split) {
        List<Long> keys = new ArrayList<>();
        try (split) {
            for (Rows rows = split.next(); rows != null; rows = split.next()) {
                assertThat(rows.keys()).as("an empty batch returned").isNotEmpty();
                Arrays.stream(rows.keys()).forEach(keys::add);
            }
            assertThat(split.isFinished()).isTrue();
        }
        return keys;
    }

    /** The lake side: the files' batches in order, each file's deletes given to the selector at its start. */
    private static final class Lake implements LakeThenTailSplit.LakeBatches<Rows> {
        private final List<File> files;
        private final boolean filters;
        private int file = -1;
        private int batch;
        private long fileRow;
        int batchesRead;
        Rows lastRead;
        boolean closed;

        Lake(List<File> files, boolean filters) {
            this.files = files;
            this.filters = filters;
        }

        @Override
        public Rows next(LakeRowSelector selector) {
            while (file < 0 || batch == files.get(file).batches().size()) {
                if (++file == files.size()) {
                    return null;
                }
                batch = 0;
                fileRow = 0;
                selector.startFile(new LakeFileDeletes.FileDeletes(
                        PositionDeletes.of(files.get(file).deletedRows()), List.of()));
            }
            long[] keys = files.get(file).batches().get(batch++);
            lastRead = new Rows(keys, fileRow);
            fileRow += keys.length;
            batchesRead++;
            return lastRead;
        }

        @Override
        public int rowCount(Rows batch) {
            return batch.keys().length;
        }

        @Override
        public long firstFileRow(Rows batch) {
            return batch.firstFileRow();
        }

        @Override
        public LakeKeyAccessor keys(KeyColumns columns, Rows batch) {
            assertThat(columns).isEqualTo(KEY);
            return new LakeKeyAccessor() {
                @Override
                public long[] longKeys(int[] positions, int size) {
                    return batch.keys();
                }

                @Override
                public void encode(int position, KeyBuffer key) {
                    throw new AssertionError("a long key is matched as longs");
                }
            };
        }

        @Override
        public boolean filters() {
            return filters;
        }

        @Override
        public int filter(Rows batch, int[] positions, int size) {
            int kept = 0;
            for (int i = 0; i < size; i++) {
                if (!filters || passes(batch.keys()[positions[i]])) {
                    positions[kept++] = positions[i];
                }
            }
            return kept;
        }

        @Override
        public int[] positions(int rowCount) {
            return new int[rowCount];
        }

        @Override
        public Rows firstRows(Rows batch, int size) {
            return size == batch.keys().length ? batch : new Rows(Arrays.copyOf(batch.keys(), size));
        }

        @Override
        public Rows selectedRows(Rows batch, int[] positions, int size) {
            assertThat(size).isLessThan(batch.keys().length);
            long[] keys = new long[size];
            for (int i = 0; i < size; i++) {
                keys[i] = batch.keys()[positions[i]];
            }
            return new Rows(keys);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** The tail's winners, batch by batch. */
    private static class Tail implements LakeThenTailSplit.TailBatches<Rows> {
        private final List<long[]> batches;
        int batchesRead;
        boolean opened;
        boolean closed;

        Tail(List<long[]> batches) {
            this.batches = batches;
        }

        @Override
        public Rows next() {
            return batchesRead == batches.size() ? null : new Rows(batches.get(batchesRead++));
        }

        @Override
        public int rowCount(Rows batch) {
            return batch.keys().length;
        }

        @Override
        public Rows firstRows(Rows batch, int size) {
            assertThat(size).isLessThan(batch.keys().length);
            return new Rows(Arrays.copyOf(batch.keys(), size));
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
