package io.lakestream.merge;

/**
 * The rows of a batch that are still alive, as ascending row positions. Merge stages narrow it in
 * place instead of copying rows.
 */
public final class Selection {
    private final int[] rows;
    private int size;

    private Selection(int[] rows, int size) {
        this.rows = rows;
        this.size = size;
    }

    public static Selection all(int rowCount) {
        int[] rows = new int[rowCount];
        for (int i = 0; i < rowCount; i++) {
            rows[i] = i;
        }
        return new Selection(rows, rowCount);
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

    @FunctionalInterface
    public interface RowPredicate {
        boolean test(int row);
    }
}
