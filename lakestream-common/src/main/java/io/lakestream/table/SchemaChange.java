package io.lakestream.table;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.types.Type;

/**
 * One change of an {@code ALTER TABLE}, engine-neutral: Trino's {@code addColumn}/{@code addField}/{@code
 * renameField}/... and Spark's {@code TableChange}s are translated into these and applied together by {@code
 * SchemaEvolution}. A column or nested field is named by its path of current names: a top-level column is a path
 * of one name; a field of a struct column is the column's name followed by the field names down to it (a list's
 * element is {@code element}, a map's key and value {@code key} and {@code value}, as in Iceberg).
 */
public sealed interface SchemaChange {
    /** Where an added column or field goes, among its siblings. */
    sealed interface Position {
        record Last() implements Position {}

        record First() implements Position {}

        /** After the sibling named {@code column} (a name inside the same struct, not a path). */
        record After(String column) implements Position {
            public After {
                requireNonNull(column, "column is null");
            }
        }
    }

    /**
     * A new nullable column, or a new field of a struct column (the path's last name is the new field's name, the
     * names before it the struct's path); it reads as NULL in every row written before. With {@code ifNotExists}, an
     * existing one of that name is left as it is (Trino's {@code ADD COLUMN IF NOT EXISTS}).
     */
    record AddColumn(List<String> path, Type type, Optional<String> comment, Position position, boolean ifNotExists)
            implements SchemaChange {
        public AddColumn {
            path = checkedPath(path);
            requireNonNull(type, "type is null");
            requireNonNull(comment, "comment is null");
            requireNonNull(position, "position is null");
        }

        public AddColumn(String column, Type type, Optional<String> comment, Position position) {
            this(List.of(column), type, comment, position, false);
        }
    }

    record DropColumn(List<String> path) implements SchemaChange {
        public DropColumn {
            path = checkedPath(path);
        }

        public DropColumn(String column) {
            this(List.of(column));
        }
    }

    /** Renames the column or field at {@code path} to {@code newName} (a name, not a path). */
    record RenameColumn(List<String> path, String newName) implements SchemaChange {
        public RenameColumn {
            path = checkedPath(path);
            requireNonNull(newName, "newName is null");
        }

        public RenameColumn(String column, String newName) {
            this(List.of(column), newName);
        }
    }

    /** A widening type change (int to bigint, float to double, decimal precision up), as Iceberg allows it. */
    record WidenColumn(List<String> path, Type.PrimitiveType type) implements SchemaChange {
        public WidenColumn {
            path = checkedPath(path);
            requireNonNull(type, "type is null");
        }

        public WidenColumn(String column, Type.PrimitiveType type) {
            this(List.of(column), type);
        }
    }

    /** Sets the column's comment; empty removes it. */
    record SetComment(List<String> path, Optional<String> comment) implements SchemaChange {
        public SetComment {
            path = checkedPath(path);
            requireNonNull(comment, "comment is null");
        }

        public SetComment(String column, Optional<String> comment) {
            this(List.of(column), comment);
        }
    }

    /**
     * Makes a column nullable ({@code DROP NOT NULL}), or, with {@code nullable} false, NOT NULL ({@code SET NOT
     * NULL}, refused: rows already written to either layer may hold NULL there, see docs/format.md).
     */
    record SetNullability(List<String> path, boolean nullable) implements SchemaChange {
        public SetNullability {
            path = checkedPath(path);
        }

        public SetNullability(String column, boolean nullable) {
            this(List.of(column), nullable);
        }
    }

    /** Sets the table's comment (Iceberg table property {@code comment}); empty removes it. */
    record SetTableComment(Optional<String> comment) implements SchemaChange {
        public SetTableComment {
            requireNonNull(comment, "comment is null");
        }
    }

    /**
     * Sets the table property {@link PartitionExpiration#PROPERTY} to {@code value}; empty removes it. The value is
     * validated against the table's partitioning before anything is committed.
     */
    record SetPartitionExpiration(Optional<String> value) implements SchemaChange {
        public SetPartitionExpiration {
            requireNonNull(value, "value is null");
        }
    }

    /**
     * Sets the table property {@link LogCompression#PROPERTY} to {@code value}; empty sets the default of new tables
     * ({@link LogCompression#DEFAULT}: an absent property means a table created before it, which writes uncompressed).
     * Segments written before keep their compression; writers made after the commit use the new one.
     */
    record SetLogCompression(Optional<String> value) implements SchemaChange {
        public SetLogCompression {
            requireNonNull(value, "value is null");
        }
    }

    private static List<String> checkedPath(List<String> path) {
        requireNonNull(path, "path is null");
        if (path.isEmpty()) {
            throw new IllegalArgumentException("path is empty");
        }
        return ImmutableList.copyOf(path);
    }
}
