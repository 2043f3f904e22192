package io.lakestream.lake;

import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogIdentity;
import io.lakestream.table.KeyColumnsProperty;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.Partitioning;
import io.lakestream.table.SupportedTypes;
import io.lakestream.table.TableDefinition;
import io.lakestream.table.TableLayout;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.types.Types;

/**
 * Detects a table whose lake (or whose table properties) was changed outside Lakestream, e.g. by a
 * stock engine's {@code INSERT} or {@code ALTER TABLE}, before anything reads it as a union or writes
 * into it: union reads would return duplicates, resurrect deleted rows or misread log vectors, and
 * tiering would write files stock readers misread. One place for tiering, union-read planning and
 * every writer; the error names the change and the repair.
 *
 * <p>Two scopes: {@link #validateLog} is what reading and writing the log needs (bucket properties,
 * keys and column types still those the log was created with, see {@link LogIdentity});
 * {@link #validate} adds what merging the lake with the log needs (format version, partition spec,
 * and no snapshot after Lakestream's last commit that was not written by Lakestream).
 *
 * <p>Cheap: it reads only metadata already loaded (and the log's identity record, which a log handle
 * reads once), walks the lake's history only back to Lakestream's last commit (usually one step), and
 * remembers a metadata file that passed, so a table state is validated once per JVM.
 */
public final class LakeLayoutValidator {
    /** Metadata files (with the snapshot and scope they were checked for) that passed. */
    private static final Cache<String, Boolean> PASSED =
            CacheBuilder.newBuilder().maximumSize(10_000).build();

    private LakeLayoutValidator() {}

    /** Everything, at the lake's current snapshot: for writers and tiering. */
    public static void validate(LakestreamTable table) {
        Snapshot current = table.lake().currentSnapshot();
        validate(table, current == null ? OptionalLong.empty() : OptionalLong.of(current.snapshotId()));
    }

    /** Everything, with the history checked from the lake snapshot a union read pinned. */
    public static void validate(LakestreamTable table, OptionalLong lakeSnapshotId) {
        String key = "union@" + (lakeSnapshotId.isPresent() ? lakeSnapshotId.getAsLong() : "none");
        check(table, key, () -> {
            checkLog(table);
            checkLake(table, lakeSnapshotId);
        });
    }

    /** What reading or writing the log needs: for reads of the changelog alone. */
    public static void validateLog(LakestreamTable table) {
        check(table, "log", () -> checkLog(table));
    }

    private static void check(LakestreamTable table, String scope, Runnable checks) {
        Optional<String> metadata = metadataLocation(table.lake());
        boolean identityKnown = table.log().identity().isPresent();
        String key = metadata.map(location -> location + "#" + scope + "#" + identityKnown)
                .orElse(null);
        if (key != null && PASSED.getIfPresent(key) != null) {
            return;
        }
        checks.run();
        if (key != null) {
            PASSED.put(key, true);
        }
    }

    private static Optional<String> metadataLocation(Table lake) {
        if (lake instanceof HasTableOperations operations) {
            TableMetadata current = operations.operations().current();
            return Optional.ofNullable(current == null ? null : current.metadataFileLocation());
        }
        return Optional.empty();
    }

    private static void checkLog(LakestreamTable table) {
        String name = table.identifier().toString();
        TableDefinition definition = table.definition();
        Schema schema = table.lake().schema();
        for (Types.NestedField column : schema.columns()) {
            if (!SupportedTypes.isSupportedColumnType(column.type())) {
                throw mismatch(
                        name,
                        "column '%s' has type %s, which Lakestream tables do not support"
                                .formatted(column.name(), column.type()),
                        "re-create the table");
            }
        }
        Optional<LogIdentity> identity = table.log().identity();
        if (identity.isPresent()) {
            checkProperties(name, definition, identity.get());
        }
        checkKeyColumns(name, schema, definition);
        Optional<Schema> written = lakestreamSchema(table.lake())
                .or(() -> identity.map(LogIdentity::icebergSchema))
                .or(() -> lastTieredSchema(table.lake()));
        if (written.isPresent()) {
            checkColumnsKept(name, schema, written.get());
        }
    }

    /** The bucket count and keys the log was created with, against the table properties now. */
    private static void checkProperties(String name, TableDefinition definition, LogIdentity identity) {
        checkProperty(
                name,
                LakestreamProperties.BUCKET_NUM,
                Integer.toString(definition.bucketCount()),
                Integer.toString(identity.bucketCount()));
        checkProperty(
                name,
                LakestreamProperties.PRIMARY_KEY,
                KeyColumnsProperty.encode(definition.primaryKey()),
                KeyColumnsProperty.encode(identity.primaryKey()));
        checkProperty(
                name,
                LakestreamProperties.BUCKET_KEY,
                KeyColumnsProperty.encode(definition.bucketKey()),
                KeyColumnsProperty.encode(identity.bucketKey()));
    }

    private static void checkProperty(String name, String property, String now, String created) {
        if (!now.equals(created)) {
            throw mismatch(
                    name,
                    "the table property %s is '%s', but the table was created with '%s' and its log is written that way"
                            .formatted(property, now, created),
                    "set it back, e.g. in Spark with Iceberg's catalog: ALTER TABLE <table> SET TBLPROPERTIES ('%s' = '%s')"
                            .formatted(property, created));
        }
    }

    private static void checkKeyColumns(String name, Schema schema, TableDefinition definition) {
        Set<Integer> keyIds = new HashSet<>();
        for (String key : definition.primaryKey()) {
            Types.NestedField field = schema.findField(key);
            if (field == null || field.isOptional()) {
                throw mismatch(
                        name,
                        "primary key column '%s' is %s".formatted(key, field == null ? "missing" : "nullable"),
                        "re-create the table");
            }
            keyIds.add(field.fieldId());
        }
        if (definition.hasPrimaryKey() && !schema.identifierFieldIds().equals(keyIds)) {
            throw mismatch(
                    name,
                    "the Iceberg identifier fields %s are not the primary key %s"
                            .formatted(schema.identifierFieldNames(), definition.primaryKey()),
                    "set them back, e.g. in Spark with Iceberg's SQL extensions: ALTER TABLE <table> SET IDENTIFIER FIELDS %s"
                            .formatted(String.join(", ", definition.primaryKey())));
        }
    }

    /** Every column the log is written with must still exist (by field id) with the same type. */
    private static void checkColumnsKept(String name, Schema schema, Schema written) {
        for (Types.NestedField column : written.columns()) {
            if (column.name().equals(LakestreamProperties.BUCKET_COLUMN)) {
                continue;
            }
            Types.NestedField now = schema.findField(column.fieldId());
            if (now == null) {
                throw mismatch(
                        name,
                        "column '%s' (field id %s) was dropped from the lake, but the log holds values for it"
                                .formatted(column.name(), column.fieldId()),
                        "re-create the table (a column added back gets a new field id)");
            }
            if (!now.type().equals(column.type())) {
                throw mismatch(
                        name,
                        "column '%s' changed type from %s to %s outside Lakestream; the log holds %s values"
                                .formatted(column.name(), column.type(), now.type(), column.type()),
                        "re-create the table (Iceberg cannot change a type back)");
            }
        }
    }

    /**
     * The schema Lakestream's last {@code ALTER TABLE} committed (named by {@link LakestreamProperties#SCHEMA_ID} in
     * the same metadata commit), if the table was ever altered through Lakestream: the columns the log may be
     * written with from then on. A change made since outside Lakestream is checked against it as against the
     * identity's schema: segments of old schemas hold only columns Lakestream itself dropped, renamed or widened.
     */
    private static Optional<Schema> lakestreamSchema(Table lake) {
        String id = lake.properties().get(LakestreamProperties.SCHEMA_ID);
        if (id == null) {
            return Optional.empty();
        }
        try {
            return Optional.ofNullable(lake.schemas().get(Integer.parseInt(id)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** For a log without an identity record: the schema Lakestream's last commit wrote the lake with. */
    private static Optional<Schema> lastTieredSchema(Table lake) {
        for (Snapshot snapshot = lake.currentSnapshot();
                snapshot != null;
                snapshot = snapshot.parentId() == null ? null : lake.snapshot(snapshot.parentId())) {
            if (isLakestreamSnapshot(snapshot)) {
                Integer schemaId = snapshot.schemaId();
                return Optional.ofNullable(
                        schemaId == null ? null : lake.schemas().get(schemaId));
            }
        }
        return Optional.empty();
    }

    private static void checkLake(LakestreamTable table, OptionalLong snapshotId) {
        String name = table.identifier().toString();
        Table lake = table.lake();
        if (lake instanceof HasTableOperations operations
                && operations.operations().current().formatVersion() < 2) {
            throw mismatch(
                    name,
                    "the lake has Iceberg format version 1; Lakestream needs format version 2 (row deltas)",
                    "re-create the table");
        }
        PartitionSpec expected = expectedSpec(lake.schema(), table.definition());
        // Lakestream creates the lake with its spec as spec 0 and never evolves it: a current spec with other fields
        // (or the same fields in another order: the bucket is the last field) is foreign
        if (!sameFields(lake.spec(), expected)) {
            throw mismatch(
                    name,
                    "the partition spec %s is not the layout %s the table was created with (its partitioning, then the bucket field the log is written for)"
                            .formatted(lake.spec(), expected),
                    repair(lake.schema(), expected));
        }
        if (snapshotId.isPresent()) {
            checkNoForeignSnapshots(name, lake, snapshotId.getAsLong());
        }
    }

    /**
     * Every snapshot after Lakestream's last commit (tiering or compaction: they carry the offset map)
     * must be a {@code replace}, which by Iceberg's definition rewrites files without changing data
     * (a stock engine's compaction). Anything else changed rows behind the log's back.
     */
    private static void checkNoForeignSnapshots(String name, Table lake, long snapshotId) {
        Snapshot foreign = null;
        for (Snapshot snapshot = lake.snapshot(snapshotId);
                snapshot != null;
                snapshot = snapshot.parentId() == null ? null : lake.snapshot(snapshot.parentId())) {
            if (isLakestreamSnapshot(snapshot)) {
                if (foreign != null) {
                    throw foreignSnapshot(name, foreign, OptionalLong.of(snapshot.snapshotId()));
                }
                return;
            }
            if (!DataOperations.REPLACE.equals(snapshot.operation())) {
                // the oldest foreign change after Lakestream's last commit is the one to roll back before
                foreign = snapshot;
            }
        }
        if (foreign != null) {
            throw foreignSnapshot(name, foreign, OptionalLong.empty());
        }
    }

    /** Tiering and compaction commits carry the offset map in their summary; no engine writes that key. */
    public static boolean isLakestreamSnapshot(Snapshot snapshot) {
        Map<String, String> summary = snapshot.summary();
        return summary != null && summary.containsKey(LakestreamProperties.SUMMARY_LOG_OFFSETS);
    }

    private static LakestreamException foreignSnapshot(String name, Snapshot foreign, OptionalLong lastLakestream) {
        String writer = describeWriter(foreign.summary());
        String problem =
                "lake snapshot %s (operation '%s', committed at %s%s) was not written by Lakestream: it changed rows behind the log, so union reads would show them twice or bring deleted rows back"
                        .formatted(
                                foreign.snapshotId(),
                                foreign.operation(),
                                Instant.ofEpochMilli(foreign.timestampMillis()),
                                writer);
        String repair = lastLakestream.isPresent()
                ? ("roll the lake back to Lakestream's last snapshot %s with the stock Iceberg connector "
                                + "(Trino: ALTER TABLE <iceberg catalog>.<schema>.<table> EXECUTE rollback_to_snapshot(%s); "
                                + "Spark: CALL <iceberg catalog>.system.rollback_to_snapshot('<schema>.<table>', %s)), "
                                + "then write the change through Lakestream; or re-create the table")
                        .formatted(lastLakestream.getAsLong(), lastLakestream.getAsLong(), lastLakestream.getAsLong())
                : "the lake has no Lakestream snapshot to roll back to: re-create the table and write the rows through Lakestream";
        return mismatch(name, problem, repair);
    }

    private static String describeWriter(Map<String, String> summary) {
        if (summary == null) {
            return "";
        }
        for (String key : List.of("trino_query_id", "spark.app.id", "engine-name")) {
            String value = summary.get(key);
            if (value != null) {
                return ", %s %s".formatted(key, value);
            }
        }
        return "";
    }

    /** The user's partition fields (by source id, as the table was created), then the bucket field. */
    private static PartitionSpec expectedSpec(Schema schema, TableDefinition definition) {
        PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
        Partitioning.addFields(builder, schema, Partitioning.describe(definition.partitionFields(), schema), List.of());
        TableLayout.addBucketField(builder, definition.bucketKey(), definition.bucketCount());
        return builder.build();
    }

    /**
     * How to restore the spec. A single field is set back with the stock connector's ALTER; several cannot be: an
     * ALTER of the partitioning appends the fields it adds and Iceberg keeps the spec it made, so the order of spec 0
     * (the user's fields, then the bucket field) does not come back.
     */
    private static String repair(Schema schema, PartitionSpec spec) {
        List<String> terms = spec.fields().stream()
                .map(field -> "'" + Partitioning.describe(field, schema) + "'")
                .toList();
        return terms.size() < 2
                ? ("set the partitioning back (Trino's Iceberg connector: ALTER TABLE <table> SET PROPERTIES partitioning = ARRAY[%s]) and roll back any snapshot written with it")
                        .formatted(String.join(", ", terms))
                : ("make spec %s, with the fields [%s] in this order, the table's default partition spec again with Iceberg's API (an ALTER of the partitioning in Trino or Spark appends fields and cannot restore the order) and roll back any snapshot written since, or re-create the table")
                        .formatted(spec.specId(), String.join(", ", terms));
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

    private static LakestreamException mismatch(String table, String problem, String repair) {
        return new LakestreamException(
                LAKE_LAYOUT_MISMATCH,
                "The lake of table %s was changed outside Lakestream: %s. Lakestream reads and writes of it stop until it is repaired: %s. The lake alone can still be read (read mode 'lake', or the stock Iceberg connector)"
                        .formatted(table, problem, repair));
    }
}
