package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED;

import io.lakestream.table.SchemaChange;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ColumnPosition;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Trino's {@code ALTER TABLE} column statements as engine-neutral {@link SchemaChange}s. */
final class LakestreamSchemaChanges {
    private LakestreamSchemaChanges() {}

    static SchemaChange addColumn(ColumnMetadata column, ColumnPosition position) {
        if (!column.isNullable()) {
            // rows already written have no value for it (Trino's wording for the refusal)
            throw new TrinoException(
                    LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED, "This connector does not support adding not null columns");
        }
        SchemaChange.Position at = switch (position) {
            case ColumnPosition.Last _ -> new SchemaChange.Position.Last();
            case ColumnPosition.First _ -> new SchemaChange.Position.First();
            case ColumnPosition.After after -> new SchemaChange.Position.After(after.columnName());
            default -> throw new IllegalArgumentException("unknown column position " + position);
        };
        return new SchemaChange.AddColumn(
                column.getName(),
                LakestreamTypes.toIcebergType(column.getName(), column.getType()),
                column.getComment(),
                at);
    }

    /** A nullable field added at the end of the row type at {@code parentPath} (the column's name first). */
    static SchemaChange addField(List<String> parentPath, String fieldName, Type type, boolean ignoreExisting) {
        List<String> path = new ArrayList<>(parentPath);
        path.add(fieldName);
        return new SchemaChange.AddColumn(
                path,
                LakestreamTypes.toIcebergType(String.join(".", path), type),
                Optional.empty(),
                new SchemaChange.Position.Last(),
                ignoreExisting);
    }

    static SchemaChange setColumnType(String column, Type type) {
        return setColumnType(List.of(column), type);
    }

    /** The column or field at {@code path} (the column's name first) widened to {@code type}. */
    static SchemaChange setColumnType(List<String> path, Type type) {
        String name = String.join(".", path);
        org.apache.iceberg.types.Type iceberg = LakestreamTypes.toIcebergType(name, type);
        if (!iceberg.isPrimitiveType()) {
            throw new TrinoException(
                    LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED,
                    "Column '%s' cannot change type to %s: only widening is supported (integer to bigint, real to double, decimal precision up), not a change to or from a row, array or map type"
                            .formatted(name, type));
        }
        return new SchemaChange.WidenColumn(path, iceberg.asPrimitiveType());
    }
}
