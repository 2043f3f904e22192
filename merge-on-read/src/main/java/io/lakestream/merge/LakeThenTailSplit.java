package io.lakestream.merge;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * One split read by an engine's own reader ({@link LakeReadPath#LAKE_PARQUET} and {@link
 * LakeReadPath#LAKE_PARQUET_MERGE}): first the kept rows of its lake batches, then the tail's winners, and no
 * more rows than the limit. The one place that sequences these phases for both engines; an engine supplies its
 * batches ({@link LakeBatches}, {@link TailBatches}) in its own type {@code B} (Trino's pages, Spark's batches)
 * and how to narrow one without copying.
 *
 * <p>The lake phase passes each lake batch through the split's {@link LakeRowSelector} (Iceberg deletes, the
 * engine's filter, the tail's changed keys); a batch the selector leaves whole is returned as the engine read it.
 * The tail phase starts only when the lake is done and the limit is not reached: its reader is opened then (the
 * tail's winners are re-read from the log, which is wasted work when the limit is already met). Each key comes
 * from exactly one side: the selector drops every lake row whose key the tail changes, and the tail returns only
 * the last change of each key, if it is not a delete.
 *
 * <p>The limit is a hint of the engines (they apply it again), but it is kept exactly here: a batch that passes it
 * is cut to its first rows. One per split, on its reader's thread.
 *
 * @param <B> the engine's batch type
 */
public final class LakeThenTailSplit<B> implements AutoCloseable {
    /** The lake files of a split as an engine's reader returns them, and how the engine narrows its batches. */
    public interface LakeBatches<B> extends AutoCloseable {
        /**
         * The next batch of the split's lake files, every row of it as the reader returns it, or {@code null}
         * when the files are done. Before the first batch of each file it tells {@code selector} the file's deletes
         * ({@link LakeRowSelector#startFile}).
         */
        B next(LakeRowSelector selector);

        int rowCount(B batch);

        /** The file row of the batch's first row; asked once per batch, only when the file has position deletes. */
        long firstFileRow(B batch);

        /** The key {@code columns} of the batch's rows, over the engine's columns. */
        LakeKeyAccessor keys(KeyColumns columns, B batch);

        /** True if the engine drops rows of its own ({@link #filter}): else every batch the selector keeps whole is. */
        boolean filters();

        /** Narrows {@code positions[0, size)} of the batch to the rows that pass the engine's filter. */
        int filter(B batch, int[] positions, int size);

        /** An array of at least {@code rowCount} positions, which the batch made by {@link #selectedRows} may keep. */
        int[] positions(int rowCount);

        /** The first {@code size} rows of the batch ({@code size} may be its row count: the whole batch). */
        B firstRows(B batch, int size);

        /** The rows {@code positions[0, size)} of the batch, ascending; fewer than its row count. */
        B selectedRows(B batch, int[] positions, int size);

        @Override
        void close();
    }

    /** The tail's winners of a split, as an engine reads them. */
    public interface TailBatches<B> extends AutoCloseable {
        /** The next batch of the tail's winners, or {@code null} when there are no more. */
        B next();

        int rowCount(B batch);

        /** The first {@code size} rows of the batch, fewer than its row count. */
        B firstRows(B batch, int size);

        @Override
        void close();
    }

    private final LakeBatches<B> lake;
    private final LakeRowSelector selector;
    private final Optional<Supplier<TailBatches<B>>> tailOpener;
    private final long limit;
    private TailBatches<B> tail;
    private long lakeRowsReturned;
    private long tailRowsReturned;
    private boolean finished;

    /**
     * @param lake the split's lake batches
     * @param selector decides which lake rows the split returns (with the tail's changed keys, if it has a tail)
     * @param tail opens the reader of the tail's winners when the lake is done, if the split has a tail
     * @param limit the most rows the split returns ({@link Long#MAX_VALUE} for no limit)
     */
    public LakeThenTailSplit(
            LakeBatches<B> lake, LakeRowSelector selector, Optional<Supplier<TailBatches<B>>> tail, long limit) {
        this.lake = requireNonNull(lake, "lake is null");
        this.selector = requireNonNull(selector, "selector is null");
        this.tailOpener = requireNonNull(tail, "tail is null");
        if (limit < 0) {
            throw new IllegalArgumentException("limit is negative: " + limit);
        }
        if (tail.isPresent() != selector.tail().isPresent()) {
            // a tail whose keys do not hide lake rows would return two versions of a key
            throw new IllegalArgumentException("the selector must hide the tail's keys exactly when there is a tail");
        }
        this.limit = limit;
        this.finished = limit == 0;
    }

    /** The next batch of the split (never an empty one), or {@code null} when it is done. */
    public B next() {
        while (!finished) {
            if (tail == null) {
                B read = lake.next(selector);
                if (read == null) {
                    if (tailOpener.isEmpty()) {
                        finished = true;
                        break;
                    }
                    tail = tailOpener.get().get();
                    continue;
                }
                B kept = keptLakeRows(read);
                if (kept != null) {
                    return kept;
                }
                continue;
            }
            B winners = tail.next();
            if (winners == null) {
                finished = true;
                break;
            }
            int rows = tail.rowCount(winners);
            if (rows == 0) {
                continue;
            }
            int returned = withinLimit(rows);
            tailRowsReturned += returned;
            return returned == rows ? winners : tail.firstRows(winners, returned);
        }
        return null;
    }

    /** The rows of a lake batch the split returns, or null if none. */
    private B keptLakeRows(B read) {
        int rowCount = lake.rowCount(read);
        long firstFileRow = selector.needsFileRows() ? lake.firstFileRow(read) : 0;
        if (rowCount == 0) {
            return null;
        }
        int[] positions = null;
        int rows = rowCount;
        if (selector.selects() || lake.filters()) {
            positions = lake.positions(rowCount);
            rows = selector.select(
                    columns -> lake.keys(columns, read),
                    firstFileRow,
                    rowCount,
                    positions,
                    (selected, size) -> lake.filter(read, selected, size));
        } else {
            selector.keepAll(rowCount);
        }
        if (rows == 0) {
            return null;
        }
        boolean narrowed = rows < rowCount;
        int returned = withinLimit(rows);
        lakeRowsReturned += returned;
        // a selection cut by the limit keeps its first positions; an unselected batch its first rows
        return narrowed ? lake.selectedRows(read, positions, returned) : lake.firstRows(read, returned);
    }

    /** How many of {@code rows} the limit lets through; the split finishes when it is reached. */
    private int withinLimit(int rows) {
        long remaining = limit - lakeRowsReturned - tailRowsReturned;
        if (rows >= remaining) {
            finished = true;
            return (int) remaining;
        }
        return rows;
    }

    /** True if {@link #next} returns no more batches. */
    public boolean isFinished() {
        return finished;
    }

    /** The split's selector, with its counters (lake rows read and hidden, rows matched in key order). */
    public LakeRowSelector selector() {
        return selector;
    }

    /** True once the tail's reader is open (the lake phase is over and the limit was not reached in it). */
    public boolean inTail() {
        return tail != null;
    }

    /** Lake rows returned. */
    public long lakeRowsReturned() {
        return lakeRowsReturned;
    }

    /** Rows of the tail's winners returned. */
    public long tailRowsReturned() {
        return tailRowsReturned;
    }

    @Override
    public void close() {
        finished = true;
        TailBatches<B> tailToClose = tail;
        // the lake side is closed even when closing the tail fails
        try (LakeBatches<B> lakeToClose = lake) {
            if (tailToClose != null) {
                tailToClose.close();
            }
        }
    }
}
