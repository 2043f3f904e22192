package io.lakestream.tiering.parquet;

import java.util.Optional;
import java.util.OptionalInt;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.statistics.DoubleStatistics;
import org.apache.parquet.column.statistics.FloatStatistics;
import org.apache.parquet.column.statistics.IntStatistics;
import org.apache.parquet.column.statistics.LongStatistics;

/**
 * Columns of Parquet INT32, INT64, FLOAT and DOUBLE from fixed-width Arrow vectors: int, date, bigint, time,
 * timestamp, float, double, and decimals of up to 18 digits (whose 16-byte little-endian Arrow values hold
 * the file's value in their low 4 or 8 bytes). A run of rows without nulls of a vector whose width is the
 * file's is one memory copy. Or a constant: the lake's hidden {@code __bucket} column.
 */
final class FixedWidthColumnEncoder extends ColumnEncoder<LongDictionary> {
    enum Kind {
        INT32(4),
        INT64(8),
        FLOAT(4),
        DOUBLE(8);

        private final int width;

        Kind(int width) {
            this.width = width;
        }
    }

    private final Kind kind;
    private final int width;
    private final int sourceWidth;
    private final OptionalInt constant;
    private FloatFieldMetrics.Builder floatMetrics;
    private DoubleFieldMetrics.Builder doubleMetrics;

    /**
     * @param sourceWidth bytes per value in the Arrow vectors
     * @param constant the value of every row, for a column read from no vector
     */
    FixedWidthColumnEncoder(
            ColumnDescriptor descriptor,
            String columnName,
            int fieldId,
            ColumnarParquetSettings settings,
            PageCompressor compressor,
            ReusePool<GrowableBytes> scratch,
            Kind kind,
            int sourceWidth,
            OptionalInt constant) {
        super(descriptor, columnName, settings, compressor, scratch, new LongDictionary(kind.width));
        this.kind = kind;
        this.width = kind.width;
        this.sourceWidth = sourceWidth;
        this.constant = constant;
        if (kind == Kind.FLOAT) {
            floatMetrics = new FloatFieldMetrics.Builder(fieldId);
        } else if (kind == Kind.DOUBLE) {
            doubleMetrics = new DoubleFieldMetrics.Builder(fieldId);
        }
    }

    @Override
    int gather(FieldVector vector, int[] rows, int from, int limit, boolean mayHaveNulls, long byteBudget) {
        int end = (int) Math.min(limit, from + Math.max(1, (byteBudget + width - 1) / width));
        int count = end - from;
        plain.ensureRoom((long) count * width);
        if (constant.isPresent()) {
            for (int i = 0; i < count; i++) {
                plain.writeInt(constant.getAsInt());
            }
            addValues(count);
            return end;
        }
        long address = vector.getDataBuffer().memoryAddress();
        if (!mayHaveNulls) {
            if (rows == null && sourceWidth == width) {
                checkIndex(vector, end - 1);
                plain.writeFromMemory(address + (long) from * width, count * width);
            } else {
                for (int i = from; i < end; i++) {
                    writeValue(address, rows == null ? i : rows[i], vector);
                }
            }
            addValues(count);
            return end;
        }
        ArrowBuf validity = vector.getValidityBuffer();
        for (int i = from; i < end; i++) {
            int index = rows == null ? i : rows[i];
            if (isNull(validity, index)) {
                addNull();
            } else {
                writeValue(address, index, vector);
                addValues(1);
            }
        }
        return end;
    }

    private void writeValue(long address, int index, FieldVector vector) {
        checkIndex(vector, index);
        long at = address + (long) index * sourceWidth;
        if (width == 4) {
            plain.writeInt(MemoryUtil.getInt(at));
        } else {
            plain.writeLong(MemoryUtil.getLong(at));
        }
    }

    private static void checkIndex(FieldVector vector, int index) {
        if (index < 0 || index >= vector.getValueCount()) {
            throw new IndexOutOfBoundsException(
                    "row %s of a vector of %s values".formatted(index, vector.getValueCount()));
        }
    }

    @Override
    void analyze(int fromValue, int toValue) {
        if (fromValue == toValue) {
            return;
        }
        byte[] bytes = plain.array();
        switch (kind) {
            case INT32, INT64 -> {
                // signed, as Parquet orders these columns; an int widened to long keeps its order
                long min = Long.MAX_VALUE;
                long max = Long.MIN_VALUE;
                for (int v = fromValue; v < toValue; v++) {
                    long value =
                            width == 4 ? GrowableBytes.readInt(bytes, v * 4) : GrowableBytes.readLong(bytes, v * 8);
                    min = Math.min(min, value);
                    max = Math.max(max, value);
                    if (dictionaryMode) {
                        addId(dictionary.id(value));
                    }
                }
                if (kind == Kind.INT32) {
                    ((IntStatistics) pageStatistics).updateStats((int) min);
                    ((IntStatistics) pageStatistics).updateStats((int) max);
                } else {
                    ((LongStatistics) pageStatistics).updateStats(min);
                    ((LongStatistics) pageStatistics).updateStats(max);
                }
            }
            case FLOAT -> {
                FloatStatistics statistics = (FloatStatistics) pageStatistics;
                for (int v = fromValue; v < toValue; v++) {
                    int bits = GrowableBytes.readInt(bytes, v * 4);
                    float value = Float.intBitsToFloat(bits);
                    statistics.updateStats(value);
                    floatMetrics.addValue(value);
                    if (dictionaryMode) {
                        addId(dictionary.id(bits));
                    }
                }
            }
            case DOUBLE -> {
                DoubleStatistics statistics = (DoubleStatistics) pageStatistics;
                for (int v = fromValue; v < toValue; v++) {
                    long bits = GrowableBytes.readLong(bytes, v * 8);
                    double value = Double.longBitsToDouble(bits);
                    statistics.updateStats(value);
                    doubleMetrics.addValue(value);
                    if (dictionaryMode) {
                        addId(dictionary.id(bits));
                    }
                }
            }
        }
    }

    @Override
    int valueCount() {
        return plain.size() / width;
    }

    @Override
    void clearPage() {}

    @Override
    Optional<FieldMetrics<?>> fieldMetrics() {
        if (floatMetrics != null) {
            return Optional.of(NullCountedMetrics.withNulls(floatMetrics.build(), fileNulls()));
        }
        if (doubleMetrics != null) {
            return Optional.of(NullCountedMetrics.withNulls(doubleMetrics.build(), fileNulls()));
        }
        return Optional.empty();
    }
}
