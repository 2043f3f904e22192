package io.lakestream.merge;

import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.types.Type;

/**
 * Encodes the key of a row of Arrow vectors into a {@link KeyBuffer}, reading the vectors' buffers
 * directly (no value objects). Per column: a null marker byte, then the value in the canonical
 * encoding of docs/merge.md.
 */
public final class ArrowKeyEncoder {
    private final ColumnEncoder[] columns;
    private byte[] scratch = new byte[64];

    @FunctionalInterface
    private interface ColumnEncoder {
        void encode(int row, KeyBuffer key);
    }

    /** @param keyVectors the key columns of one batch, in key order, with their Iceberg types */
    public ArrowKeyEncoder(List<FieldVector> keyVectors, List<Type> keyTypes) {
        this.columns = new ColumnEncoder[keyVectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = encoder(keyVectors.get(i), keyTypes.get(i));
        }
    }

    public void encode(int row, KeyBuffer key) {
        key.reset();
        for (ColumnEncoder column : columns) {
            column.encode(row, key);
        }
    }

    private ColumnEncoder encoder(FieldVector vector, Type type) {
        ColumnEncoder value = switch (type.typeId()) {
            case INTEGER, DATE -> {
                ArrowBuf data = vector.getDataBuffer();
                yield (row, key) -> key.putInt(data.getInt((long) row * 4));
            }
            case LONG, TIME, TIMESTAMP -> {
                ArrowBuf data = vector.getDataBuffer();
                yield (row, key) -> key.putLong(data.getLong((long) row * 8));
            }
            case DECIMAL -> {
                ArrowBuf data = vector.getDataBuffer();
                yield (row, key) -> {
                    key.putLong(data.getLong((long) row * 16));
                    key.putLong(data.getLong((long) row * 16 + 8));
                };
            }
            case STRING, BINARY -> {
                BaseVariableWidthVector variable = (BaseVariableWidthVector) vector;
                yield (row, key) -> {
                    long start = variable.getStartOffset(row);
                    int length = variable.getValueLength(row);
                    byte[] bytes = scratch(length);
                    variable.getDataBuffer().getBytes(start, bytes, 0, length);
                    key.putVariable(bytes, 0, length);
                };
            }
            case UUID, FIXED -> {
                BaseFixedWidthVector fixed = (BaseFixedWidthVector) vector;
                int width = fixed.getTypeWidth();
                yield (row, key) -> {
                    byte[] bytes = scratch(width);
                    fixed.getDataBuffer().getBytes((long) row * width, bytes, 0, width);
                    key.putBytes(bytes, 0, width);
                };
            }
            default -> throw new IllegalArgumentException("type %s cannot be a key".formatted(type));
        };
        return (row, key) -> {
            if (vector.isNull(row)) {
                key.putByte((byte) 1);
            } else {
                key.putByte((byte) 0);
                value.encode(row, key);
            }
        };
    }

    private byte[] scratch(int length) {
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        return scratch;
    }
}
