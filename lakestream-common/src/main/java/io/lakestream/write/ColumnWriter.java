package io.lakestream.write;

import io.lakestream.log.ArrowValueWriter;
import io.lakestream.write.ValueConverter.Kind;
import java.math.BigDecimal;
import java.util.UUID;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.util.DecimalUtility;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.UUIDUtil;

/**
 * Writes one column of many rows of a {@link RowBatch} into the column's Arrow vector in a segment:
 * one loop per call, specialized by the column's kind, so the per-value work is a load and a store
 * (no dispatch on the type per value, as writing row by row needs). Fixed-width values are stored at
 * the vector's buffer addresses without Arrow's per-access checks: the caller has made room for the
 * rows and passes the addresses current after any reallocation. Variable-width values grow their
 * data buffer as needed. Nulls leave the (zeroed) validity bit and data untouched, and variable-width
 * nulls get their offset, so Arrow has no holes to fill.
 */
final class ColumnWriter {
    private final Kind kind;
    private final int column;
    private final int fixedLength;
    private final Type type;

    ColumnWriter(ValueConverter converter, int column) {
        this.type = converter.type();
        this.kind = converter.kind();
        this.column = column;
        this.fixedLength = converter.fixedLength();
    }

    /** Whether the column's values are variable-width (strings, binary): they fill a data buffer of their own. */
    boolean isVariableWidth() {
        return kind == Kind.STRING || kind == Kind.BINARY;
    }

    /** The batch column this writer reads. */
    int column() {
        return column;
    }

    /**
     * Writes the values of the batch rows {@code rows[from]} to {@code rows[from + count - 1]} at
     * {@code index} to {@code index + count - 1} of {@code vector}.
     */
    void write(
            FieldVector vector,
            long validityAddress,
            long dataAddress,
            RowBatch batch,
            int[] rows,
            int from,
            int count,
            int index) {
        long[] values = batch.longs[column];
        boolean[] nulls = batch.nulls[column];
        switch (kind) {
            case LONG, DOUBLE, TIME, TIMESTAMP, TIMESTAMPTZ ->
                writeLongs(values, nulls, rows, from, count, validityAddress, dataAddress, index);
            case INTEGER, FLOAT, DATE ->
                writeInts(values, nulls, rows, from, count, validityAddress, dataAddress, index);
            case LONG_DECIMAL -> {
                if (MemoryUtil.LITTLE_ENDIAN) {
                    writeLongDecimals(values, nulls, rows, from, count, validityAddress, dataAddress, index);
                } else {
                    writeLongDecimalsBigEndian((DecimalVector) vector, values, nulls, rows, from, count, index);
                }
            }
            case BOOLEAN -> writeBooleans(values, nulls, rows, from, count, validityAddress, dataAddress, index);
            case STRING, BINARY ->
                writeVariableWidth((BaseVariableWidthVector) vector, batch, rows, from, count, index);
            case FIXED -> writeFixed(batch, rows, from, count, validityAddress, dataAddress, index);
            case DECIMAL, UUID -> writeObjects(vector, batch.objects[column], nulls, rows, from, count, index);
            case NESTED -> writeNested(vector, batch.objects[column], nulls, rows, from, count, index);
        }
    }

    private static void writeLongs(
            long[] values, boolean[] nulls, int[] rows, int from, int count, long validity, long data, int index) {
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                MemoryUtil.putLong(data + (long) (index + i) * Long.BYTES, values[row]);
                setBit(validity, index + i);
            }
        }
    }

    private static void writeInts(
            long[] values, boolean[] nulls, int[] rows, int from, int count, long validity, long data, int index) {
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                MemoryUtil.putInt(data + (long) (index + i) * Integer.BYTES, (int) values[row]);
                setBit(validity, index + i);
            }
        }
    }

    /** 128-bit little-endian two's complement: the unscaled long, then its sign extension. */
    private static void writeLongDecimals(
            long[] values, boolean[] nulls, int[] rows, int from, int count, long validity, long data, int index) {
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                long value = values[row];
                long address = data + (long) (index + i) * DecimalVector.TYPE_WIDTH;
                MemoryUtil.putLong(address, value);
                MemoryUtil.putLong(address + Long.BYTES, value < 0 ? -1L : 0L);
                setBit(validity, index + i);
            }
        }
    }

    private static void writeLongDecimalsBigEndian(
            DecimalVector vector, long[] values, boolean[] nulls, int[] rows, int from, int count, int index) {
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                setBit(vector.getValidityBufferAddress(), index + i);
                DecimalUtility.writeLongToArrowBuf(
                        values[row], vector.getDataBuffer(), index + i, DecimalVector.TYPE_WIDTH);
            }
        }
    }

    private static void writeBooleans(
            long[] values, boolean[] nulls, int[] rows, int from, int count, long validity, long data, int index) {
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                setBit(validity, index + i);
                if (values[row] != 0) {
                    setBit(data, index + i);
                }
            }
        }
    }

    /**
     * Rows are written in order from index 0, so a value starts where the previous one ended: the
     * data buffer is grown once for all the values, then each is one memory copy plus its end offset.
     */
    private void writeVariableWidth(
            BaseVariableWidthVector vector, RowBatch batch, int[] rows, int from, int count, int index) {
        boolean[] nulls = batch.nulls[column];
        int[] starts = batch.starts[column];
        int[] lengths = batch.lengths[column];
        byte[] bytes = batch.bytes[column];
        long offsets = vector.getOffsetBufferAddress();
        int end = MemoryUtil.getInt(offsets + (long) index * BaseVariableWidthVector.OFFSET_WIDTH);
        long needed = end;
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                needed += lengths[row];
            }
        }
        while (needed > vector.getDataBuffer().capacity()) {
            vector.reallocDataBuffer();
        }
        long data = vector.getDataBufferAddress();
        long validity = vector.getValidityBufferAddress();
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                int length = lengths[row];
                MemoryUtil.copyToMemory(bytes, starts[row], data + end, length);
                end += length;
                setBit(validity, index + i);
            }
            MemoryUtil.putInt(offsets + (long) (index + i + 1) * BaseVariableWidthVector.OFFSET_WIDTH, end);
        }
        vector.setLastSet(index + count - 1);
    }

    private void writeFixed(RowBatch batch, int[] rows, int from, int count, long validity, long data, int index) {
        boolean[] nulls = batch.nulls[column];
        int[] starts = batch.starts[column];
        byte[] bytes = batch.bytes[column];
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (!nulls[row]) {
                MemoryUtil.copyToMemory(bytes, starts[row], data + (long) (index + i) * fixedLength, fixedLength);
                setBit(validity, index + i);
            }
        }
    }

    /** Wide decimals and UUIDs, through Arrow's setters (rare in a hot loop, and not fixed-width longs). */
    private static void writeObjects(
            FieldVector vector, Object[] values, boolean[] nulls, int[] rows, int from, int count, int index) {
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            if (nulls[row]) {
                continue;
            }
            if (values[row] instanceof BigDecimal decimal) {
                ((DecimalVector) vector).set(index + i, decimal);
            } else {
                // 16 bytes, most significant first: Iceberg's (and the log's) UUID bytes
                ((FixedSizeBinaryVector) vector).set(index + i, UUIDUtil.convert((UUID) values[row]));
            }
        }
    }

    /** Lists, maps and structs, value by value through Arrow's growing setters; nulls set explicitly (list offsets). */
    private void writeNested(
            FieldVector vector, Object[] values, boolean[] nulls, int[] rows, int from, int count, int index) {
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            ArrowValueWriter.write(vector, index + i, type, nulls[row] ? null : values[row]);
        }
    }

    /** Sets bit {@code index} of the bitmap at {@code address} (Arrow's LSB-first bit order). */
    static void setBit(long address, int index) {
        long byteAddress = address + (index >>> 3);
        MemoryUtil.putByte(byteAddress, (byte) (MemoryUtil.getByte(byteAddress) | (1 << (index & 7))));
    }
}
