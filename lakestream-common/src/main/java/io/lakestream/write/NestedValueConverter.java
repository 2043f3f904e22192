package io.lakestream.write;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Converts the Java value of a list, map or struct column into Iceberg's generic value of the column's type
 * ({@code List}, {@code Map}, {@link GenericRecord}), converting every primitive inside exactly as a top-level
 * column of that type converts it ({@link ValueConverter}), or says that it does not fit (null). A list is any
 * {@code List}; a map any {@code Map} (no null key); a struct a {@link Record} (fields by name), another
 * {@link StructLike} (by position) or a {@code Map} from field name to value. A required element, value or
 * field holds no null.
 */
final class NestedValueConverter {
    /** Converts a non-null value; null if the type cannot hold it. */
    private sealed interface Node permits Primitive, ListNode, MapNode, StructNode {
        Object convert(Object value);
    }

    private final Node root;

    NestedValueConverter(Type type) {
        this.root = node(type);
    }

    Object convert(Object value) {
        return root.convert(value);
    }

    private static Node node(Type type) {
        return switch (type.typeId()) {
            case LIST -> {
                Types.ListType list = type.asListType();
                yield new ListNode(node(list.elementType()), list.isElementOptional());
            }
            case MAP -> {
                Types.MapType map = type.asMapType();
                yield new MapNode(node(map.keyType()), node(map.valueType()), map.isValueOptional());
            }
            case STRUCT -> {
                Types.StructType struct = type.asStructType();
                yield new StructNode(
                        struct,
                        struct.fields().stream()
                                .map(field -> node(field.type()))
                                .toArray(Node[]::new));
            }
            default -> new Primitive(ValueConverter.forType(type));
        };
    }

    /** A nested value that is null where it may be, else converted; {@code REJECTED} if it does not fit. */
    private static Object child(Node node, Object value, boolean optional) {
        if (value == null) {
            return optional ? null : REJECTED;
        }
        Object converted = node.convert(value);
        return converted == null ? REJECTED : converted;
    }

    private static final Object REJECTED = new Object();

    /** A primitive, converted through a one-row batch of its own. */
    private record Primitive(ValueConverter converter, RowBatch scratch) implements Node {
        Primitive(ValueConverter converter) {
            this(converter, new RowBatch(1, 1, new boolean[] {converter.holdsObjects()}));
        }

        @Override
        public Object convert(Object value) {
            scratch.clear();
            if (!converter.convert(value, scratch, 0)) {
                return null;
            }
            scratch.nulls[0][0] = false;
            return converter.icebergValue(scratch, 0, 0);
        }
    }

    private record ListNode(Node element, boolean elementOptional) implements Node {
        @Override
        public Object convert(Object value) {
            if (!(value instanceof List<?> list)) {
                return null;
            }
            List<Object> converted = new ArrayList<>(list.size());
            for (Object item : list) {
                Object element = child(this.element, item, elementOptional);
                if (element == REJECTED) {
                    return null;
                }
                converted.add(element);
            }
            return converted;
        }
    }

    private record MapNode(Node key, Node value, boolean valueOptional) implements Node {
        @Override
        public Object convert(Object map) {
            if (!(map instanceof Map<?, ?> entries)) {
                return null;
            }
            Map<Object, Object> converted = new LinkedHashMap<>();
            for (Map.Entry<?, ?> entry : entries.entrySet()) {
                Object convertedKey = child(key, entry.getKey(), false);
                Object convertedValue = child(value, entry.getValue(), valueOptional);
                if (convertedKey == REJECTED || convertedValue == REJECTED) {
                    return null;
                }
                converted.put(convertedKey, convertedValue);
            }
            return converted;
        }
    }

    private record StructNode(Types.StructType type, Node[] fields) implements Node {
        @Override
        public Object convert(Object value) {
            List<Types.NestedField> declared = type.fields();
            GenericRecord converted = GenericRecord.create(type);
            if (value instanceof Map<?, ?> byName) {
                for (Object name : byName.keySet()) {
                    if (!(name instanceof String field) || type.field(field) == null) {
                        return null;
                    }
                }
            } else if (value instanceof Record record) {
                for (Types.NestedField field : record.struct().fields()) {
                    if (type.field(field.name()) == null) {
                        return null;
                    }
                }
            } else if (!(value instanceof StructLike struct) || struct.size() != declared.size()) {
                return null;
            }
            for (int i = 0; i < declared.size(); i++) {
                Types.NestedField field = declared.get(i);
                Object fieldValue = switch (value) {
                    case Map<?, ?> byName -> byName.get(field.name());
                    case Record record ->
                        record.struct().field(field.name()) == null ? null : record.getField(field.name());
                    case StructLike struct -> struct.get(i, Object.class);
                    default -> throw new IllegalStateException("checked above");
                };
                Object convertedField = child(fields[i], fieldValue, field.isOptional());
                if (convertedField == REJECTED) {
                    return null;
                }
                converted.set(i, convertedField);
            }
            return converted;
        }
    }

    /** How a value of a nested type is spelled to a Java caller, for error messages. */
    static String expectedJavaTypes(Type type) {
        return switch (type.typeId()) {
            case LIST ->
                "List of (%s)"
                        .formatted(ValueConverter.expectedJavaTypes(
                                type.asListType().elementType()));
            case MAP ->
                "Map from (%s) to (%s), no null key"
                        .formatted(
                                ValueConverter.expectedJavaTypes(
                                        type.asMapType().keyType()),
                                ValueConverter.expectedJavaTypes(
                                        type.asMapType().valueType()));
            case STRUCT ->
                "Record, StructLike or Map<String, ?> with fields "
                        + String.join(
                                ", ",
                                type.asStructType().fields().stream()
                                        .map(field -> "%s%s: %s"
                                                .formatted(
                                                        field.name(),
                                                        field.isRequired() ? " (not null)" : "",
                                                        ValueConverter.expectedJavaTypes(field.type())))
                                        .toList());
            default -> ValueConverter.expectedJavaTypes(type);
        };
    }
}
