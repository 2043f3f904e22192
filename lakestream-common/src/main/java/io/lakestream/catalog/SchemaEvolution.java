package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;
import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static io.lakestream.common.LakestreamError.SCHEMA_CHANGE_NOT_ALLOWED;
import static io.lakestream.common.LakestreamError.SCHEMA_CHANGE_UNSUPPORTED;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.SupportedTypes;
import io.lakestream.table.TableDefinition;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Applies an {@code ALTER TABLE}'s column changes to a Lakestream table. The table's schema lives in one place,
 * the lake's Iceberg schema; the log needs no commit, because every segment carries the field ids it was written
 * with and readers map old segments to the current schema by field id ({@code LogRangeReader}). So an ALTER is one
 * Iceberg metadata commit: the new schema and, in the same metadata file, {@link LakestreamProperties#SCHEMA_ID}
 * naming it, which tells the layout check that this schema was made by Lakestream (docs/format.md).
 *
 * <p>The commit is made with one attempt per loop round on the metadata the checks ran on (no Iceberg retry that
 * would re-apply the schema change on a newer base while keeping the old id in the property); a concurrent change
 * re-runs the checks on the new metadata.
 */
final class SchemaEvolution {
    private static final int MAX_ATTEMPTS = 5;

    private SchemaEvolution() {}

    /** Checks every change first, then commits them together or not at all. */
    static void apply(LakestreamTable table, List<SchemaChange> changes) {
        if (!(table.lake() instanceof HasTableOperations live)) {
            throw new IllegalArgumentException("not a catalog table: " + table);
        }
        TableOperations operations = live.operations();
        for (int attempt = 1; ; attempt++) {
            TableMetadata base = operations.refresh();
            // everything below is decided on exactly the metadata the commit replaces
            Table pinned = new BaseTable(
                    new StaticTableOperations(base, table.lake().io()),
                    table.lake().name());
            LakestreamTable current = new LakestreamTable(
                    table.identifier(),
                    pinned,
                    TableDefinition.fromIceberg(table.identifier().toString(), pinned),
                    table.log());
            // a lake changed behind Lakestream's back is repaired first, not built upon
            LakeLayoutValidator.validate(current);
            TableMetadata updated = updatedMetadata(current, base, changes);
            try {
                operations.commit(base, updated);
                return;
            } catch (CommitFailedException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw new LakestreamException(
                            CATALOG_ERROR,
                            "ALTER TABLE %s lost the race for the table's metadata %s times to other commits; run it again"
                                    .formatted(table, attempt),
                            e);
                }
            }
        }
    }

    private static TableMetadata updatedMetadata(
            LakestreamTable table, TableMetadata base, List<SchemaChange> changes) {
        String name = table.identifier().toString();
        TableDefinition definition = table.definition();
        Set<String> keyColumns = new HashSet<>(definition.primaryKey());
        keyColumns.addAll(definition.bucketKey());
        UpdateSchema update = table.lake().updateSchema();
        for (SchemaChange change : changes) {
            Types.NestedField field = definition.schema().findField(change.column());
            switch (change) {
                case SchemaChange.AddColumn add -> {
                    requireUserName(name, add.column());
                    if (field != null) {
                        throw unsupported(name, "column '%s' already exists".formatted(add.column()));
                    }
                    if (!SupportedTypes.isSupportedColumnType(add.type())) {
                        throw new LakestreamException(
                                INVALID_TABLE_DEFINITION,
                                "Cannot add column '%s' to table %s: type %s is not supported in Lakestream tables"
                                        .formatted(add.column(), name, add.type()));
                    }
                    // no parent: a top-level column, even when its name has a dot
                    update.addColumn(
                            null, add.column(), add.type(), add.comment().orElse(null));
                    switch (add.position()) {
                        case SchemaChange.Position.Last _ -> {}
                        case SchemaChange.Position.First _ -> update.moveFirst(add.column());
                        case SchemaChange.Position.After after -> {
                            requireColumn(name, definition, after.column());
                            update.moveAfter(add.column(), after.column());
                        }
                    }
                }
                case SchemaChange.DropColumn drop -> {
                    requireNotKey(name, requireColumn(name, definition, drop.column()), keyColumns, "dropped");
                    update.deleteColumn(drop.column());
                }
                case SchemaChange.RenameColumn rename -> {
                    requireNotKey(name, requireColumn(name, definition, rename.column()), keyColumns, "renamed");
                    requireUserName(name, rename.newName());
                    if (definition.schema().findField(rename.newName()) != null) {
                        throw unsupported(name, "column '%s' already exists".formatted(rename.newName()));
                    }
                    update.renameColumn(rename.column(), rename.newName());
                }
                case SchemaChange.WidenColumn widen -> {
                    Types.NestedField column = requireColumn(name, definition, widen.column());
                    requireNotKey(name, column, keyColumns, "retyped");
                    if (column.type().equals(widen.type())) {
                        continue;
                    }
                    if (!column.type().isPrimitiveType() || !TypeUtil.isPromotionAllowed(column.type(), widen.type())) {
                        throw unsupported(
                                name,
                                ("column '%s' cannot change type from %s to %s: only widening is supported (int to bigint,"
                                                + " float to double, decimal precision up with the same scale), because rows"
                                                + " already written must keep their values")
                                        .formatted(widen.column(), column.type(), widen.type()));
                    }
                    update.updateColumn(widen.column(), widen.type());
                }
                case SchemaChange.SetComment comment -> {
                    requireColumn(name, definition, comment.column());
                    update.updateColumnDoc(comment.column(), comment.comment().orElse(null));
                }
            }
        }
        Schema schema;
        try {
            schema = update.apply();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw unsupported(name, e.getMessage());
        }
        int lastColumnId = Math.max(
                base.lastColumnId(),
                TypeUtil.indexById(schema.asStruct()).keySet().stream()
                        .mapToInt(Integer::intValue)
                        .max()
                        .orElse(0));
        // built twice: the first build tells the id Iceberg gives the schema (a new one, or an equal old one's)
        TableMetadata probe = withSchema(base, schema, lastColumnId, -1);
        return withSchema(base, schema, lastColumnId, probe.currentSchemaId());
    }

    private static TableMetadata withSchema(TableMetadata base, Schema schema, int lastColumnId, int schemaId) {
        return TableMetadata.buildFrom(base)
                .setCurrentSchema(schema, lastColumnId)
                .setProperties(Map.of(LakestreamProperties.SCHEMA_ID, Integer.toString(schemaId)))
                .build();
    }

    private static Types.NestedField requireColumn(String table, TableDefinition definition, String column) {
        Types.NestedField field = definition.schema().findField(column);
        if (field == null) {
            throw unsupported(table, "column '%s' does not exist".formatted(column));
        }
        return field;
    }

    private static void requireNotKey(String table, Types.NestedField column, Set<String> keyColumns, String change) {
        if (keyColumns.contains(column.name())) {
            throw new LakestreamException(
                    SCHEMA_CHANGE_NOT_ALLOWED,
                    ("Column '%s' of table %s cannot be %s: it is a primary-key or bucket-key column, and every change in the"
                                    + " log and the lake is placed and merged by its values. Create a new table with the key you"
                                    + " want and copy the rows (INSERT INTO ... SELECT)")
                            .formatted(column.name(), table, change));
        }
    }

    private static void requireUserName(String table, String column) {
        if (column.startsWith("__")) {
            throw new LakestreamException(
                    INVALID_TABLE_DEFINITION,
                    "Column name '%s' of table %s is reserved: names starting with '__' are Lakestream's own"
                            .formatted(column, table));
        }
    }

    private static LakestreamException unsupported(String table, String problem) {
        return new LakestreamException(
                SCHEMA_CHANGE_UNSUPPORTED, "Cannot alter table %s: %s".formatted(table, problem));
    }
}
