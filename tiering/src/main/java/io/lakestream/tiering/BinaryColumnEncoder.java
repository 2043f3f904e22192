package io.lakestream.tiering;

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
    /** Offset of each value of the open page in {@link #plain} (its length prefix). */
    private int[] valueStarts = new int[1024];

    private int values;
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
        long data = variable.getDataBuffer().memoryAddress();
        ArrowBuf validity = vector.getValidityBuffer();
        int valueCount = vector.getValueCount();
        int startSize = plain.size();
        int i = from;
        while (i < limit && (i == from || plain.size() - startSize < byteBudget)) {
            int index = rows == null ? i : rows[i];
            if (index < 0 || index >= valueCount) {
                throw new IndexOutOfBoundsException("row %s of a vector of %s values".formatted(index, valueCount));
            }
            i++;
            if (mayHaveNulls && isNull(validity, index)) {
                addNull();
                continue;
            }
            int start = MemoryUtil.getInt(offsets + 4L * index);
            int length = MemoryUtil.getInt(offsets + 4L * (index + 1)) - start;
            if (values == valueStarts.length) {
                valueStarts = Arrays.copyOf(valueStarts, 2 * values);
            }
            valueStarts[values++] = plain.size();
            plain.writeInt(length);
            plain.writeFromMemory(data + start, length);
            addValues(1);
        }
        return i;
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
