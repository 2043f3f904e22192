package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;
import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static io.lakestream.common.LakestreamError.SCHEMA_CHANGE_NOT_ALLOWED;
import static io.lakestream.common.LakestreamError.SCHEMA_CHANGE_UNSUPPORTED;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.SchemaHistory;
import io.lakestream.table.SupportedTypes;
import io.lakestream.table.TableDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.types.Type;
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
            // read before the commit: every log commit up to it was written with an older schema (SchemaHistory)
            long newestLogVersion = table.log().newestSnapshot().version();
            TableMetadata updated;
            try {
                updated = updatedMetadata(current, base, changes, newestLogVersion);
            } catch (IllegalArgumentException | IllegalStateException | ValidationException e) {
                // UpdateSchema checks some arguments as each change is made: still a coded error, nothing committed
                throw AlterArguments.refusedByIceberg(table.identifier().toString(), e);
            }
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
            LakestreamTable table, TableMetadata base, List<SchemaChange> changes, long newestLogVersion) {
        String name = table.identifier().toString();
        TableDefinition definition = table.definition();
        Schema current = definition.schema();
        Set<String> keyColumns = new HashSet<>(definition.primaryKey());
        keyColumns.addAll(definition.bucketKey());
        UpdateSchema update = table.lake().updateSchema();
        Map<String, String> setProperties = new HashMap<>();
        Set<String> removedProperties = new HashSet<>();
        AlterArguments arguments = new AlterArguments(name, current);
        for (SchemaChange change : changes) {
            switch (change) {
                case SchemaChange.AddColumn add -> {
                    String newName = add.path().getLast();
                    List<String> parentPath = add.path().subList(0, add.path().size() - 1);
                    Types.NestedField parent = parentPath.isEmpty() ? null : requireColumn(name, current, parentPath);
                    Types.StructType siblings = siblings(name, current, parent, parentPath);
                    if (parentPath.isEmpty()) {
                        requireUserName(name, newName);
                    }
                    arguments.requireChangeable(add.path(), "added", false);
                    if (!arguments.requireNewName(parent, siblings, parentPath, newName, null, add.ifNotExists())) {
                        continue;
                    }
                    if (!SupportedTypes.isSupportedColumnType(add.type())) {
                        throw new LakestreamException(
                                INVALID_TABLE_DEFINITION,
                                "Cannot add column '%s' to table %s: type %s is not supported in Lakestream tables (supported: %s)"
                                        .formatted(
                                                dotted(add.path()),
                                                name,
                                                add.type(),
                                                SupportedTypes.describeColumnTypes()));
                    }
                    // by the parent's id-resolved name: a top-level column has none, even when its name has a dot
                    String parentName = parent == null ? null : fullName(current, parent);
                    update.addColumn(
                            parentName, newName, add.type(), add.comment().orElse(null));
                    String added = parentName == null ? newName : parentName + "." + newName;
                    switch (add.position()) {
                        case SchemaChange.Position.Last _ -> {}
                        case SchemaChange.Position.First _ -> update.moveFirst(added);
                        case SchemaChange.Position.After after -> {
                            Types.NestedField sibling = siblings.field(after.column());
                            if (sibling == null) {
                                throw unsupported(
                                        name,
                                        "column '%s' does not exist"
                                                .formatted(dotted(concat(parentPath, after.column()))));
                            }
                            update.moveAfter(added, fullName(current, sibling));
                        }
                    }
                }
                case SchemaChange.DropColumn drop -> {
                    arguments.requireChangeable(drop.path(), "dropped", true);
                    Types.NestedField field = requireColumn(name, current, drop.path());
                    requireNotKey(name, field, drop.path(), keyColumns, "dropped");
                    requireNotPartitionSource(name, field, base);
                    if (drop.path().size() > 1) {
                        Types.NestedField parent = requireColumn(
                                name,
                                current,
                                drop.path().subList(0, drop.path().size() - 1));
                        if (parent.type().isStructType()
                                && parent.type().asStructType().fields().size() == 1) {
                            throw unsupported(
                                    name,
                                    "field '%s' is the only field of its row type, which cannot be empty; drop the column '%s' instead"
                                            .formatted(
                                                    dotted(drop.path()),
                                                    dotted(drop.path()
                                                            .subList(
                                                                    0,
                                                                    drop.path().size() - 1))));
                        }
                    }
                    update.deleteColumn(fullName(current, field));
                }
                case SchemaChange.RenameColumn rename -> {
                    arguments.requireChangeable(rename.path(), "renamed", true);
                    Types.NestedField field = requireColumn(name, current, rename.path());
                    requireNotKey(name, field, rename.path(), keyColumns, "renamed");
                    List<String> parentPath =
                            rename.path().subList(0, rename.path().size() - 1);
                    if (parentPath.isEmpty()) {
                        requireUserName(name, rename.newName());
                    }
                    Types.NestedField parent = parentPath.isEmpty() ? null : requireColumn(name, current, parentPath);
                    arguments.requireNewName(
                            parent,
                            siblings(name, current, parent, parentPath),
                            parentPath,
                            rename.newName(),
                            field,
                            false);
                    update.renameColumn(fullName(current, field), rename.newName());
                }
                case SchemaChange.WidenColumn widen -> {
                    arguments.requireChangeable(widen.path(), "retyped", false);
                    Types.NestedField column = requireColumn(name, current, widen.path());
                    requireNotKey(name, column, widen.path(), keyColumns, "retyped");
                    if (column.type().equals(widen.type())) {
                        continue;
                    }
                    if (!column.type().isPrimitiveType() || !TypeUtil.isPromotionAllowed(column.type(), widen.type())) {
                        throw unsupported(
                                name,
                                ("column '%s' cannot change type from %s to %s: only widening is supported (int to bigint,"
                                                + " float to double, decimal precision up with the same scale), because rows"
                                                + " already written must keep their values")
                                        .formatted(dotted(widen.path()), column.type(), widen.type()));
                    }
                    update.updateColumn(fullName(current, column), widen.type());
                }
                case SchemaChange.SetComment comment -> {
                    arguments.requireChangeable(comment.path(), "given a comment", false);
                    Types.NestedField column = requireColumn(name, current, comment.path());
                    update.updateColumnDoc(
                            fullName(current, column), comment.comment().orElse(null));
                }
                case SchemaChange.SetNullability nullability -> {
                    arguments.requireChangeable(nullability.path(), "made nullable", false);
                    Types.NestedField column = requireColumn(name, current, nullability.path());
                    if (nullability.nullable()) {
                        requireNotKey(name, column, nullability.path(), keyColumns, "made nullable");
                        update.makeColumnOptional(fullName(current, column));
                    } else if (column.isOptional()) {
                        throw unsupported(
                                name,
                                ("column '%s' cannot be made NOT NULL: rows already written to the log or the lake may hold"
                                                + " NULL in it, and the lake's readers would then fail on them. Create a new table"
                                                + " with the column NOT NULL and copy the rows (INSERT INTO ... SELECT ... WHERE %s"
                                                + " IS NOT NULL)")
                                        .formatted(dotted(nullability.path()), dotted(nullability.path())));
                    }
                }
                case SchemaChange.SetTableComment comment -> {
                    if (comment.comment().isPresent()) {
                        setProperties.put(
                                LakestreamProperties.COMMENT, comment.comment().get());
                        removedProperties.remove(LakestreamProperties.COMMENT);
                    } else {
                        setProperties.remove(LakestreamProperties.COMMENT);
                        removedProperties.add(LakestreamProperties.COMMENT);
                    }
                }
                case SchemaChange.SetPartitionExpiration expiration -> {
                    if (expiration.value().isPresent()) {
                        // refused before the commit, so the tiering service never meets a value it cannot apply
                        PartitionExpiration.of(
                                name,
                                definition,
                                Map.of(
                                        PartitionExpiration.PROPERTY,
                                        expiration.value().get()));
                        setProperties.put(
                                PartitionExpiration.PROPERTY, expiration.value().get());
                        removedProperties.remove(PartitionExpiration.PROPERTY);
                    } else {
                        setProperties.remove(PartitionExpiration.PROPERTY);
                        removedProperties.add(PartitionExpiration.PROPERTY);
                    }
                }
                case SchemaChange.SetLogCompression compression -> {
                    // refused before the commit, so no writer meets a value it cannot apply
                    LogCompression value = compression
                            .value()
                            .map(text -> LogCompression.parse(name, text))
                            .orElse(LogCompression.DEFAULT);
                    setProperties.put(LogCompression.PROPERTY, value.value());
                    removedProperties.remove(LogCompression.PROPERTY);
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
        TableMetadata probe = withSchema(base, schema, lastColumnId, -1, setProperties, removedProperties);
        if (probe.currentSchemaId() != base.currentSchemaId()) {
            // time travel finds the schema of a log version here, committed with the schema it names
            setProperties.put(
                    SchemaHistory.PROPERTY,
                    SchemaHistory.appended(base.properties(), newestLogVersion, probe.currentSchemaId()));
        }
        return withSchema(base, schema, lastColumnId, probe.currentSchemaId(), setProperties, removedProperties);
    }

    /** The fields next to which a column or field under {@code parent} goes (the table's columns without one). */
    private static Types.StructType siblings(
            String table, Schema schema, Types.NestedField parent, List<String> parentPath) {
        if (parent == null) {
            return schema.asStruct();
        }
        if (!parent.type().isStructType()) {
            throw unsupported(
                    table,
                    "'%s' is of type %s, not a row type: fields can only be added to or named in row types"
                            .formatted(dotted(parentPath), parent.type()));
        }
        return parent.type().asStructType();
    }

    private static TableMetadata withSchema(
            TableMetadata base,
            Schema schema,
            int lastColumnId,
            int schemaId,
            Map<String, String> setProperties,
            Set<String> removedProperties) {
        Map<String, String> properties = new HashMap<>(setProperties);
        properties.put(LakestreamProperties.SCHEMA_ID, Integer.toString(schemaId));
        TableMetadata.Builder builder = TableMetadata.buildFrom(base)
                .setCurrentSchema(schema, lastColumnId)
                .setProperties(properties);
        if (!removedProperties.isEmpty()) {
            builder.removeProperties(removedProperties);
        }
        return builder.build();
    }

    /**
     * The column or nested field at {@code path}: a struct's field by name, a list's {@code element}, a map's {@code
     * key} or {@code value}. Names match exactly, or ignoring case when that names one field (Trino folds names to
     * lower case, a Spark or stock-created struct may have upper case field names).
     */
    private static Types.NestedField requireColumn(String table, Schema schema, List<String> path) {
        Types.NestedField field = null;
        Type type = schema.asStruct();
        for (int i = 0; i < path.size(); i++) {
            String name = path.get(i);
            field = switch (type) {
                case Types.StructType struct -> fieldOf(struct, name);
                case Types.ListType list ->
                    name.equals("element") ? list.fields().getFirst() : null;
                case Types.MapType map ->
                    name.equals("key")
                            ? map.fields().get(0)
                            : name.equals("value") ? map.fields().get(1) : null;
                default -> null;
            };
            if (field == null) {
                throw unsupported(table, "column '%s' does not exist".formatted(dotted(path.subList(0, i + 1))));
            }
            type = field.type();
        }
        return field;
    }

    private static Types.NestedField fieldOf(Types.StructType struct, String name) {
        Types.NestedField exact = struct.field(name);
        if (exact != null) {
            return exact;
        }
        List<Types.NestedField> matches = struct.fields().stream()
                .filter(field -> field.name().equalsIgnoreCase(name))
                .toList();
        return matches.size() == 1 ? matches.getFirst() : null;
    }

    /** The field's name as Iceberg's {@link UpdateSchema} resolves it (dotted from the top, by id). */
    private static String fullName(Schema schema, Types.NestedField field) {
        return schema.findColumnName(field.fieldId());
    }

    private static String dotted(List<String> path) {
        return String.join(".", path);
    }

    private static List<String> concat(List<String> path, String name) {
        List<String> result = new ArrayList<>(path);
        result.add(name);
        return result;
    }

    private static void requireNotKey(
            String table, Types.NestedField column, List<String> path, Set<String> keyColumns, String change) {
        // keys are top-level primitive columns: a nested field is never one
        if (path.size() == 1 && keyColumns.contains(column.name())) {
            throw new LakestreamException(
                    SCHEMA_CHANGE_NOT_ALLOWED,
                    ("Column '%s' of table %s cannot be %s: it is a primary-key or bucket-key column, and every change in the"
                                    + " log and the lake is placed and merged by its values. Create a new table with the key you"
                                    + " want and copy the rows (INSERT INTO ... SELECT)")
                            .formatted(column.name(), table, change));
        }
    }

    /**
     * A partition source column (of any partition spec the table has had: every spec must still resolve its source
     * in the new schema) cannot be dropped: lake files and log partitions are placed by its values. A rename or a
     * widening keeps the field id the specs name, so those stay allowed.
     */
    private static void requireNotPartitionSource(String table, Types.NestedField column, TableMetadata base) {
        for (PartitionSpec spec : base.specs()) {
            for (PartitionField partition : spec.fields()) {
                if (partition.sourceId() == column.fieldId()) {
                    throw new LakestreamException(
                            SCHEMA_CHANGE_NOT_ALLOWED,
                            ("Column '%s' of table %s cannot be dropped: it is the source of the partition field '%s' (%s),"
                                            + " and every lake file and log partition is placed by its values. Create a new"
                                            + " table with the partitioning you want and copy the rows (INSERT INTO ... SELECT)")
                                    .formatted(column.name(), table, partition.name(), partition.transform()));
                }
            }
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
