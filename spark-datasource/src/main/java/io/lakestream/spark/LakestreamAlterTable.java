package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.SCHEMA_CHANGE_UNSUPPORTED;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.SchemaChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.connector.catalog.TableChange;

/** Spark's {@link TableChange}s of one {@code ALTER TABLE} as engine-neutral {@link SchemaChange}s. */
final class LakestreamAlterTable {
    private LakestreamAlterTable() {}

    static List<SchemaChange> toSchemaChanges(TableChange... changes) {
        List<SchemaChange> result = new ArrayList<>(changes.length);
        for (TableChange change : changes) {
            result.add(toSchemaChange(change));
        }
        return result;
    }

    private static SchemaChange toSchemaChange(TableChange change) {
        return switch (change) {
            case TableChange.AddColumn add -> {
                String column = topLevel(add.fieldNames());
                if (!add.isNullable()) {
                    throw unsupported(
                            "column '%s' cannot be added as NOT NULL: rows written before have no value for it"
                                    .formatted(column));
                }
                if (add.defaultValue() != null) {
                    throw unsupported("column '%s' cannot be added with a default value".formatted(column));
                }
                yield new SchemaChange.AddColumn(
                        column,
                        LakestreamTypes.icebergType(column, add.dataType()),
                        Optional.ofNullable(add.comment()),
                        position(add.position()));
            }
            case TableChange.RenameColumn rename ->
                new SchemaChange.RenameColumn(topLevel(rename.fieldNames()), rename.newName());
            case TableChange.DeleteColumn delete -> new SchemaChange.DropColumn(topLevel(delete.fieldNames()));
            case TableChange.UpdateColumnType update -> {
                String column = topLevel(update.fieldNames());
                Type type = LakestreamTypes.icebergType(column, update.newDataType());
                if (!type.isPrimitiveType()) {
                    throw unsupported("column '%s' cannot change type to %s: only widening primitive types is supported"
                            .formatted(column, update.newDataType().sql()));
                }
                yield new SchemaChange.WidenColumn(column, type.asPrimitiveType());
            }
            case TableChange.UpdateColumnComment comment ->
                new SchemaChange.SetComment(topLevel(comment.fieldNames()), Optional.ofNullable(comment.newComment()));
            default ->
                throw unsupported(
                        "%s is not supported on Lakestream tables (supported: ADD COLUMN, DROP COLUMN, RENAME COLUMN, ALTER COLUMN ... TYPE to a wider type, ALTER COLUMN ... COMMENT, RENAME TO)"
                                .formatted(change.getClass().getSimpleName()));
        };
    }

    private static SchemaChange.Position position(TableChange.ColumnPosition position) {
        return switch (position) {
            case null -> new SchemaChange.Position.Last();
            case TableChange.First _ -> new SchemaChange.Position.First();
            case TableChange.After after -> new SchemaChange.Position.After(after.column());
            default -> throw unsupported("column position %s is not supported".formatted(position));
        };
    }

    private static String topLevel(String[] fieldNames) {
        if (fieldNames.length != 1) {
            throw unsupported(
                    "changing a nested field (%s) is not supported yet".formatted(String.join(".", fieldNames)));
        }
        return fieldNames[0];
    }

    private static LakestreamException unsupported(String problem) {
        return new LakestreamException(SCHEMA_CHANGE_UNSUPPORTED, "Cannot alter a Lakestream table: " + problem);
    }
}
