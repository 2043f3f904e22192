package io.lakestream.spark;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MetadataBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The lake columns a Spark Parquet read needs: first the columns it returns, in order, then the
 * primary key columns (to drop the rows the log tail changes), the columns of the equality delete files and
 * the filter's columns, when they are not returned.
 *
 * @param fields every column read, in batch order
 * @param outputCount how many of them, from the first, the read returns
 */
record LakeReadColumns(List<Types.NestedField> fields, int outputCount) {
    /** Spark's Parquet reader matches a requested column to the file's by this field id. */
    static final String FIELD_ID_KEY = "parquet.field.id";

    private static final String REQUESTED_NAME_PREFIX = "__lakestream_field_";

    LakeReadColumns {
        fields = List.copyOf(fields);
    }

    /**
     * @param output the columns the read returns, a struct possibly narrowed to some of its fields ({@link
     *     SparkNestedPruning})
     * @param key the primary key columns, if the read drops rows by key
     * @param equalityFieldIds the columns of the split's equality delete files (those the schema no longer has are
     *     left out: loading such a delete file fails with an error that says so)
     */
    static LakeReadColumns of(
            Schema schema,
            List<Types.NestedField> output,
            List<Types.NestedField> key,
            Collection<List<Integer>> equalityFieldIds,
            Expression filter) {
        Map<Integer, Types.NestedField> fields = new LinkedHashMap<>();
        output.forEach(field -> fields.putIfAbsent(field.fieldId(), field));
        int outputCount = fields.size();
        key.forEach(field -> fields.putIfAbsent(field.fieldId(), field));
        equalityFieldIds.forEach(fieldIds -> fieldIds.stream()
                .map(schema::findField)
                .filter(Objects::nonNull)
                .forEach(field -> fields.putIfAbsent(field.fieldId(), field)));
        // key, equality delete and filter columns are top-level columns of primitive types
        Binder.boundReferences(schema.asStruct(), List.of(filter), false)
                .forEach(id -> fields.putIfAbsent(id, schema.findField(id)));
        return new LakeReadColumns(List.copyOf(fields.values()), outputCount);
    }

    /** The batch column of the field {@code fieldId}. */
    int indexOf(int fieldId) {
        for (int i = 0; i < fields.size(); i++) {
            if (fields.get(i).fieldId() == fieldId) {
                return i;
            }
        }
        throw new IllegalArgumentException("field %s is not read".formatted(fieldId));
    }

    /**
     * The schema Spark's Parquet reader is asked for, columns matched by Iceberg field id. Each column, and each field
     * of a struct at any depth (also inside lists and maps), is requested under a name no file column has ({@value
     * #REQUESTED_NAME_PREFIX} and its field id; names starting with {@code __} are reserved): Spark's reader picks the
     * file columns (and a struct's fields) by field id, but then pairs each file column with a requested one by name
     * before it tries the id, so a file column or struct field still named {@code c} (renamed since) would be paired
     * with one added later as {@code c} and read as its type. A struct field a file lacks (added since) reads as
     * nulls. The batch columns, and the children of its struct vectors, are used by position only: Spark reads them
     * by the ordinals of the scan's read schema, whose structs have the same fields in the same order.
     */
    StructType sparkSchema() {
        return requestedStruct(fields);
    }

    private static StructType requestedStruct(List<Types.NestedField> fields) {
        List<StructField> result = new ArrayList<>(fields.size());
        for (Types.NestedField field : fields) {
            result.add(new StructField(
                    REQUESTED_NAME_PREFIX + field.fieldId(),
                    requestedType(field.name(), field.type()),
                    field.isOptional(),
                    new MetadataBuilder().putLong(FIELD_ID_KEY, field.fieldId()).build()));
        }
        return new StructType(result.toArray(StructField[]::new));
    }

    private static DataType requestedType(String column, Type type) {
        return switch (type.typeId()) {
            case STRUCT -> requestedStruct(type.asStructType().fields());
            case LIST -> {
                Types.ListType list = type.asListType();
                yield DataTypes.createArrayType(requestedType(column, list.elementType()), list.isElementOptional());
            }
            case MAP -> {
                Types.MapType map = type.asMapType();
                yield DataTypes.createMapType(
                        requestedType(column, map.keyType()),
                        requestedType(column, map.valueType()),
                        map.isValueOptional());
            }
            default -> LakestreamTypes.sparkType(column, type);
        };
    }
}
