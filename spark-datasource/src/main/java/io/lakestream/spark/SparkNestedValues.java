package io.lakestream.spark;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataType;

/**
 * Reads a Spark array, map or struct value (Spark's internal {@link ArrayData}, {@link MapData}, {@link
 * InternalRow}) as the Java value the Lakestream writer takes for a list, map or struct column: a {@code
 * List}, a {@code Map}, and for a struct a {@code Map} from field name to value; the primitives inside as
 * Iceberg's generic values (strings, {@code BigDecimal}, {@code LocalDate}, timestamps from Spark's micros).
 */
final class SparkNestedValues {
    private final Type type;
    private final DataType sparkType;

    SparkNestedValues(Type type) {
        this.type = type;
        this.sparkType = LakestreamTypes.sparkType("value", type);
    }

    /** The non-null value at {@code ordinal} of {@code row}. */
    Object read(SpecializedGetters row, int ordinal) {
        return value(row.get(ordinal, sparkType), type);
    }

    private static Object value(Object value, Type type) {
        if (value == null) {
            return null;
        }
        return switch (type.typeId()) {
            case LIST -> {
                ArrayData array = (ArrayData) value;
                Type elementType = type.asListType().elementType();
                DataType sparkElement = LakestreamTypes.sparkType("value", elementType);
                List<Object> values = new ArrayList<>(array.numElements());
                for (int i = 0; i < array.numElements(); i++) {
                    values.add(array.isNullAt(i) ? null : value(array.get(i, sparkElement), elementType));
                }
                yield values;
            }
            case MAP -> {
                MapData map = (MapData) value;
                Types.MapType mapType = type.asMapType();
                List<Object> keys =
                        (List<Object>) value(map.keyArray(), Types.ListType.ofRequired(0, mapType.keyType()));
                List<Object> values =
                        (List<Object>) value(map.valueArray(), Types.ListType.ofOptional(0, mapType.valueType()));
                Map<Object, Object> entries = new LinkedHashMap<>();
                for (int i = 0; i < keys.size(); i++) {
                    entries.put(keys.get(i), values.get(i));
                }
                yield entries;
            }
            case STRUCT -> {
                InternalRow row = (InternalRow) value;
                List<Types.NestedField> fields = type.asStructType().fields();
                Map<String, Object> values = new LinkedHashMap<>();
                for (int i = 0; i < fields.size(); i++) {
                    Types.NestedField field = fields.get(i);
                    values.put(
                            field.name(),
                            row.isNullAt(i)
                                    ? null
                                    : value(
                                            row.get(i, LakestreamTypes.sparkType(field.name(), field.type())),
                                            field.type()));
                }
                yield values;
            }
            case STRING -> value.toString();
            case DECIMAL -> ((org.apache.spark.sql.types.Decimal) value).toJavaBigDecimal();
            case DATE -> LocalDate.ofEpochDay((Integer) value);
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? DateTimeUtil.timestamptzFromMicros((Long) value)
                        : DateTimeUtil.timestampFromMicros((Long) value);
            default -> value; // boolean, numbers, binary: Spark's value is the Java value
        };
    }
}
