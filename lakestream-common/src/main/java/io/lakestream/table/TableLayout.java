package io.lakestream.table;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static io.lakestream.common.LakestreamError.PARTITIONING_NOT_ALLOWED;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;

/**
 * Validates a {@link TableSpec} and derives the Iceberg table that stores it: schema with
 * identifier fields, partition spec aligned with the bucket function, and table properties.
 * Validation happens completely before anything is created.
 *
 * @param definition the validated Lakestream definition
 * @param icebergSchema the lake schema (user columns, plus {@code __bucket} for a multi-column bucket key)
 * @param partitionSpec the user's partition fields, then {@code bucket(N, key)}, {@code identity(__bucket)} or nothing
 * @param properties Iceberg table properties to create the table with
 */
public record TableLayout(
        TableDefinition definition, Schema icebergSchema, PartitionSpec partitionSpec, Map<String, String> properties) {
    public TableLayout {
        requireNonNull(definition, "definition is null");
        requireNonNull(icebergSchema, "icebergSchema is null");
        requireNonNull(partitionSpec, "partitionSpec is null");
        properties = ImmutableMap.copyOf(requireNonNull(properties, "properties is null"));
    }

    public static TableLayout of(TableSpec spec) {
        Schema schema = spec.schema();
        if (spec.bucketCount() < 1) {
            throw invalid("bucket count must be at least 1, but was %s".formatted(spec.bucketCount()));
        }
        validateColumns(schema);
        validateKeyColumns(schema, spec.primaryKey(), "primary key");
        List<String> bucketKey = spec.bucketKey().isEmpty() ? spec.primaryKey() : spec.bucketKey();
        validateKeyColumns(schema, bucketKey, "bucket key");
        if (!spec.primaryKey().isEmpty() && !spec.primaryKey().containsAll(bucketKey)) {
            throw invalid(
                    ("bucket key %s must be a subset of the primary key %s: all versions of a key must land in one bucket")
                            .formatted(bucketKey, spec.primaryKey()));
        }
        for (String key : spec.properties().keySet()) {
            if (key.startsWith("lakestream.")
                    && !key.equals(PartitionExpiration.PROPERTY)
                    && !key.equals(LogCompression.PROPERTY)) {
                throw invalid(
                        "table property '%s' is reserved: use the table spec (primary key, bucket key, bucket count, log path) instead"
                                .formatted(key));
            }
        }

        Schema icebergSchema = lakeSchema(schema, spec.primaryKey(), bucketKey.size() > 1);
        PartitionSpec partitionSpec =
                partitionSpec(icebergSchema, spec.partitioning(), spec.primaryKey(), bucketKey, spec.bucketCount());
        TableDefinition definition = new TableDefinition(
                schema,
                spec.primaryKey(),
                bucketKey,
                spec.bucketCount(),
                TableDefinition.userPartitionFields(partitionSpec, !bucketKey.isEmpty()));
        // refused at CREATE TABLE, so the tiering service never meets a value it cannot apply
        PartitionExpiration.of("to create", definition, spec.properties());
        LogCompression compression = Optional.ofNullable(spec.properties().get(LogCompression.PROPERTY))
                .map(value -> LogCompression.parse("to create", value))
                .orElse(LogCompression.DEFAULT);

        ImmutableMap.Builder<String, String> properties = ImmutableMap.builder();
        properties.putAll(spec.properties());
        // stored always: a table without the property is one created before it existed, and writes uncompressed
        properties.put(LogCompression.PROPERTY, compression.value());
        properties.put(TableProperties.FORMAT_VERSION, "2");
        properties.put(LakestreamProperties.TABLE_FORMAT_VERSION, LakestreamProperties.CURRENT_TABLE_FORMAT_VERSION);
        properties.put(LakestreamProperties.BUCKET_NUM, Integer.toString(spec.bucketCount()));
        if (!spec.primaryKey().isEmpty()) {
            properties.put(LakestreamProperties.PRIMARY_KEY, KeyColumnsProperty.encode(spec.primaryKey()));
        }
        if (!bucketKey.isEmpty()) {
            properties.put(LakestreamProperties.BUCKET_KEY, KeyColumnsProperty.encode(bucketKey));
        }
        spec.logPath().ifPresent(path -> properties.put(LakestreamProperties.LOG_PATH, path));
        return new TableLayout(definition, icebergSchema, partitionSpec, properties.buildKeepingLast());
    }

    private static void validateColumns(Schema schema) {
        if (schema.columns().isEmpty()) {
            throw invalid("a table needs at least one column");
        }
        Set<String> seen = new HashSet<>();
        for (Types.NestedField column : schema.columns()) {
            if (column.name().startsWith("__")) {
                throw invalid("column name '%s' is reserved: names starting with '__' are for Lakestream system columns"
                        .formatted(column.name()));
            }
            if (!seen.add(column.name().toLowerCase(java.util.Locale.ROOT))) {
                throw invalid("column '%s' appears twice (column names are case-insensitive)".formatted(column.name()));
            }
            if (!SupportedTypes.isSupportedColumnType(column.type())) {
                throw invalid("column '%s' has type %s, which Lakestream tables do not support; supported types are %s"
                        .formatted(column.name(), column.type(), SupportedTypes.describeColumnTypes()));
            }
        }
    }

    private static void validateKeyColumns(Schema schema, List<String> columns, String what) {
        Set<String> seen = new HashSet<>();
        for (String name : columns) {
            Types.NestedField column = schema.findField(name);
            if (column == null) {
                throw invalid("%s column '%s' does not exist; the columns are %s"
                        .formatted(
                                what,
                                name,
                                schema.columns().stream()
                                        .map(Types.NestedField::name)
                                        .toList()));
            }
            if (!seen.add(name)) {
                throw invalid("%s column '%s' is listed twice".formatted(what, name));
            }
            if (!SupportedTypes.isSupportedKeyType(column.type())) {
                throw invalid("%s column '%s' has type %s, which cannot be a key; key columns may be %s"
                        .formatted(what, name, column.type(), SupportedTypes.describeKeyTypes()));
            }
            if (column.isOptional()) {
                throw invalid("%s column '%s' is nullable; declare it NOT NULL (required)".formatted(what, name));
            }
        }
    }

    private static Schema lakeSchema(Schema schema, List<String> primaryKey, boolean hiddenBucketColumn) {
        List<Types.NestedField> columns = new ArrayList<>(schema.columns());
        if (hiddenBucketColumn) {
            int nextId = schema.highestFieldId() + 1;
            columns.add(Types.NestedField.required(
                    nextId,
                    LakestreamProperties.BUCKET_COLUMN,
                    Types.IntegerType.get(),
                    "Lakestream bucket of the multi-column bucket key"));
        }
        Set<Integer> identifierIds = new HashSet<>();
        for (String key : primaryKey) {
            identifierIds.add(schema.findField(key).fieldId());
        }
        return new Schema(columns, identifierIds);
    }

    /** The user's partition fields first, then the bucket field (docs/format.md "Partitioned tables"). */
    private static PartitionSpec partitionSpec(
            Schema icebergSchema,
            List<String> partitioning,
            List<String> primaryKey,
            List<String> bucketKey,
            int bucketCount) {
        PartitionSpec.Builder builder = PartitionSpec.builderFor(icebergSchema);
        Partitioning.addFields(builder, icebergSchema, partitioning, primaryKey);
        try {
            addBucketField(builder, bucketKey, bucketCount);
        } catch (IllegalArgumentException e) {
            throw new LakestreamException(
                    PARTITIONING_NOT_ALLOWED,
                    "Partitioning not allowed: partitioning %s clashes with the bucket field of bucket key %s: %s"
                            .formatted(partitioning, bucketKey, e.getMessage()));
        }
        return builder.build();
    }

    /** Adds the field whose value is the Lakestream bucket: {@code bucket(N, key)} or {@code identity(__bucket)}. */
    public static void addBucketField(PartitionSpec.Builder builder, List<String> bucketKey, int bucketCount) {
        if (bucketKey.size() == 1) {
            builder.bucket(bucketKey.getFirst(), bucketCount);
        } else if (bucketKey.size() > 1) {
            builder.identity(LakestreamProperties.BUCKET_COLUMN);
        }
    }

    private static LakestreamException invalid(String message) {
        return new LakestreamException(INVALID_TABLE_DEFINITION, "Invalid table definition: " + message);
    }
}
