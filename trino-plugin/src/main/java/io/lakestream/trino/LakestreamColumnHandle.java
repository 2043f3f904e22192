package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A column of a Lakestream table: a user column (with its Iceberg field id), a system column of
 * the {@code $changes} table, a hidden column ({@code $bucket}, {@code $offset}), or the row id of a
 * {@code DELETE} (the primary key).
 *
 * <p>A user column may be a dereference of a row column ({@code r.a.b}, pushed down by {@code applyProjection}):
 * {@code name} and {@code fieldId} are then the row column's, {@code path} the Iceberg field ids of the fields
 * dereferenced (outermost first), {@code pathNames} their names, and {@code type} the type of the last one. The
 * read returns that field alone, having read only its lake columns and log children.
 */
public record LakestreamColumnHandle(
        String name, Type type, Kind kind, OptionalInt fieldId, List<Integer> path, List<String> pathNames)
        implements ColumnHandle {
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
        path = List.copyOf(requireNonNull(path, "path is null"));
        pathNames = List.copyOf(requireNonNull(pathNames, "pathNames is null"));
        if ((kind == Kind.USER) != fieldId.isPresent()) {
            throw new IllegalArgumentException("a user column has a field id, a system column has none: " + name);
        }
        if (path.size() != pathNames.size() || (!path.isEmpty() && kind != Kind.USER)) {
            throw new IllegalArgumentException("a dereference names one field per step of a user column: " + name);
        }
    }

    public LakestreamColumnHandle(String name, Type type, Kind kind, OptionalInt fieldId) {
        this(name, type, kind, fieldId, List.of(), List.of());
    }

    /** A field of this row column (of a field of it), of the given type. */
    public LakestreamColumnHandle dereference(int fieldId, String fieldName, Type fieldType) {
        if (kind != Kind.USER) {
            throw new IllegalArgumentException("only a user column has fields: " + name);
        }
        List<Integer> newPath = new ArrayList<>(path);
        newPath.add(fieldId);
        List<String> newNames = new ArrayList<>(pathNames);
        newNames.add(fieldName);
        return new LakestreamColumnHandle(name, fieldType, kind, this.fieldId, newPath, newNames);
    }

    /** Whether this is a field of a row column rather than a whole column. */
    public boolean isDereference() {
        return !path.isEmpty();
    }

    /** The column's name, or {@code r.a.b} for a dereference. */
    public String qualifiedName() {
        return pathNames.isEmpty() ? name : name + "." + String.join(".", pathNames);
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
