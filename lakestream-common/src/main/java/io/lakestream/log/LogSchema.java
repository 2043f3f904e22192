package io.lakestream.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Arrow schema of log segments: {@code __change_type}, {@code __timestamp}, then the user
 * columns, all nullable (a delete row sets only the key columns). Each user column carries its
 * Iceberg field id in the field metadata so readers can resolve renamed columns. Lists, maps and structs
 * are Arrow lists, maps and structs ({@link NestedArrowFields}).
 */
public final class LogSchema {
    public static final String CHANGE_TYPE = "__change_type";
    public static final String TIMESTAMP = "__timestamp";
    public static final int SYSTEM_COLUMN_COUNT = 2;
    public static final String FIELD_ID_METADATA = "lakestream.field-id";

    private LogSchema() {}

    public static Schema arrowSchema(org.apache.iceberg.Schema schema) {
        List<Field> fields = new ArrayList<>(schema.columns().size() + SYSTEM_COLUMN_COUNT);
        fields.add(new Field(CHANGE_TYPE, FieldType.notNullable(new ArrowType.Int(8, true)), null));
        fields.add(new Field(
                TIMESTAMP, FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null));
        for (Types.NestedField column : schema.columns()) {
            fields.add(arrowField(column));
        }
        return new Schema(fields);
    }

    public static Field arrowField(Types.NestedField column) {
        if (column.type().isNestedType()) {
            return NestedArrowFields.field(column.name(), column.fieldId(), column.type(), true);
        }
        FieldType type = new FieldType(
                true, arrowType(column.type()), null, Map.of(FIELD_ID_METADATA, Integer.toString(column.fieldId())));
        return new Field(column.name(), type, null);
    }

    public static ArrowType arrowType(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> ArrowType.Bool.INSTANCE;
            case INTEGER -> new ArrowType.Int(32, true);
            case LONG -> new ArrowType.Int(64, true);
            case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                yield new ArrowType.Decimal(decimal.precision(), decimal.scale(), 128);
            }
            case DATE -> new ArrowType.Date(DateUnit.DAY);
            case TIME -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
            case TIMESTAMP ->
                new ArrowType.Timestamp(
                        TimeUnit.MICROSECOND, ((Types.TimestampType) type).shouldAdjustToUTC() ? "UTC" : null);
            case STRING -> ArrowType.Utf8.INSTANCE;
            case UUID -> new ArrowType.FixedSizeBinary(16);
            case FIXED -> new ArrowType.FixedSizeBinary(((Types.FixedType) type).length());
            case BINARY -> ArrowType.Binary.INSTANCE;
            default -> throw new IllegalArgumentException("type %s is not supported in the log".formatted(type));
        };
    }
}
