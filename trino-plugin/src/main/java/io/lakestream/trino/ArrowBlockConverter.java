package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimeType.TIME_MICROS;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.trino.spi.block.Bitmap;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.Int128ArrayBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarcharType;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;

/**
 * Copies one Arrow vector of the union split reader into a Trino block, one implementation per
 * Trino type. The Arrow layouts are those of {@code LogSchema} (timestamps and times in
 * microseconds, decimals as 128-bit little-endian integers, uuids as 16 big-endian bytes).
 *
 * <p>A first version: lake Parquet should later be read by Trino's own Parquet reader straight into
 * blocks, and only the log tail converted here.
 */
sealed interface ArrowBlockConverter {
    Block convert(FieldVector vector, int rows);

    static ArrowBlockConverter forType(Type type) {
        if (type.equals(BOOLEAN)) {
            return new BooleanConverter();
        }
        if (type.equals(INTEGER) || type.equals(DATE) || type.equals(REAL)) {
            // int32, date (days) and float32 (raw bits) share the 4-byte layout in both
            return new IntConverter();
        }
        if (type.equals(BIGINT) || type.equals(TIMESTAMP_MICROS) || type.equals(DOUBLE)) {
            // int64, timestamp (micros) and float64 (raw bits) share the 8-byte layout in both
            return new LongConverter(1);
        }
        if (type.equals(TIME_MICROS)) {
            // Trino times are picoseconds of the day
            return new LongConverter(1_000_000);
        }
        if (type instanceof DecimalType decimal) {
            return decimal.isShort() ? new ShortDecimalConverter() : new LongDecimalConverter();
        }
        if (type.equals(TIMESTAMP_TZ_MICROS)) {
            return new TimestampWithTimeZoneConverter();
        }
        if (type instanceof VarcharType || type.equals(VARBINARY)) {
            return new VariableWidthConverter();
        }
        if (type.equals(UUID)) {
            return new UuidConverter();
        }
        if (LakestreamNestedTypes.isNested(type)) {
            return new NestedConverter(NestedBlockConverter.forType(type));
        }
        throw new IllegalArgumentException("no Arrow conversion for Trino type " + type);
    }

    /** The validity bitmap of the first {@code rows} values, or empty when none is null. */
    static Optional<long[]> validity(FieldVector vector, int rows) {
        if (vector.getNullCount() == 0) {
            return Optional.empty();
        }
        long[] valid = Bitmap.allocateWords(rows, false);
        for (int row = 0; row < rows; row++) {
            if (!vector.isNull(row)) {
                Bitmap.set(valid, 0, row);
            }
        }
        return Optional.of(valid);
    }

    final class BooleanConverter implements ArrowBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            BitVector bits = (BitVector) vector;
            byte[] values = new byte[rows];
            for (int row = 0; row < rows; row++) {
                values[row] = (byte) (bits.isNull(row) ? 0 : bits.get(row));
            }
            return new ByteArrayBlock(rows, validity(vector, rows), values);
        }
    }

    final class IntConverter implements ArrowBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            ArrowBuf data = vector.getDataBuffer();
            int[] values = new int[rows];
            for (int row = 0; row < rows; row++) {
                values[row] = data.getInt((long) row * Integer.BYTES);
            }
            return new IntArrayBlock(rows, validity(vector, rows), values);
        }
    }

    final class LongConverter implements ArrowBlockConverter {
        private final long multiplier;

        LongConverter(long multiplier) {
            this.multiplier = multiplier;
        }

        @Override
        public Block convert(FieldVector vector, int rows) {
            ArrowBuf data = vector.getDataBuffer();
            long[] values = new long[rows];
            for (int row = 0; row < rows; row++) {
                values[row] = data.getLong((long) row * Long.BYTES) * multiplier;
            }
            return new LongArrayBlock(rows, validity(vector, rows), values);
        }
    }

    /** Precision up to 18: the low 64 bits of the 128-bit unscaled value hold it exactly. */
    final class ShortDecimalConverter implements ArrowBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            ArrowBuf data = vector.getDataBuffer();
            long[] values = new long[rows];
            for (int row = 0; row < rows; row++) {
                values[row] = data.getLong((long) row * 16);
            }
            return new LongArrayBlock(rows, validity(vector, rows), values);
        }
    }

    final class LongDecimalConverter implements ArrowBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            ArrowBuf data = vector.getDataBuffer();
            // Trino's Int128 layout: high word first, then low word
            long[] values = new long[rows * 2];
            for (int row = 0; row < rows; row++) {
                values[row * 2] = data.getLong((long) row * 16 + 8);
                values[row * 2 + 1] = data.getLong((long) row * 16);
            }
            return new Int128ArrayBlock(rows, validity(vector, rows), values);
        }
    }

    final class TimestampWithTimeZoneConverter implements ArrowBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            ArrowBuf data = vector.getDataBuffer();
            BlockBuilder builder = TIMESTAMP_TZ_MICROS.createBlockBuilder(null, rows);
            for (int row = 0; row < rows; row++) {
                if (vector.isNull(row)) {
                    builder.appendNull();
                    continue;
                }
                long micros = data.getLong((long) row * Long.BYTES);
                long millis = Math.floorDiv(micros, 1000);
                int picosOfMilli = Math.floorMod(micros, 1000) * 1_000_000;
                TIMESTAMP_TZ_MICROS.writeObject(
                        builder, LongTimestampWithTimeZone.fromEpochMillisAndFraction(millis, picosOfMilli, UTC_KEY));
            }
            return builder.build();
        }
    }

    /**
     * varchar and varbinary: Arrow's offsets and data buffers map one to one onto a variable-width
     * block; a fixed-size binary (Iceberg fixed) gets computed offsets.
     */
    final class VariableWidthConverter implements ArrowBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            if (vector instanceof FixedSizeBinaryVector fixed) {
                int width = fixed.getByteWidth();
                int[] offsets = new int[rows + 1];
                for (int row = 0; row <= rows; row++) {
                    offsets[row] = row * width;
                }
                byte[] bytes = new byte[rows * width];
                fixed.getDataBuffer().getBytes(0, bytes);
                return new VariableWidthBlock(rows, Slices.wrappedBuffer(bytes), offsets, validity(vector, rows));
            }
            BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
            ArrowBuf offsetBuffer = variable.getOffsetBuffer();
            int[] offsets = new int[rows + 1];
            for (int row = 0; row <= rows; row++) {
                offsets[row] = offsetBuffer.getInt((long) row * BaseVariableWidthVector.OFFSET_WIDTH);
            }
            int start = offsets[0];
            byte[] bytes = new byte[offsets[rows] - start];
            variable.getDataBuffer().getBytes(start, bytes);
            if (start != 0) {
                for (int row = 0; row <= rows; row++) {
                    offsets[row] -= start;
                }
            }
            return new VariableWidthBlock(rows, Slices.wrappedBuffer(bytes), offsets, validity(vector, rows));
        }
    }

    /** Arrays, maps and rows ({@link NestedBlockConverter}). */
    final class NestedConverter implements ArrowBlockConverter {
        private final NestedBlockConverter converter;

        NestedConverter(NestedBlockConverter converter) {
            this.converter = converter;
        }

        @Override
        public Block convert(FieldVector vector, int rows) {
            return converter.convert(vector, rows);
        }
    }

    final class UuidConverter implements ArrowBlockConverter {
        @Override
        public Block convert(FieldVector vector, int rows) {
            FixedSizeBinaryVector fixed = (FixedSizeBinaryVector) vector;
            ArrowBuf data = fixed.getDataBuffer();
            BlockBuilder builder = UUID.createBlockBuilder(null, rows);
            for (int row = 0; row < rows; row++) {
                if (fixed.isNull(row)) {
                    builder.appendNull();
                    continue;
                }
                long mostSignificant = Long.reverseBytes(data.getLong((long) row * 16));
                long leastSignificant = Long.reverseBytes(data.getLong((long) row * 16 + 8));
                Slice value = UuidType.javaUuidToTrinoUuid(new java.util.UUID(mostSignificant, leastSignificant));
                UUID.writeSlice(builder, value);
            }
            return builder.build();
        }
    }
}
