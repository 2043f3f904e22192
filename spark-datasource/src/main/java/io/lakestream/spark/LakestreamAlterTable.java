package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.SCHEMA_CHANGE_UNSUPPORTED;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LogCompression;
import io.lakestream.table.PartitionExpiration;
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
                String column = String.join(".", add.fieldNames());
                if (!add.isNullable()) {
                    throw unsupported(
                            "column '%s' cannot be added as NOT NULL: rows written before have no value for it"
                                    .formatted(column));
                }
                if (add.defaultValue() != null) {
                    throw unsupported("column '%s' cannot be added with a default value".formatted(column));
                }
                yield new SchemaChange.AddColumn(
                        List.of(add.fieldNames()),
                        LakestreamTypes.icebergType(column, add.dataType()),
                        Optional.ofNullable(add.comment()),
                        position(add.position()),
                        false);
            }
            case TableChange.RenameColumn rename ->
                new SchemaChange.RenameColumn(List.of(rename.fieldNames()), rename.newName());
            case TableChange.DeleteColumn delete -> new SchemaChange.DropColumn(List.of(delete.fieldNames()));
            case TableChange.UpdateColumnType update -> {
                String column = String.join(".", update.fieldNames());
                Type type = LakestreamTypes.icebergType(column, update.newDataType());
                if (!type.isPrimitiveType()) {
                    throw unsupported(
                            "column '%s' cannot change type to %s: only widening is supported (INT to BIGINT, FLOAT to DOUBLE, DECIMAL precision up), not a change to or from a struct, array or map type"
                                    .formatted(column, update.newDataType().sql()));
                }
                yield new SchemaChange.WidenColumn(List.of(update.fieldNames()), type.asPrimitiveType());
            }
            case TableChange.UpdateColumnComment comment ->
                // an empty comment removes it, as for the table's comment (Iceberg keeps no empty doc either)
                new SchemaChange.SetComment(
                        List.of(comment.fieldNames()),
                        Optional.ofNullable(comment.newComment()).filter(text -> !text.isEmpty()));
            case TableChange.UpdateColumnNullability nullability ->
                new SchemaChange.SetNullability(List.of(nullability.fieldNames()), nullability.nullable());
            // COMMENT ON TABLE, and ALTER TABLE ... SET / UNSET TBLPROPERTIES ('comment')
            case TableChange.SetProperty property
            when property.property().equals(LakestreamProperties.COMMENT) ->
                // Spark hands COMMENT ON TABLE ... IS NULL over as an empty comment: both remove it
                new SchemaChange.SetTableComment(
                        Optional.ofNullable(property.value()).filter(comment -> !comment.isEmpty()));
            case TableChange.RemoveProperty property
            when property.property().equals(LakestreamProperties.COMMENT) ->
                new SchemaChange.SetTableComment(Optional.empty());
            // ALTER TABLE ... SET / UNSET TBLPROPERTIES ('lakestream.partition.expiration'), validated before the
            // commit
            case TableChange.SetProperty property
            when LakestreamTableSpecs.isPartitionExpiration(property.property()) ->
                new SchemaChange.SetPartitionExpiration(Optional.ofNullable(property.value()));
            case TableChange.RemoveProperty property
            when LakestreamTableSpecs.isPartitionExpiration(property.property()) ->
                new SchemaChange.SetPartitionExpiration(Optional.empty());
            // ALTER TABLE ... SET / UNSET TBLPROPERTIES ('lakestream.log.compression'): UNSET chooses the default of
            // new tables
            case TableChange.SetProperty property
            when LakestreamTableSpecs.isLogCompression(property.property()) ->
                new SchemaChange.SetLogCompression(Optional.ofNullable(property.value()));
            case TableChange.RemoveProperty property
            when LakestreamTableSpecs.isLogCompression(property.property()) ->
                new SchemaChange.SetLogCompression(Optional.empty());
            case TableChange.SetProperty property ->
                throw unsupported("table property '%s' cannot be set (supported: 'comment', '%s', '%s')"
                        .formatted(property.property(), PartitionExpiration.PROPERTY, LogCompression.PROPERTY));
            case TableChange.RemoveProperty property ->
                throw unsupported("table property '%s' cannot be unset (supported: 'comment', '%s', '%s')"
                        .formatted(property.property(), PartitionExpiration.PROPERTY, LogCompression.PROPERTY));
            default ->
                throw unsupported(
                        "%s is not supported on Lakestream tables (supported: ADD COLUMN, DROP COLUMN, RENAME COLUMN, ALTER COLUMN ... TYPE to a wider type, ALTER COLUMN ... COMMENT, ALTER COLUMN ... DROP NOT NULL, COMMENT ON TABLE, SET / UNSET TBLPROPERTIES of 'comment', '%s' and '%s', RENAME TO; also on fields of struct columns)"
                                .formatted(
                                        change.getClass().getSimpleName(),
                                        PartitionExpiration.PROPERTY,
                                        LogCompression.PROPERTY));
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

    private static LakestreamException unsupported(String problem) {
        return new LakestreamException(SCHEMA_CHANGE_UNSUPPORTED, "Cannot alter a Lakestream table: " + problem);
    }
}
