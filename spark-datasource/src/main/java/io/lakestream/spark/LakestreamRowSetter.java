package io.lakestream.spark;

import static com.google.common.base.Preconditions.checkArgument;
import static io.lakestream.common.LakestreamError.INVALID_ROW;

import io.lakestream.common.LakestreamException;
import io.lakestream.write.RowBuffer;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Copies Spark's internal rows into the Lakestream writer's {@link RowBuffer} with Spark's typed
 * getters: longs, ints and doubles as they are, a string as the UTF-8 bytes inside Spark's row (no
 * {@code String}, no copy), a decimal of precision up to 18 as its unscaled long, dates as days and
 * timestamps as micros (Spark's own representations). An {@code UnsafeRow}, what Spark's generated
 * code hands a writer, is read by its documented layout so no {@code Decimal} or {@code UTF8String}
 * object is made per value. Nothing is boxed or allocated per value for
 * these types; the writer validates the values (nulls in key and NOT NULL columns, decimal
 * precision, fixed lengths).
 *
 * <p>One switch over a per-column kind instead of a getter object per column: the call sites stay
 * monomorphic (Spark's {@code UnsafeRow}), so the JIT inlines the getters.
 */
final class LakestreamRowSetter {
    private enum Kind {
        BOOLEAN,
        INTEGER,
        LONG,
        FLOAT,
        DOUBLE,
        LONG_DECIMAL,
        DECIMAL,
        DATE,
        MICROS,
        STRING,
        UUID,
        BYTES,
        NESTED
    }

    private final Kind[] kinds;
    private final String[] names;
    /** Per value: the input ordinal it is read from. */
    private final int[] ordinals;
    /** Per value: the table column it is written to. */
    private final int[] columns;

    private final int[] precisions;
    private final int[] scales;
    /** Per value: for lists, maps and structs, their converter (null for the others). */
    private final SparkNestedValues[] nested;

    /**
     * For input rows whose ordinal {@code i} holds the table column {@code columnNames.get(i)} of
     * {@code schema}.
     */
    LakestreamRowSetter(Schema schema, List<String> columnNames) {
        this(schema, columnNames, IntStream.range(0, columnNames.size()).toArray());
    }

    /** For input rows whose ordinal {@code inputOrdinals[i]} holds the table column {@code columnNames.get(i)}. */
    LakestreamRowSetter(Schema schema, List<String> columnNames, int[] inputOrdinals) {
        int count = columnNames.size();
        checkArgument(inputOrdinals.length == count, "one input ordinal per column");
        this.kinds = new Kind[count];
        this.names = new String[count];
        this.ordinals = inputOrdinals.clone();
        this.columns = new int[count];
        this.precisions = new int[count];
        this.scales = new int[count];
        this.nested = new SparkNestedValues[count];
        List<Types.NestedField> tableColumns = schema.columns();
        for (int i = 0; i < count; i++) {
            Types.NestedField column = schema.findField(columnNames.get(i));
            columns[i] = tableColumns.indexOf(column);
            names[i] = column.name();
            kinds[i] = kind(column);
            if (kinds[i] == Kind.NESTED) {
                nested[i] = new SparkNestedValues(column.type());
            }
            if (column.type() instanceof Types.DecimalType decimal) {
                precisions[i] = decimal.precision();
                scales[i] = decimal.scale();
            }
        }
    }

    /** For input rows with all the table's columns in schema order. */
    static LakestreamRowSetter forTable(Schema schema) {
        return new LakestreamRowSetter(
                schema, schema.columns().stream().map(Types.NestedField::name).toList());
    }

    /** Sets the row's values on {@code buffer}; the caller then writes the buffer's row. */
    void copy(InternalRow row, RowBuffer buffer) {
        for (int value = 0; value < kinds.length; value++) {
            int i = ordinals[value];
            int column = columns[value];
            if (row.isNullAt(i)) {
                buffer.setNull(column);
                continue;
            }
            switch (kinds[value]) {
                case BOOLEAN -> buffer.setBoolean(column, row.getBoolean(i));
                case INTEGER -> buffer.setInt(column, row.getInt(i));
                case LONG -> buffer.setLong(column, row.getLong(i));
                case FLOAT -> buffer.setFloat(column, row.getFloat(i));
                case DOUBLE -> buffer.setDouble(column, row.getDouble(i));
                case LONG_DECIMAL -> {
                    if (row instanceof UnsafeRow unsafe) {
                        // an UnsafeRow holds a decimal of precision <= 18 as its unscaled long
                        buffer.setDecimalUnscaled(column, unsafe.getLong(i), scales[value]);
                    } else {
                        Decimal decimal = row.getDecimal(i, precisions[value], scales[value]);
                        buffer.setDecimalUnscaled(column, decimal.toUnscaledLong(), decimal.scale());
                    }
                }
                case DECIMAL ->
                    buffer.setValue(
                            column,
                            row.getDecimal(i, precisions[value], scales[value]).toJavaBigDecimal());
                case DATE -> buffer.setDays(column, row.getInt(i));
                case MICROS -> buffer.setMicros(column, row.getLong(i));
                case STRING -> {
                    if (row instanceof UnsafeRow unsafe && unsafe.getBaseObject() instanceof byte[] bytes) {
                        // an UnsafeRow's string field is its offset (high 32 bits) and size (low 32 bits)
                        long offsetAndSize = unsafe.getLong(i);
                        long offset = unsafe.getBaseOffset() + (offsetAndSize >>> 32) - Platform.BYTE_ARRAY_OFFSET;
                        buffer.setUtf8(column, bytes, Math.toIntExact(offset), (int) offsetAndSize);
                    } else {
                        setUtf8(buffer, column, row.getUTF8String(i));
                    }
                }
                case UUID ->
                    buffer.setValue(
                            column, uuid(names[value], row.getUTF8String(i).toString()));
                case BYTES -> {
                    byte[] bytes = row.getBinary(i);
                    buffer.setBytes(column, bytes, 0, bytes.length);
                }
                case NESTED -> buffer.setValue(column, nested[value].read(row, i));
            }
        }
    }

    /** The string's bytes where Spark holds them, without copying; a string off the heap is copied out. */
    private static void setUtf8(RowBuffer buffer, int column, UTF8String value) {
        if (value.getBaseObject() instanceof byte[] bytes) {
            int offset = Math.toIntExact(value.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET);
            buffer.setUtf8(column, bytes, offset, value.numBytes());
        } else {
            byte[] bytes = value.getBytes();
            buffer.setUtf8(column, bytes, 0, bytes.length);
        }
    }

    private static Kind kind(Types.NestedField column) {
        Type type = column.type();
        return switch (type.typeId()) {
            case BOOLEAN -> Kind.BOOLEAN;
            case INTEGER -> Kind.INTEGER;
            case LONG -> Kind.LONG;
            case FLOAT -> Kind.FLOAT;
            case DOUBLE -> Kind.DOUBLE;
            case DECIMAL ->
                ((Types.DecimalType) type).precision() <= Decimal.MAX_LONG_DIGITS() ? Kind.LONG_DECIMAL : Kind.DECIMAL;
            case DATE -> Kind.DATE;
            case TIMESTAMP -> Kind.MICROS;
            case STRING -> Kind.STRING;
            case UUID -> Kind.UUID;
            case FIXED, BINARY -> Kind.BYTES;
            case LIST, MAP, STRUCT -> Kind.NESTED;
            default ->
                throw new LakestreamException(
                        INVALID_ROW,
                        "Column '%s' has type %s, which Spark cannot write into yet".formatted(column.name(), type));
        };
    }

    private static UUID uuid(String column, String value) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new LakestreamException(
                    INVALID_ROW,
                    "Invalid row: column '%s' is a uuid, but '%s' is not a UUID (write it as xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)"
                            .formatted(column, value));
        }
    }
}
