package io.lakestream.write;

import static io.lakestream.common.LakestreamError.INVALID_ROW;

import io.lakestream.common.LakestreamException;
import java.util.Arrays;

/**
 * The validated rows a writer has not yet written to their segments, column by column, in the form
 * the log stores them, so each segment column is then written in one loop over many rows (see {@link
 * ColumnWriter}) instead of one value of every column per row. A writer reuses one batch: the setters
 * of the next row ({@link RowBuffer}, or {@link RowConverter} for boxed rows) fill index {@link
 * #size()}, {@link #finishRow} keeps it, and after the rows are routed to their segments {@link
 * #clear} makes every value of every row null again (a column not set is null).
 *
 * <p>Which array a column uses, and what it holds, is decided by its {@link ValueConverter}:
 * fixed-width values (booleans as 0/1, ints, longs, the raw bits of floats and doubles, days, micros,
 * unscaled decimals of precision up to 18) go to {@link #longs}; UUIDs and wide decimals to {@link
 * #objects}; strings (as UTF-8), fixed and binary values are copied into the column's byte area, so
 * the caller's array may change as soon as the setter returns (an engine reuses its row buffer).
 */
final class RowBatch {
    /** Rows per batch: large enough to amortize a batch, small enough to stay in the CPU caches. */
    static final int DEFAULT_CAPACITY = 1024;

    /**
     * A batch whose byte area of one column reaches this is full, whatever its row count: rows of large
     * values go to their segments early, so an area stays far below a Java array's limit.
     */
    static final int FULL_BYTES = 64 << 20;

    /** The most bytes a column's area can hold (a Java array's limit, with the JVM's header margin). */
    private static final long MAX_AREA_BYTES = Integer.MAX_VALUE - 8;

    final long[][] longs;
    /** Only for the columns that hold objects (null for the others). */
    final Object[][] objects;

    final boolean[][] nulls;
    /** Per column, the bytes of its string, fixed and binary values, back to back. */
    final byte[][] bytes;

    final int[][] starts;
    final int[][] lengths;
    final byte[] changeTypes;
    final long[] timestamps;
    private final int[] bytesUsed;
    private final boolean[] holdsObjects;
    private int size;

    /** {@code holdsObjects[i]}: column {@code i} keeps its values in {@link #objects}, cleared per batch. */
    RowBatch(int columnCount, int capacity, boolean[] holdsObjects) {
        this.longs = new long[columnCount][capacity];
        this.objects = new Object[columnCount][];
        this.nulls = new boolean[columnCount][capacity];
        this.bytes = new byte[columnCount][0];
        this.starts = new int[columnCount][capacity];
        this.lengths = new int[columnCount][capacity];
        this.bytesUsed = new int[columnCount];
        this.changeTypes = new byte[capacity];
        this.timestamps = new long[capacity];
        this.holdsObjects = holdsObjects.clone();
        for (int column = 0; column < columnCount; column++) {
            if (holdsObjects[column]) {
                objects[column] = new Object[capacity];
            }
        }
        clear();
    }

    int columnCount() {
        return nulls.length;
    }

    /** The rows kept so far; also the index of the row being set. */
    int size() {
        return size;
    }

    boolean isFull() {
        if (size == changeTypes.length) {
            return true;
        }
        for (int used : bytesUsed) {
            if (used >= FULL_BYTES) {
                return true;
            }
        }
        return false;
    }

    /** The bytes the column's values of all rows kept take (their total length). */
    int bytesUsed(int column) {
        return bytesUsed[column];
    }

    /** Column {@code column} of the row being set holds a copy of {@code length} bytes of {@code source} from {@code offset}. */
    void setBytes(int column, byte[] source, int offset, int length) {
        int start = bytesUsed[column];
        byte[] area = bytes[column];
        if (area.length - start < length) {
            long needed = (long) start + length;
            if (needed > MAX_AREA_BYTES) {
                // start is below FULL_BYTES: only a value of nearly 2 GiB gets here, far over what a segment takes
                throw new LakestreamException(
                        INVALID_ROW,
                        ("Invalid row: a value of %s bytes is larger than a column of a log record batch can hold (%s bytes);"
                                        + " store such large objects elsewhere and write a reference to them")
                                .formatted(length, SegmentWriter.MAX_COLUMN_BYTES));
            }
            area = Arrays.copyOf(area, (int)
                    Math.min(MAX_AREA_BYTES, Math.max(needed, Math.max(2L * area.length, 4096))));
            bytes[column] = area;
        }
        System.arraycopy(source, offset, area, start, length);
        bytesUsed[column] = start + length;
        starts[column][size] = start;
        lengths[column][size] = length;
    }

    /** Keeps the row being set (already validated) and moves on to the next one. */
    void finishRow(byte changeType, long timestampMicros) {
        changeTypes[size] = changeType;
        timestamps[size] = timestampMicros;
        size++;
    }

    /** Empties the batch: every value of every row null again, no object kept reachable. */
    void clear() {
        for (int column = 0; column < nulls.length; column++) {
            Arrays.fill(nulls[column], true);
            bytesUsed[column] = 0;
            if (holdsObjects[column]) {
                Arrays.fill(objects[column], null);
            }
        }
        size = 0;
    }
}
