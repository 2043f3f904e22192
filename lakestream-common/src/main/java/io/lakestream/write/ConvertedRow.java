package io.lakestream.write;

/**
 * The validated values of one row in schema order, in the form the log stores them, so the writer
 * converts each value once and allocates nothing per row. A writer reuses one instance for all its
 * rows: it is filled by {@link RowConverter} (or a {@link RowBuffer}'s typed setters), read for the
 * bucket, and written into a segment before the next row overwrites it.
 *
 * <p>Which slot a column uses, and what it holds, is decided by its {@link ValueConverter}:
 * fixed-width values (booleans as 0/1, ints, longs, the raw bits of floats and doubles, days, micros,
 * unscaled decimals of precision up to 18) go to {@link #longs}; UUIDs and wide decimals go to
 * {@link #objects}; strings (as UTF-8), fixed and binary values are a {@code byte[]} in {@link
 * #objects} of which only {@link #lengths} bytes from {@link #offsets} are the value, so an engine's
 * bytes can be handed over without copying them out of a larger array first.
 */
final class ConvertedRow {
    final long[] longs;
    final Object[] objects;
    final int[] offsets;
    final int[] lengths;
    final boolean[] nulls;

    ConvertedRow(int columnCount) {
        this.longs = new long[columnCount];
        this.objects = new Object[columnCount];
        this.offsets = new int[columnCount];
        this.lengths = new int[columnCount];
        this.nulls = new boolean[columnCount];
    }

    int columnCount() {
        return nulls.length;
    }

    /** Slot {@code column} holds {@code length} bytes of {@code bytes} from {@code offset}. */
    void setBytes(int column, byte[] bytes, int offset, int length) {
        objects[column] = bytes;
        offsets[column] = offset;
        lengths[column] = length;
    }
}
