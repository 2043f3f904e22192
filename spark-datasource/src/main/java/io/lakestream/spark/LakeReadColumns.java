package io.lakestream.spark;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;
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
     * @param output the columns the read returns
     * @param key the primary key columns, if the read drops rows by key
     * @param equalityFieldIds the columns of the split's equality delete files (those the schema no longer has are
     *     left out: loading such a delete file fails with an error that says so)
     */
    static LakeReadColumns of(
            Schema schema,
            List<String> output,
            List<Types.NestedField> key,
            Collection<List<Integer>> equalityFieldIds,
            Expression filter) {
        Set<Integer> ids = new LinkedHashSet<>();
        for (String column : output) {
            ids.add(schema.findField(column).fieldId());
        }
        int outputCount = ids.size();
        key.forEach(field -> ids.add(field.fieldId()));
        equalityFieldIds.forEach(fieldIds ->
                fieldIds.stream().filter(id -> schema.findField(id) != null).forEach(ids::add));
        ids.addAll(Binder.boundReferences(schema.asStruct(), List.of(filter), false));
        List<Types.NestedField> fields = new ArrayList<>(ids.size());
        ids.forEach(id -> fields.add(schema.findField(id)));
        return new LakeReadColumns(fields, outputCount);
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
     * The schema Spark's Parquet reader is asked for, columns matched by Iceberg field id. Each column is requested
     * under a name no file column has ({@value #REQUESTED_NAME_PREFIX} and its field id; names starting with
     * {@code __} are reserved): Spark's reader picks the file columns by field id, but then pairs each file column
     * with a requested one by name before it tries the id, so a file column still named {@code c} (renamed since)
     * would be paired with a column added later as {@code c} and read as its type. The batch columns are used by
     * position only.
     */
    StructType sparkSchema() {
        List<StructField> result = new ArrayList<>(fields.size());
        for (Types.NestedField field : fields) {
            StructField spark = LakestreamTypes.sparkField(field);
            result.add(new StructField(
                    REQUESTED_NAME_PREFIX + field.fieldId(),
                    spark.dataType(),
                    spark.nullable(),
                    new MetadataBuilder().putLong(FIELD_ID_KEY, field.fieldId()).build()));
        }
        return new StructType(result.toArray(StructField[]::new));
    }
}
