package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The mapping between Iceberg lists, maps and structs and Spark's {@code array}, {@code map} and {@code
 * struct}, element by element through {@link LakestreamTypes}. Inside them, Spark reads the log's Arrow
 * vectors as they are ({@code ArrowColumnVector}), so the types whose Arrow layout is not Spark's (uuid,
 * fixed) are refused there. The Iceberg types a {@code CREATE TABLE} gets carry placeholder field ids; the
 * schema gets fresh ones ({@link LakestreamTypes#icebergSchema}).
 */
final class LakestreamNestedTypes {
    private LakestreamNestedTypes() {}

    static Optional<DataType> sparkType(String column, Type type) {
        return switch (type.typeId()) {
            case LIST -> {
                Types.ListType list = type.asListType();
                yield Optional.of(
                        DataTypes.createArrayType(element(column, list.elementType()), list.isElementOptional()));
            }
            case MAP -> {
                Types.MapType map = type.asMapType();
                yield Optional.of(DataTypes.createMapType(
                        element(column, map.keyType()), element(column, map.valueType()), map.isValueOptional()));
            }
            case STRUCT -> {
                List<StructField> fields = new ArrayList<>();
                for (Types.NestedField field : type.asStructType().fields()) {
                    StructField sparkField = new StructField(
                            field.name(), element(column, field.type()), field.isOptional(), Metadata.empty());
                    // a field's comment, as Spark keeps it (DESCRIBE, schema metadata), like a column's
                    fields.add(field.doc() == null ? sparkField : sparkField.withComment(field.doc()));
                }
                yield Optional.of(new StructType(fields.toArray(StructField[]::new)));
            }
            default -> Optional.empty();
        };
    }

    /**
     * The type without the field metadata (comments) at any depth: Spark's {@code equals} compares metadata too, so
     * a check that a writer's input has the table's type must not fail for a comment on a struct field.
     */
    static DataType withoutComments(DataType type) {
        return switch (type) {
            case StructType struct -> {
                List<StructField> fields = new ArrayList<>();
                for (StructField field : struct.fields()) {
                    fields.add(new StructField(
                            field.name(), withoutComments(field.dataType()), field.nullable(), Metadata.empty()));
                }
                yield new StructType(fields.toArray(StructField[]::new));
            }
            case ArrayType array ->
                DataTypes.createArrayType(withoutComments(array.elementType()), array.containsNull());
            case MapType map ->
                DataTypes.createMapType(
                        withoutComments(map.keyType()), withoutComments(map.valueType()), map.valueContainsNull());
            default -> type;
        };
    }

    private static DataType element(String column, Type type) {
        if (type.typeId() == Type.TypeID.UUID || type.typeId() == Type.TypeID.FIXED) {
            throw new LakestreamException(
                    UNSUPPORTED_OPERATION,
                    "Column '%s' holds %s inside an array, map or struct, which Spark cannot read from Lakestream yet; read it through Trino"
                            .formatted(column, type));
        }
        return LakestreamTypes.sparkType(column, type);
    }

    static Optional<Type> icebergType(String column, DataType type) {
        if (!(type instanceof ArrayType || type instanceof MapType || type instanceof StructType)) {
            return Optional.empty();
        }
        return Optional.of(icebergType(column, type, new int[] {0}));
    }

    private static Type icebergType(String column, DataType type, int[] lastId) {
        return switch (type) {
            case ArrayType array -> {
                int elementId = ++lastId[0];
                Type element = icebergElement(column, array.elementType(), lastId);
                yield array.containsNull()
                        ? Types.ListType.ofOptional(elementId, element)
                        : Types.ListType.ofRequired(elementId, element);
            }
            case MapType map -> {
                int keyId = ++lastId[0];
                int valueId = ++lastId[0];
                Type key = icebergElement(column, map.keyType(), lastId);
                Type value = icebergElement(column, map.valueType(), lastId);
                yield map.valueContainsNull()
                        ? Types.MapType.ofOptional(keyId, valueId, key, value)
                        : Types.MapType.ofRequired(keyId, valueId, key, value);
            }
            case StructType struct -> {
                List<Types.NestedField> fields = new ArrayList<>();
                for (StructField field : struct.fields()) {
                    int fieldId = ++lastId[0];
                    fields.add(Types.NestedField.of(
                            fieldId,
                            field.nullable(),
                            field.name(),
                            icebergElement(column, field.dataType(), lastId),
                            field.getComment().getOrElse(() -> null)));
                }
                yield Types.StructType.of(fields);
            }
            default -> throw new IllegalArgumentException("not a nested type: " + type);
        };
    }

    private static Type icebergElement(String column, DataType type, int[] lastId) {
        return icebergType(column, type).isPresent()
                ? icebergType(column, type, lastId)
                : LakestreamTypes.icebergType(column, type);
    }
}
