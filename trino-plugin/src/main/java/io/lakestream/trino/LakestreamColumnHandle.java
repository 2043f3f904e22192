package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import java.util.OptionalInt;

/**
 * A column of a Lakestream table: a user column (with its Iceberg field id), a system column of
 * the {@code $changes} table, a hidden column ({@code $bucket}, {@code $offset}), or the row id of a
 * {@code DELETE} (the primary key).
 */
public record LakestreamColumnHandle(String name, Type type, Kind kind, OptionalInt fieldId) implements ColumnHandle {
    public enum Kind {
        USER,
        /** {@code _change_type}, {@code _bucket}, {@code _offset}, {@code _commit_timestamp} of {@code $changes}. */
        CHANGE,
        /** The primary key of a row as a {@code row(...)} value: how a {@code DELETE} names the rows it removes. */
        ROW_ID,
        /** The hidden column {@code $bucket}: the log bucket a row belongs to. */
        BUCKET,
        /** The hidden column {@code $offset}: the log offset of the change a row of the log tail comes from. */
        OFFSET
    }

    /** The name of the row id column; it is never shown to users. */
    public static final String ROW_ID_NAME = "$row_id";

    public LakestreamColumnHandle {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(fieldId, "fieldId is null");
        if ((kind == Kind.USER) != fieldId.isPresent()) {
            throw new IllegalArgumentException("a user column has a field id, a system column has none: " + name);
        }
    }

    public static LakestreamColumnHandle user(String name, Type type, int fieldId) {
        return new LakestreamColumnHandle(name, type, Kind.USER, OptionalInt.of(fieldId));
    }

    public static LakestreamColumnHandle change(String name, Type type) {
        return new LakestreamColumnHandle(name, type, Kind.CHANGE, OptionalInt.empty());
    }

    public static LakestreamColumnHandle rowId(RowType type) {
        return new LakestreamColumnHandle(ROW_ID_NAME, type, Kind.ROW_ID, OptionalInt.empty());
    }

    public boolean isUserColumn() {
        return kind == Kind.USER;
    }
}
