package io.lakestream.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Arrow fields of the log's nested columns: an Iceberg list is an Arrow list with one child
 * {@code element}, a map an Arrow map (not sorted) of non-null {@code entries} structs holding a non-null
 * {@code key} and a {@code value}, and a struct an Arrow struct with one child per field, in field order.
 * Every child carries its Iceberg field id in its metadata ({@link LogSchema#FIELD_ID_METADATA}), as top-level
 * columns do. Children are nullable except map entries and keys (Arrow's map layout requires it): whether an
 * Iceberg field is required is checked by the writer, as for top-level columns.
 */
final class NestedArrowFields {
    static final String LIST_ELEMENT = "element";
    static final String MAP_ENTRIES = "entries";
    static final String MAP_KEY = "key";
    static final String MAP_VALUE = "value";

    private NestedArrowFields() {}

    /** The field of a column or child of type {@code type}, with the given nullability. */
    static Field field(String name, int fieldId, Type type, boolean nullable) {
        Map<String, String> metadata = Map.of(LogSchema.FIELD_ID_METADATA, Integer.toString(fieldId));
        if (type.isPrimitiveType()) {
            return new Field(name, new FieldType(nullable, LogSchema.arrowType(type), null, metadata), null);
        }
        return switch (type.typeId()) {
            case LIST -> {
                Types.ListType list = type.asListType();
                Field element = field(LIST_ELEMENT, list.elementId(), list.elementType(), true);
                yield new Field(
                        name, new FieldType(nullable, ArrowType.List.INSTANCE, null, metadata), List.of(element));
            }
            case MAP -> {
                Types.MapType map = type.asMapType();
                Field key = field(MAP_KEY, map.keyId(), map.keyType(), false);
                Field value = field(MAP_VALUE, map.valueId(), map.valueType(), true);
                Field entries =
                        new Field(MAP_ENTRIES, FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(key, value));
                yield new Field(
                        name, new FieldType(nullable, new ArrowType.Map(false), null, metadata), List.of(entries));
            }
            case STRUCT -> {
                List<Field> children = new ArrayList<>();
                for (Types.NestedField child : type.asStructType().fields()) {
                    children.add(field(child.name(), child.fieldId(), child.type(), true));
                }
                yield new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null, metadata), children);
            }
            default -> throw new IllegalArgumentException("type %s is not supported in the log".formatted(type));
        };
    }
}
