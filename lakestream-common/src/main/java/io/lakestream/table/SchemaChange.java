package io.lakestream.table;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import org.apache.iceberg.types.Type;

/**
 * One column change of an {@code ALTER TABLE}, engine-neutral: Trino's {@code addColumn}/{@code renameColumn}/...
 * and Spark's {@code TableChange}s are translated into these and applied together by {@link SchemaEvolution}.
 * Columns are named by their current (top-level) name.
 */
public sealed interface SchemaChange {
    /** The column the change is about, by its current name (for an added column: its new name). */
    String column();

    /** Where an added column goes. */
    sealed interface Position {
        record Last() implements Position {}

        record First() implements Position {}

        record After(String column) implements Position {
            public After {
                requireNonNull(column, "column is null");
            }
        }
    }

    /** A new nullable column; it reads as NULL in every row written before. */
    record AddColumn(String column, Type type, Optional<String> comment, Position position) implements SchemaChange {
        public AddColumn {
            requireNonNull(column, "column is null");
            requireNonNull(type, "type is null");
            requireNonNull(comment, "comment is null");
            requireNonNull(position, "position is null");
        }
    }

    record DropColumn(String column) implements SchemaChange {
        public DropColumn {
            requireNonNull(column, "column is null");
        }
    }

    record RenameColumn(String column, String newName) implements SchemaChange {
        public RenameColumn {
            requireNonNull(column, "column is null");
            requireNonNull(newName, "newName is null");
        }
    }

    /** A widening type change (int to bigint, float to double, decimal precision up), as Iceberg allows it. */
    record WidenColumn(String column, Type.PrimitiveType type) implements SchemaChange {
        public WidenColumn {
            requireNonNull(column, "column is null");
            requireNonNull(type, "type is null");
        }
    }

    /** Sets the column's comment; empty removes it. */
    record SetComment(String column, Optional<String> comment) implements SchemaChange {
        public SetComment {
            requireNonNull(column, "column is null");
            requireNonNull(comment, "comment is null");
        }
    }
}
