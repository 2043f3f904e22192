package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SupportedTypes;
import io.lakestream.table.TableDefinition;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * Detects a lake table changed outside Lakestream (e.g. by an engine's {@code ALTER TABLE}) so that
 * tiering would write files stock readers misread or that silently drop logged values: a different
 * partition spec, different identifier fields, an unsupported column type, or a column dropped or
 * retyped since the last tiering commit.
 */
final class LakeLayoutValidator {
    private LakeLayoutValidator() {}

    static void validate(LakestreamTable table) {
        Table lake = table.lake();
        TableDefinition definition = table.definition();
        String name = table.identifier().toString();

        if (lake instanceof HasTableOperations operations
                && operations.operations().current().formatVersion() < 2) {
            throw mismatch(
                    name, "the lake has Iceberg format version 1; Lakestream needs format version 2 (row deltas)");
        }

        Schema schema = lake.schema();
        for (Types.NestedField column : schema.columns()) {
            if (!SupportedTypes.isSupportedColumnType(column.type())) {
                throw mismatch(
                        name,
                        "column '%s' has type %s, which Lakestream tables do not support"
                                .formatted(column.name(), column.type()));
            }
        }

        Set<Integer> keyIds = new HashSet<>();
        for (String key : definition.primaryKey()) {
            Types.NestedField field = schema.findField(key);
            if (field == null || field.isOptional()) {
                throw mismatch(
                        name, "primary key column '%s' is %s".formatted(key, field == null ? "missing" : "nullable"));
            }
            keyIds.add(field.fieldId());
        }
        if (definition.hasPrimaryKey() && !schema.identifierFieldIds().equals(keyIds)) {
            throw mismatch(
                    name,
                    "the Iceberg identifier fields %s are not the primary key %s"
                            .formatted(schema.identifierFieldNames(), definition.primaryKey()));
        }

        PartitionSpec expected = expectedSpec(schema, definition);
        if (!sameFields(lake.spec(), expected)) {
            throw mismatch(
                    name,
                    "the partition spec %s is not the bucket layout %s the log is written for"
                            .formatted(lake.spec(), expected));
        }

        checkColumnsKept(name, lake);
    }

    /** Columns of the schema the last tiering commit wrote with must still exist with the same type. */
    private static void checkColumnsKept(String name, Table lake) {
        for (Snapshot snapshot = lake.currentSnapshot();
                snapshot != null;
                snapshot = snapshot.parentId() == null ? null : lake.snapshot(snapshot.parentId())) {
            if (snapshot.summary() != null
                    && snapshot.summary().containsKey(LakestreamProperties.SUMMARY_LOG_OFFSETS)) {
                Integer schemaId = snapshot.schemaId();
                Schema written = schemaId == null ? null : lake.schemas().get(schemaId);
                if (written == null) {
                    return;
                }
                for (Types.NestedField column : written.columns()) {
                    Types.NestedField now = lake.schema().findField(column.fieldId());
                    if (now == null) {
                        throw mismatch(
                                name,
                                "column '%s' (field id %s) was dropped from the lake, but the log may still hold values for it; add it back or re-create the table"
                                        .formatted(column.name(), column.fieldId()));
                    }
                    if (!now.type().equals(column.type())) {
                        throw mismatch(
                                name,
                                "column '%s' changed type from %s to %s outside Lakestream; the log holds %s values"
                                        .formatted(column.name(), column.type(), now.type(), column.type()));
                    }
                }
                return;
            }
        }
    }

    private static PartitionSpec expectedSpec(Schema schema, TableDefinition definition) {
        List<String> bucketKey = definition.bucketKey();
        if (bucketKey.isEmpty()) {
            return PartitionSpec.unpartitioned();
        }
        if (bucketKey.size() == 1) {
            return PartitionSpec.builderFor(schema)
                    .bucket(bucketKey.getFirst(), definition.bucketCount())
                    .build();
        }
        return PartitionSpec.builderFor(schema)
                .identity(LakestreamProperties.BUCKET_COLUMN)
                .build();
    }

    private static boolean sameFields(PartitionSpec actual, PartitionSpec expected) {
        if (actual.fields().size() != expected.fields().size()) {
            return false;
        }
        for (int i = 0; i < actual.fields().size(); i++) {
            PartitionField left = actual.fields().get(i);
            PartitionField right = expected.fields().get(i);
            if (left.sourceId() != right.sourceId()
                    || !left.transform().toString().equals(right.transform().toString())) {
                return false;
            }
        }
        return true;
    }

    private static LakestreamException mismatch(String table, String problem) {
        return new LakestreamException(
                LAKE_LAYOUT_MISMATCH,
                "The lake of table %s was changed outside Lakestream: %s. Tiering of this table stopped; undo the change to the Iceberg table (or re-create the Lakestream table)"
                        .formatted(table, problem));
    }
}
