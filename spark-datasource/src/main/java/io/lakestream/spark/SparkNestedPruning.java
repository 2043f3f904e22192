package io.lakestream.spark;

import io.lakestream.merge.NestedPruning;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Spark's nested schema pruning ({@code spark.sql.optimizer.nestedSchemaPruning.enabled}, on by default) hands
 * {@code pruneColumns} a struct column with only the fields a query uses; this narrows the Iceberg column to them
 * ({@link NestedPruning}: through structs, lists and maps whole), so the union read reads only their lake columns and
 * log children. The scan reports the narrowed column's Spark type as its read schema; the executors narrow again from
 * that type and get the same column.
 */
final class SparkNestedPruning {
    private SparkNestedPruning() {}

    /** {@code column} narrowed to the fields of {@code required} (Spark's pruned type of it), by field name. */
    static Types.NestedField narrow(Types.NestedField column, DataType required) {
        Set<Integer> keep = new HashSet<>();
        used(column, required, keep);
        return NestedPruning.prune(column, keep).orElse(column);
    }

    private static void used(Types.NestedField field, DataType required, Set<Integer> keep) {
        if (!field.type().isStructType() || !(required instanceof StructType struct)) {
            keep.add(field.fieldId());
            return;
        }
        for (StructField requiredField : struct.fields()) {
            Types.NestedField child = field.type().asStructType().field(requiredField.name());
            if (child == null) {
                // not a field of this struct: read the struct whole rather than guess
                keep.add(field.fieldId());
                return;
            }
            used(child, requiredField.dataType(), keep);
        }
    }
}
