package io.lakestream.tiering;

import io.lakestream.tiering.parquet.ArrowRow;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.types.Type;

/**
 * Encodes the primary key of a row of Arrow vectors into reusable bytes, read straight from the
 * vectors' buffers: per column a null marker, then the value's bytes (fixed-width types as stored by
 * Arrow, variable-width ones length-prefixed). Two rows have equal bytes exactly when their keys are
 * equal (decimals of one column share the column's scale, so equal values have equal unscaled bytes).
 */
final class KeyEncoder {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final int[] positions;
    private final int[] widths; // 0: variable width
    private byte[] bytes = new byte[64];
    private int length;

    /**
     * @param positions vector positions of the key columns in the batches
     * @param types the key columns' Iceberg types
     */
    KeyEncoder(int[] positions, Type[] types) {
        this.positions = positions.clone();
        this.widths = new int[types.length];
        for (int i = 0; i < types.length; i++) {
            widths[i] = switch (types[i].typeId()) {
                case INTEGER, DATE -> 4;
                case LONG, TIME, TIMESTAMP -> 8;
                case DECIMAL -> 16;
                case UUID, FIXED -> -1; // the vector's width
                case STRING, BINARY -> 0;
                default -> throw new IllegalArgumentException("type %s cannot be a key".formatted(types[i]));
            };
        }
    }

    void encode(ArrowRow row) {
        length = 0;
        int index = row.index();
        for (int i = 0; i < positions.length; i++) {
            FieldVector vector = row.vector(positions[i]);
            if (vector.isNull(index)) {
                ensure(1);
                bytes[length++] = 1;
                continue;
            }
            int width = widths[i];
            if (width == 0) {
                ArrowBuf offsets = vector.getOffsetBuffer();
                int start = offsets.getInt((long) index * BaseVariableWidthVector.OFFSET_WIDTH);
                int valueLength = offsets.getInt((long) (index + 1) * BaseVariableWidthVector.OFFSET_WIDTH) - start;
                ensure(5 + valueLength);
                bytes[length++] = 0;
                bytes[length++] = (byte) valueLength;
                bytes[length++] = (byte) (valueLength >>> 8);
                bytes[length++] = (byte) (valueLength >>> 16);
                bytes[length++] = (byte) (valueLength >>> 24);
                vector.getDataBuffer().getBytes(start, bytes, length, valueLength);
                length += valueLength;
            } else {
                if (width < 0) {
                    width = ((BaseFixedWidthVector) vector).getTypeWidth();
                }
                ensure(1 + width);
                bytes[length++] = 0;
                vector.getDataBuffer().getBytes((long) index * width, bytes, length, width);
                length += width;
            }
        }
    }

    byte[] bytes() {
        return bytes;
    }

    int length() {
        return length;
    }

    int hash() {
        long hash = 0x9E3779B97F4A7C15L ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            hash = (hash ^ mix((long) LONGS.get(bytes, i))) * 0x9E3779B97F4A7C15L;
        }
        long tail = 0;
        for (int shift = 0; i < length; i++, shift += 8) {
            tail |= (bytes[i] & 0xffL) << shift;
        }
        hash = mix(hash ^ mix(tail));
        return (int) (hash ^ (hash >>> 32));
    }

    private static long mix(long value) {
        value ^= value >>> 33;
        value *= 0xff51afd7ed558ccdL;
        value ^= value >>> 33;
        value *= 0xc4ceb9fe1a85ec53L;
        return value ^ (value >>> 33);
    }

    private void ensure(int extra) {
        if (length + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + extra));
        }
    }
}
