package io.lakestream.merge;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * A column narrowed to the nested fields a query uses (dereference pushdown in Trino, nested schema pruning in
 * Spark): {@code r.a} reads row {@code r} with field {@code a} only. Narrowing descends through structs only: a list
 * or map that holds a used field is read whole, because the log's Arrow lists and maps and the engines' blocks
 * keep their element layout together. Fields keep their Iceberg ids, so the lake's Parquet columns and the log's
 * Arrow children are matched by id as for whole columns.
 */
public final class NestedPruning {
    private NestedPruning() {}

    /**
     * {@code column} with only the fields on a path to one of {@code keep} (ids of nested fields, each kept whole);
     * the column itself whole if its own id is in {@code keep}; empty if nothing of it is kept.
     */
    public static Optional<Types.NestedField> prune(Types.NestedField column, Set<Integer> keep) {
        if (keep.contains(column.fieldId())) {
            return Optional.of(column);
        }
        Type type = column.type();
        if (type.isStructType()) {
            List<Types.NestedField> fields = new ArrayList<>();
            for (Types.NestedField field : type.asStructType().fields()) {
                prune(field, keep).ifPresent(fields::add);
            }
            return fields.isEmpty()
                    ? Optional.empty()
                    : Optional.of(Types.NestedField.from(column)
                            .ofType(Types.StructType.of(fields))
                            .build());
        }
        if (type.isNestedType()) {
            // a list or map: whole if anything inside it is used
            Set<Integer> inside =
                    TypeUtil.indexById(Types.StructType.of(column)).keySet();
            return inside.stream().anyMatch(keep::contains) ? Optional.of(column) : Optional.empty();
        }
        return Optional.empty();
    }

    /** Whether {@code read} is {@code column} narrowed (not the whole column). */
    public static boolean isPruned(Types.NestedField read, Types.NestedField column) {
        return !read.type().equals(column.type());
    }
}
