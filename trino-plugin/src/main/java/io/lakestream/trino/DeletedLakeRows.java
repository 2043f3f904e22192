package io.lakestream.trino;

import java.util.Arrays;

/**
 * The rows of one lake data file that its Iceberg position delete files remove, applied to the pages of
 * the file: a page of consecutive rows (read without page skipping) walks the sorted deleted rows once.
 */
final class DeletedLakeRows {
    static final DeletedLakeRows NONE = new DeletedLakeRows(new long[0]);

    private final long[] rows;

    /** @param rows the deleted rows of the file (0 for its first row), ascending */
    DeletedLakeRows(long[] rows) {
        this.rows = rows;
    }

    boolean isEmpty() {
        return rows.length == 0;
    }

    /**
     * Narrows {@code positions[0, size)} (ascending) in place to the rows not deleted; page position {@code p}
     * is row {@code firstRow + p} of the file.
     *
     * @return the rows left
     */
    int retainUndeleted(long firstRow, int[] positions, int size) {
        int next = Arrays.binarySearch(rows, firstRow);
        if (next < 0) {
            next = -next - 1;
        }
        int kept = 0;
        for (int i = 0; i < size; i++) {
            long row = firstRow + positions[i];
            while (next < rows.length && rows[next] < row) {
                next++;
            }
            if (next == rows.length || rows[next] != row) {
                positions[kept++] = positions[i];
            }
        }
        return kept;
    }
}
