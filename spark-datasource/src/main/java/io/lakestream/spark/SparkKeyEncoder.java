package io.lakestream.spark;

import io.lakestream.merge.KeyBuffer;
import java.math.BigInteger;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Encodes the primary key of a row of Spark column vectors into the canonical key bytes of
 * docs/merge.md: the same bytes {@code ArrowKeyEncoder} makes from the same values in the log's
 * Arrow vectors, so that a lake row read by Spark's Parquet reader is looked up in the index of a log
 * tail. Per column: a null marker byte, then the value as the log holds it (dates in days,
 * timestamps in microseconds, as Spark holds them too; decimals as 128-bit unscaled values; strings
 * and binary length-prefixed).
 */
final class SparkKeyEncoder {
    private final ColumnEncoder[] columns;

    @FunctionalInterface
    private interface ColumnEncoder {
        void encode(ColumnVector vector, int row, KeyBuffer key);
    }

    /** @param icebergTypes the key columns' Iceberg types, in key order */
    SparkKeyEncoder(List<Type> icebergTypes) {
        this.columns = new ColumnEncoder[icebergTypes.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = nullable(encoder(icebergTypes.get(i)));
        }
    }

    /** True if Spark reads keys of this type with the values the log encodes. */
    static boolean supports(Type type) {
        return switch (type.typeId()) {
            case INTEGER, DATE, LONG, TIMESTAMP, DECIMAL, STRING, BINARY -> true;
            default -> false;
        };
    }

    /** Encodes the key at {@code row}; {@code keyVectors} are the key columns in key order. */
    void encode(ColumnVector[] keyVectors, int row, KeyBuffer key) {
        key.reset();
        for (int i = 0; i < columns.length; i++) {
            columns[i].encode(keyVectors[i], row, key);
        }
    }

    private static ColumnEncoder encoder(Type type) {
        return switch (type.typeId()) {
            case INTEGER, DATE -> (vector, row, key) -> key.putInt(vector.getInt(row));
            case LONG, TIMESTAMP -> (vector, row, key) -> key.putLong(vector.getLong(row));
            case DECIMAL -> decimal((Types.DecimalType) type);
            case STRING -> (vector, row, key) -> putString(vector.getUTF8String(row), key);
            case BINARY ->
                (vector, row, key) -> {
                    byte[] value = vector.getBinary(row);
                    key.putVariable(value, 0, value.length);
                };
            default -> throw new IllegalArgumentException("type %s cannot be a key read by Spark".formatted(type));
        };
    }

    private static ColumnEncoder decimal(Types.DecimalType type) {
        int precision = type.precision();
        int scale = type.scale();
        if (precision <= 18) {
            return (vector, row, key) -> {
                // the 128-bit value: low word, then the sign-extended high word
                long unscaled = vector.getDecimal(row, precision, scale).toUnscaledLong();
                key.putLong(unscaled);
                key.putLong(unscaled >> 63);
            };
        }
        return (vector, row, key) -> {
            BigInteger unscaled =
                    vector.getDecimal(row, precision, scale).toJavaBigDecimal().unscaledValue();
            key.putLong(unscaled.longValue());
            key.putLong(unscaled.shiftRight(64).longValue());
        };
    }

    private static void putString(UTF8String value, KeyBuffer key) {
        // Spark's Parquet reader keeps strings on the heap: their bytes are read in place
        if (value.getBaseObject() instanceof byte[] bytes) {
            key.putVariable(bytes, (int) (value.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET), value.numBytes());
        } else {
            byte[] bytes = value.getBytes();
            key.putVariable(bytes, 0, bytes.length);
        }
    }

    private static ColumnEncoder nullable(ColumnEncoder value) {
        return (vector, row, key) -> {
            if (vector.isNullAt(row)) {
                key.putByte((byte) 1);
            } else {
                key.putByte((byte) 0);
                value.encode(vector, row, key);
            }
        };
    }
}
