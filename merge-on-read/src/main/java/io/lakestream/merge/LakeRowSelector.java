package io.lakestream.merge;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.function.Function;

/**
 * Selects the rows of lake batches that an engine reads with its own reader (Trino's or Spark's Parquet
 * reader): the one place where a lake row is dropped because an Iceberg position delete or equality delete
 * removes it, or because the split's log tail changes its key (a newer version or a delete hides it, whatever
 * the filter says about the newer version). It narrows an {@code int[]} of the batch's row positions in place;
 * the engine then selects those positions in its own batch without copying.
 *
 * <p>Per batch, in this order: position deletes, equality deletes (lake rows are counted here, with Iceberg's
 * deletes applied, as the union split reader counts them), the engine's filter (cheaper per row than a key
 * lookup, and it leaves fewer rows to look up), the tail's changed keys. One per split, on its reader's thread.
 */
public final class LakeRowSelector {
    private final Optional<LakeFileDeletes.EqualityDeleteKeys> tail;
    private LakeFileDeletes.FileDeletes deletes = LakeFileDeletes.FileDeletes.NONE;
    private final KeyBuffer key = new KeyBuffer();
    private long[] scratch = new long[0];
    private long lakeRows;
    private long lakeRowsHidden;

    /** Narrows row positions in place by an engine's own test (its enforced or pushed filter). */
    @FunctionalInterface
    public interface PositionFilter {
        PositionFilter NONE = (positions, size) -> size;

        /** Narrows {@code positions[0, size)} in place; returns how many remain. */
        int retain(int[] positions, int size);
    }

    /**
     * @param tailKeys the keys the split's log tail changes, over the primary key's columns, if the split has a
     *     tail
     */
    public LakeRowSelector(Optional<LakeFileDeletes.EqualityDeleteKeys> tailKeys) {
        this.tail = requireNonNull(tailKeys, "tailKeys is null");
    }

    /** A selector without a log tail: Iceberg's deletes only. */
    public static LakeRowSelector withoutTail() {
        return new LakeRowSelector(Optional.empty());
    }

    /** A selector that hides the lake rows whose primary key ({@code primaryKey}) the tail changes. */
    public static LakeRowSelector withTail(KeyColumns primaryKey, ChangedKeys changedKeys) {
        return new LakeRowSelector(Optional.of(new LakeFileDeletes.EqualityDeleteKeys(primaryKey, changedKeys)));
    }

    /** The next batches are of a lake data file with these deletes. */
    public void startFile(LakeFileDeletes.FileDeletes fileDeletes) {
        this.deletes = requireNonNull(fileDeletes, "fileDeletes is null");
    }

    /** The changed keys of the tail, over the primary key, if the split has one. */
    public Optional<LakeFileDeletes.EqualityDeleteKeys> tail() {
        return tail;
    }

    /**
     * True if batches of the current file may lose rows here (deletes, a tail): else, with no filter of its own,
     * the engine may return its batches as they are and {@link #keepAll} them.
     */
    public boolean selects() {
        return !deletes.isEmpty() || tail.isPresent();
    }

    /** True if the current file has position deletes: the engine must give every batch's first file row. */
    public boolean needsFileRows() {
        return !deletes.positions().isEmpty();
    }

    /** Counts a batch the engine returns whole (when {@link #selects()} is false). */
    public void keepAll(int rowCount) {
        lakeRows += rowCount;
    }

    /**
     * Fills {@code positions[0, rowCount)} with the batch's positions and narrows them to the rows the split
     * returns; returns how many.
     *
     * @param keys the key accessors of this batch ({@link KeyColumns} of the primary key and of each equality
     *     delete file)
     * @param firstFileRow the file row of the batch's first position (used with position deletes only)
     * @param filter the engine's own filter, applied after the deletes and before the tail's keys
     */
    public int select(
            Function<KeyColumns, LakeKeyAccessor> keys,
            long firstFileRow,
            int rowCount,
            int[] positions,
            PositionFilter filter) {
        for (int position = 0; position < rowCount; position++) {
            positions[position] = position;
        }
        int rows = rowCount;
        if (!deletes.positions().isEmpty()) {
            rows = deletes.positions().retainUndeleted(firstFileRow, positions, rows);
        }
        for (LakeFileDeletes.EqualityDeleteKeys equality : deletes.equality()) {
            rows = retain(equality.keys(), keys.apply(equality.columns()), rowCount, positions, rows);
        }
        lakeRows += rows;
        rows = filter.retain(positions, rows);
        if (tail.isPresent()) {
            int kept = retain(tail.get().keys(), keys.apply(tail.get().columns()), rowCount, positions, rows);
            lakeRowsHidden += rows - kept;
            rows = kept;
        }
        return rows;
    }

    private int retain(ChangedKeys changed, LakeKeyAccessor accessor, int rowCount, int[] positions, int size) {
        if (size == 0 || changed.size() == 0) {
            return size;
        }
        return switch (changed) {
            case ChangedLongKeys longs -> retainLongs(longs, accessor, rowCount, positions, size);
            case ChangedEncodedKeys encoded -> {
                int kept = 0;
                for (int i = 0; i < size; i++) {
                    int position = positions[i];
                    accessor.encode(position, key);
                    if (!encoded.contains(key)) {
                        positions[kept++] = position;
                    }
                }
                yield kept;
            }
        };
    }

    private int retainLongs(ChangedLongKeys longs, LakeKeyAccessor accessor, int rowCount, int[] positions, int size) {
        if (!(accessor instanceof FileRowKeys file)) {
            return longs.retainUnchanged(accessor.longKeys(positions, size), positions, size);
        }
        int from = (int) file.firstRow();
        if (file.ascending() && size == rowCount) {
            // every row of the batch, in key order: find the changed keys among the file's rows, no copy
            return longs.retainUnchangedInAscendingRange(file.fileKeys(), from, from + rowCount, positions);
        }
        if (scratch.length < rowCount) {
            scratch = new long[rowCount];
        }
        System.arraycopy(file.fileKeys(), from, scratch, 0, rowCount);
        return longs.retainUnchanged(scratch, positions, size);
    }

    /** Lake rows read so far, Iceberg's deletes applied (before the filter and the tail). */
    public long lakeRows() {
        return lakeRows;
    }

    /** Lake rows dropped so far because the tail changes their key. */
    public long lakeRowsHidden() {
        return lakeRowsHidden;
    }

    /** Lake rows whose keys were matched against the tail's changed keys in key order. */
    public long rowsInKeyOrder() {
        return tail.map(keys -> keys.keys() instanceof ChangedLongKeys longs ? longs.rowsInKeyOrder() : 0L)
                .orElse(0L);
    }
}
