package io.lakestream.merge;

/**
 * The rows of a batch that are still alive, as ascending row positions. Merge stages narrow it in
 * place instead of copying rows. A selection can be reset and reused for the next batch, so a
 * stream of batches allocates one.
 */
public final class Selection {
    private int[] rows;
    private int size;

    private Selection(int[] rows, int size) {
        this.rows = rows;
        this.size = size;
    }

    public static Selection all(int rowCount) {
        Selection selection = new Selection(new int[rowCount], 0);
        selection.reset(rowCount);
        return selection;
    }

    /** Selects all rows {@code [0, rowCount)} again. */
    public void reset(int rowCount) {
        if (rows.length < rowCount) {
            rows = new int[rowCount];
        }
        for (int i = 0; i < rowCount; i++) {
            rows[i] = i;
        }
        size = rowCount;
    }

    public int size() {
        return size;
    }

    public int row(int i) {
        return rows[i];
    }

    public boolean isEmpty() {
        return size == 0;
    }

    /** Keeps the rows the predicate accepts, in order. */
    public void retain(RowPredicate predicate) {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            int row = rows[i];
            if (predicate.test(row)) {
                rows[kept++] = row;
            }
        }
        size = kept;
    }

    /** The row positions; the first {@link #size()} are selected. For loops that narrow in place. */
    int[] rows() {
        return rows;
    }

    /** Keeps the first {@code newSize} positions of {@link #rows()}. */
    void truncate(int newSize) {
        if (newSize < 0 || newSize > size) {
            throw new IllegalArgumentException("cannot truncate %s rows to %s".formatted(size, newSize));
        }
        size = newSize;
    }

    @FunctionalInterface
    public interface RowPredicate {
        boolean test(int row);
    }
}
