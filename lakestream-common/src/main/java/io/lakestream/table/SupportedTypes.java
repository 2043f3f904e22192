package io.lakestream.table;

import java.util.Set;
import org.apache.iceberg.types.Type;

/**
 * Which Iceberg column types Lakestream tables support, as columns and as key columns. Lists, maps and structs
 * are columns, never keys: a key is hashed and compared as one primitive value in every layer.
 */
public final class SupportedTypes {
    private static final Set<Type.TypeID> COLUMN_TYPES = Set.of(
            Type.TypeID.BOOLEAN,
            Type.TypeID.INTEGER,
            Type.TypeID.LONG,
            Type.TypeID.FLOAT,
            Type.TypeID.DOUBLE,
            Type.TypeID.DECIMAL,
            Type.TypeID.DATE,
            Type.TypeID.TIME,
            Type.TypeID.TIMESTAMP,
            Type.TypeID.STRING,
            Type.TypeID.UUID,
            Type.TypeID.FIXED,
            Type.TypeID.BINARY);

    // Exactly the types Iceberg's bucket transform accepts, so the Lakestream bucket of a single-column
    // key is the Iceberg bucket partition value. Floating point keys are excluded on purpose: equality
    // on them is not stable across engines.
    private static final Set<Type.TypeID> KEY_TYPES = Set.of(
            Type.TypeID.INTEGER,
            Type.TypeID.LONG,
            Type.TypeID.DECIMAL,
            Type.TypeID.DATE,
            Type.TypeID.TIME,
            Type.TypeID.TIMESTAMP,
            Type.TypeID.STRING,
            Type.TypeID.UUID,
            Type.TypeID.FIXED,
            Type.TypeID.BINARY);

    private SupportedTypes() {}

    /** A supported primitive type, or a list, map or struct whose element, key, value and field types all are. */
    public static boolean isSupportedColumnType(Type type) {
        if (type.isNestedType()) {
            return type.asNestedType().fields().stream().allMatch(field -> isSupportedColumnType(field.type()));
        }
        return COLUMN_TYPES.contains(type.typeId());
    }

    public static String describeColumnTypes() {
        return "boolean, int, bigint/long, float, double, decimal, date, time, timestamp, timestamptz (microseconds),"
                + " string, uuid, fixed, binary, and list, map and struct of these";
    }

    public static boolean isSupportedKeyType(Type type) {
        return KEY_TYPES.contains(type.typeId());
    }

    public static String describeKeyTypes() {
        return "int, bigint/long, decimal, date, time, timestamp, timestamptz, string, uuid, fixed, binary";
    }
}
