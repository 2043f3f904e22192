package io.lakestream.merge;

import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The lake columns that make one key, in key order: the primary key (matched against a log tail's changed
 * keys) or the columns of an Iceberg equality delete file. An engine maps them to its own columns once and
 * hands {@link LakeRowSelector} a {@link LakeKeyAccessor} over them per batch.
 */
public record KeyColumns(List<Types.NestedField> fields) {
    public KeyColumns {
        fields = List.copyOf(fields);
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("a key has at least one column");
        }
    }

    public List<Integer> fieldIds() {
        return fields.stream().map(Types.NestedField::fieldId).toList();
    }

    public List<Type> types() {
        return fields.stream().map(Types.NestedField::type).toList();
    }

    /** True if these are one {@code int}, {@code long} or {@code date} column, matched as primitive longs. */
    public boolean isLong() {
        return fields.size() == 1
                && switch (fields.getFirst().type().typeId()) {
                    case INTEGER, LONG, DATE -> true;
                    default -> false;
                };
    }
}
