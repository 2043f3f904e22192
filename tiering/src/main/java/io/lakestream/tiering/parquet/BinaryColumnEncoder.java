package io.lakestream.tiering.parquet;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;

import io.lakestream.common.LakestreamException;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.api.Binary;

/**
 * Columns of Parquet BINARY (string, binary) from variable-width Arrow vectors (4-byte offsets). Page
 * statistics compare unsigned and lexicographically, as Parquet orders these columns; only the page's
 * minimum and maximum become objects.
 */
final class BinaryColumnEncoder extends ColumnEncoder<BinaryDictionary> {
    /** Bytes a span may hold beyond twice the values gathered from it before values are copied one by one. */
    private static final int SPAN_SLACK = 1 << 16;

    /** Offset of each value of the open page in {@link #plain} (its length prefix). */
    private int[] valueStarts = new int[1024];

    private int values;
    /** The part of a batch's data buffer that the values being gathered span. */
    private final GrowableBytes span = new GrowableBytes(1 << 14);

    private int minAt = -1;
    private int maxAt = -1;
    // The first 8 bytes of the minimum and maximum (see {@link #prefix}): most values differ from both
    // there, so the running statistics compare one long per value and whole values only on a tie.
    private long minPrefix;
    private long maxPrefix;

    BinaryColumnEncoder(
            ColumnDescriptor descriptor,
            String columnName,
            ColumnarParquetSettings settings,
            PageCompressor compressor,
            ReusePool<GrowableBytes> scratch) {
        super(descriptor, columnName, settings, compressor, scratch, new BinaryDictionary());
    }

    @Override
    int gather(FieldVector vector, int[] rows, int from, int limit, boolean mayHaveNulls, long byteBudget) {
        BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
        long offsets = variable.getOffsetBuffer().memoryAddress();
        ArrowBuf validity = vector.getValidityBuffer();
        int valueCount = vector.getValueCount();
        // First the rows that fit the byte budget (at least one), and the part of the data buffer their values
        // span; then the values are copied out of that span. Copying every value straight from the Arrow
        // buffer, a call per value of a few bytes each, was a fifth of the tiering writers' time.
        long bytes = 0;
        long spanStart = Long.MAX_VALUE;
        long spanEnd = 0;
        int end = from;
        while (end < limit && (end == from || bytes < byteBudget)) {
            int index = rows == null ? end : rows[end];
            if (index < 0 || index >= valueCount) {
                throw new IndexOutOfBoundsException("row %s of a vector of %s values".formatted(index, valueCount));
            }
            end++;
            if (mayHaveNulls && isNull(validity, index)) {
                continue;
            }
            int start = MemoryUtil.getInt(offsets + 4L * index);
            int stop = MemoryUtil.getInt(offsets + 4L * (index + 1));
            if (stop < start) {
                throw corruptOffsets(start, stop, variable);
            }
            bytes += 4L + stop - start;
            spanStart = Math.min(spanStart, start);
            spanEnd = Math.max(spanEnd, stop);
        }
        ArrowBuf data = variable.getDataBuffer();
        if (spanStart < spanEnd && (spanStart < 0 || spanEnd > data.capacity())) {
            throw corruptOffsets(spanStart, spanEnd, variable);
        }
        // A sparse selection of a large batch is copied value by value rather than spanned.
        boolean spanned = spanStart < spanEnd && spanEnd - spanStart <= 2 * bytes + SPAN_SLACK;
        if (spanned) {
            span.clear();
            span.writeFromMemory(data.memoryAddress() + spanStart, Math.toIntExact(spanEnd - spanStart));
        }
        plain.ensureRoom(bytes);
        byte[] source = span.array();
        long address = data.memoryAddress();
        int run = 0;
        for (int i = from; i < end; i++) {
            int index = rows == null ? i : rows[i];
            if (mayHaveNulls && isNull(validity, index)) {
                addValues(run);
                run = 0;
                addNull();
                continue;
            }
            int start = MemoryUtil.getInt(offsets + 4L * index);
            int length = MemoryUtil.getInt(offsets + 4L * (index + 1)) - start;
            addValueStart(plain.size());
            plain.writeInt(length);
            if (spanned) {
                plain.write(source, (int) (start - spanStart), length);
            } else {
                plain.writeFromMemory(address + start, length);
            }
            run++;
        }
        addValues(run);
        return end;
    }

    private static LakestreamException corruptOffsets(long start, long end, BaseVariableWidthVector vector) {
        return new LakestreamException(
                LOG_CORRUPT,
                "A log batch's string or binary offsets point to bytes [%s, %s) of a data buffer of %s bytes; the log was written by an incompatible writer"
                        .formatted(start, end, vector.getDataBuffer().capacity()));
    }

    private void addValueStart(int at) {
        if (values == valueStarts.length) {
            valueStarts = Arrays.copyOf(valueStarts, 2 * values);
        }
        valueStarts[values++] = at;
    }

    @Override
    void analyze(int fromValue, int toValue) {
        byte[] bytes = plain.array();
        for (int v = fromValue; v < toValue; v++) {
            int at = valueStarts[v];
            long prefix = prefix(bytes, at);
            if (minAt < 0) {
                minAt = at;
                maxAt = at;
                minPrefix = prefix;
                maxPrefix = prefix;
            } else if (lessThan(bytes, at, prefix, minAt, minPrefix)) {
                minAt = at;
                minPrefix = prefix;
            } else if (lessThan(bytes, maxAt, maxPrefix, at, prefix)) {
                maxAt = at;
                maxPrefix = prefix;
            }
            if (dictionaryMode) {
                addId(dictionary.id(bytes, at + 4, GrowableBytes.readInt(bytes, at)));
            }
        }
    }

    private static boolean lessThan(byte[] bytes, int left, long leftPrefix, int right, long rightPrefix) {
        int prefixOrder = Long.compareUnsigned(leftPrefix, rightPrefix);
        return prefixOrder < 0 || (prefixOrder == 0 && compare(bytes, left, right) < 0);
    }

    /**
     * The value's first 8 bytes as an unsigned big-endian long, zero-padded when shorter. A smaller
     * prefix means a smaller value (unsigned, lexicographic); equal prefixes decide nothing.
     */
    static long prefix(byte[] bytes, int at) {
        int length = GrowableBytes.readInt(bytes, at);
        if (length >= Long.BYTES) {
            return GrowableBytes.readLongBigEndian(bytes, at + 4);
        }
        long prefix = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            prefix = prefix << 8 | (i < length ? bytes[at + 4 + i] & 0xFF : 0);
        }
        return prefix;
    }

    private static int compare(byte[] bytes, int left, int right) {
        int leftLength = GrowableBytes.readInt(bytes, left);
        int rightLength = GrowableBytes.readInt(bytes, right);
        return Arrays.compareUnsigned(
                bytes, left + 4, left + 4 + leftLength, bytes, right + 4, right + 4 + rightLength);
    }

    @Override
    void completePageStatistics() {
        if (minAt >= 0) {
            pageStatistics.updateStats(value(minAt));
            pageStatistics.updateStats(value(maxAt));
        }
    }

    private Binary value(int at) {
        byte[] bytes = plain.array();
        int length = GrowableBytes.readInt(bytes, at);
        return Binary.fromConstantByteArray(Arrays.copyOfRange(bytes, at + 4, at + 4 + length));
    }

    @Override
    int valueCount() {
        return values;
    }

    @Override
    void clearPage() {
        values = 0;
        minAt = -1;
        maxAt = -1;
    }
}
