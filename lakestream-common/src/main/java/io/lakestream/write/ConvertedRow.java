package io.lakestream.write;

/**
 * The validated values of one row in schema order, in the form the log stores them, so the writer
 * converts each value once and allocates nothing per row. A writer reuses one instance for all its
 * rows: it is filled by {@link RowConverter}, read for the bucket, and written into a segment before
 * the next row overwrites it.
 *
 * <p>Which slot a column uses, and what it holds, is decided by its {@link ValueConverter}:
 * fixed-width values (booleans as 0/1, ints, longs, the raw bits of floats and doubles, days, micros,
 * unscaled decimals of precision up to 18) go to {@link #longs}; strings, UUIDs, byte arrays and wide
 * decimals go to {@link #objects}.
 */
final class ConvertedRow {
    final long[] longs;
    final Object[] objects;
    final boolean[] nulls;

    ConvertedRow(int columnCount) {
        this.longs = new long[columnCount];
        this.objects = new Object[columnCount];
        this.nulls = new boolean[columnCount];
    }

    int columnCount() {
        return nulls.length;
    }
}
