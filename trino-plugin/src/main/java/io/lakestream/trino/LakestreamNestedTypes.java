package io.lakestream.trino;

import io.trino.spi.type.ArrayType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.types.Types;

/**
 * The mapping between Iceberg lists, maps and structs and Trino's {@code array}, {@code map} and {@code row}
 * types, element by element through {@link LakestreamTypes}. The Iceberg types a {@code CREATE TABLE} gets
 * carry placeholder field ids (numbered within the column); the table creation assigns the real ones.
 */
final class LakestreamNestedTypes {
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();

    private LakestreamNestedTypes() {}

    static boolean isNested(Type type) {
        return type instanceof ArrayType || type instanceof MapType || type instanceof RowType;
    }

    static Optional<Type> toTrinoType(org.apache.iceberg.types.Type type) {
        return switch (type.typeId()) {
            case LIST ->
                Optional.of(new ArrayType(
                        LakestreamTypes.toTrinoType(type.asListType().elementType())));
            case MAP ->
                Optional.of(new MapType(
                        LakestreamTypes.toTrinoType(type.asMapType().keyType()),
                        LakestreamTypes.toTrinoType(type.asMapType().valueType()),
                        TYPE_OPERATORS));
            case STRUCT ->
                Optional.of(RowType.from(type.asStructType().fields().stream()
                        .map(field -> RowType.field(field.name(), LakestreamTypes.toTrinoType(field.type())))
                        .toList()));
            default -> Optional.empty();
        };
    }

    static Optional<org.apache.iceberg.types.Type> toIcebergType(String column, Type type) {
        if (!isNested(type)) {
            return Optional.empty();
        }
        return Optional.of(toIcebergType(column, type, new int[] {0}));
    }

    private static org.apache.iceberg.types.Type toIcebergType(String column, Type type, int[] lastId) {
        if (type instanceof ArrayType array) {
            int elementId = ++lastId[0];
            return Types.ListType.ofOptional(elementId, element(column, array.getElementType(), lastId));
        }
        if (type instanceof MapType map) {
            int keyId = ++lastId[0];
            int valueId = ++lastId[0];
            return Types.MapType.ofOptional(
                    keyId,
                    valueId,
                    element(column, map.getKeyType(), lastId),
                    element(column, map.getValueType(), lastId));
        }
        RowType row = (RowType) type;
        List<Types.NestedField> fields = new ArrayList<>();
        for (int i = 0; i < row.getFields().size(); i++) {
            RowType.Field field = row.getFields().get(i);
            String name = field.getName().orElse("field" + i);
            fields.add(Types.NestedField.optional(++lastId[0], name, element(column, field.getType(), lastId)));
        }
        return Types.StructType.of(fields);
    }

    private static org.apache.iceberg.types.Type element(String column, Type type, int[] lastId) {
        return isNested(type) ? toIcebergType(column, type, lastId) : LakestreamTypes.toIcebergType(column, type);
    }
}
