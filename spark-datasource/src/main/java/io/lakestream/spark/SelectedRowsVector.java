package io.lakestream.spark;

import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Some rows of another column vector, without copying: row {@code i} of this vector is row
 * {@code rows[i]} of the underlying one. This is how lake rows hidden by the log tail, or failing
 * the filter, are dropped from a batch of Spark's Parquet reader.
 *
 * <p>Nested columns: a struct's fields are the underlying struct's children selected by the same rows (Spark reads
 * a struct value as its children at the struct's row, {@code ColumnVector.getStruct}); an array or map value is the
 * underlying vector's value at the selected row, whose elements, keys and values are addressed by the underlying
 * vector's offsets into its own children, so they need no mapping.
 */
final class SelectedRowsVector extends ColumnVector {
    private final ColumnVector vector;
    private final int[] rows;
    private final int size;
    /**
     * Whether the underlying vector has a null at all, read once: Spark's generated code asks {@link
     * #isNullAt} for every value of a nullable column, and most lake columns hold no null in a batch.
     */
    private final boolean hasNull;
    /** The struct's fields over the same rows, made on first use. */
    private final ColumnVector[] children;

    /**
     * @param vector a vector its reader has filled (its nulls do not change while this view is used)
     * @param rows the selected rows of {@code vector}; the first {@code size} are used
     */
    SelectedRowsVector(ColumnVector vector, int[] rows, int size) {
        super(vector.dataType());
        this.vector = vector;
        this.rows = rows;
        this.size = size;
        this.hasNull = vector.hasNull();
        this.children = vector.dataType() instanceof StructType struct ? new ColumnVector[struct.size()] : null;
    }

    @Override
    public void close() {
        // the underlying vector belongs to its reader
    }

    @Override
    public boolean hasNull() {
        return hasNull;
    }

    @Override
    public int numNulls() {
        if (!hasNull) {
            return 0;
        }
        int nulls = 0;
        for (int i = 0; i < size; i++) {
            if (vector.isNullAt(rows[i])) {
                nulls++;
            }
        }
        return nulls;
    }

    @Override
    public boolean isNullAt(int rowId) {
        return hasNull && vector.isNullAt(rows[rowId]);
    }

    @Override
    public boolean getBoolean(int rowId) {
        return vector.getBoolean(rows[rowId]);
    }

    @Override
    public byte getByte(int rowId) {
        return vector.getByte(rows[rowId]);
    }

    @Override
    public short getShort(int rowId) {
        return vector.getShort(rows[rowId]);
    }

    @Override
    public int getInt(int rowId) {
        return vector.getInt(rows[rowId]);
    }

    @Override
    public long getLong(int rowId) {
        return vector.getLong(rows[rowId]);
    }

    @Override
    public float getFloat(int rowId) {
        return vector.getFloat(rows[rowId]);
    }

    @Override
    public double getDouble(int rowId) {
        return vector.getDouble(rows[rowId]);
    }

    @Override
    public ColumnarArray getArray(int rowId) {
        return vector.getArray(rows[rowId]);
    }

    @Override
    public ColumnarMap getMap(int ordinal) {
        return vector.getMap(rows[ordinal]);
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
        return vector.getDecimal(rows[rowId], precision, scale);
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
        return vector.getUTF8String(rows[rowId]);
    }

    @Override
    public byte[] getBinary(int rowId) {
        return vector.getBinary(rows[rowId]);
    }

    @Override
    public ColumnVector getChild(int ordinal) {
        if (children == null) {
            // arrays and maps are read through the underlying vector's values (getArray, getMap)
            throw new UnsupportedOperationException("column of type %s has no children".formatted(dataType()));
        }
        if (children[ordinal] == null) {
            children[ordinal] = new SelectedRowsVector(vector.getChild(ordinal), rows, size);
        }
        return children[ordinal];
    }
}
