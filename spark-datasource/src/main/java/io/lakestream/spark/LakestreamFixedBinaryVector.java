package io.lakestream.spark;

import java.nio.ByteBuffer;
import java.util.UUID;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark column over an Arrow fixed-size binary vector, which Spark's {@code ArrowColumnVector}
 * does not read: Iceberg {@code fixed(n)} as binary, and {@code uuid} as its canonical string.
 */
final class LakestreamFixedBinaryVector extends ColumnVector {
    private final FixedSizeBinaryVector vector;
    private final boolean uuid;

    private LakestreamFixedBinaryVector(DataType type, FixedSizeBinaryVector vector, boolean uuid) {
        super(type);
        this.vector = vector;
        this.uuid = uuid;
    }

    static LakestreamFixedBinaryVector binary(FixedSizeBinaryVector vector) {
        return new LakestreamFixedBinaryVector(DataTypes.BinaryType, vector, false);
    }

    static LakestreamFixedBinaryVector uuid(FixedSizeBinaryVector vector) {
        return new LakestreamFixedBinaryVector(DataTypes.StringType, vector, true);
    }

    @Override
    public void close() {
        vector.close();
    }

    @Override
    public boolean hasNull() {
        return vector.getNullCount() > 0;
    }

    @Override
    public int numNulls() {
        return vector.getNullCount();
    }

    @Override
    public boolean isNullAt(int row) {
        return vector.isNull(row);
    }

    @Override
    public byte[] getBinary(int row) {
        return vector.getObject(row);
    }

    @Override
    public UTF8String getUTF8String(int row) {
        if (!uuid) {
            throw unsupported("string");
        }
        ByteBuffer bytes = ByteBuffer.wrap(vector.getObject(row));
        return UTF8String.fromString(new UUID(bytes.getLong(), bytes.getLong()).toString());
    }

    @Override
    public boolean getBoolean(int row) {
        throw unsupported("boolean");
    }

    @Override
    public byte getByte(int row) {
        throw unsupported("byte");
    }

    @Override
    public short getShort(int row) {
        throw unsupported("short");
    }

    @Override
    public int getInt(int row) {
        throw unsupported("int");
    }

    @Override
    public long getLong(int row) {
        throw unsupported("long");
    }

    @Override
    public float getFloat(int row) {
        throw unsupported("float");
    }

    @Override
    public double getDouble(int row) {
        throw unsupported("double");
    }

    @Override
    public ColumnarArray getArray(int row) {
        throw unsupported("array");
    }

    @Override
    public ColumnarMap getMap(int row) {
        throw unsupported("map");
    }

    @Override
    public Decimal getDecimal(int row, int precision, int scale) {
        throw unsupported("decimal");
    }

    @Override
    public ColumnVector getChild(int ordinal) {
        throw unsupported("struct");
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(
                "column %s is %s, not %s".formatted(vector.getName(), dataType().sql(), what));
    }
}
