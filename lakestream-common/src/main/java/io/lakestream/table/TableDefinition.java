package io.lakestream.table;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;
import static io.lakestream.common.LakestreamError.NOT_A_LAKESTREAM_TABLE;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/**
 * The validated Lakestream view of a table: user columns, primary key, bucket key and bucket count.
 *
 * @param schema the user columns only (without the hidden {@code __bucket} column)
 * @param primaryKey primary key columns; empty for an append-only table
 * @param bucketKey the resolved bucket key; empty only for an append-only table that spreads rows
 * @param partitionFields the user's partition fields: the lake's first partition spec (id 0) without its bucket
 *     field; empty for a table partitioned by bucket only (docs/format.md "Partitioned tables")
 */
public record TableDefinition(
        Schema schema,
        List<String> primaryKey,
        List<String> bucketKey,
        int bucketCount,
        List<PartitionField> partitionFields) {

    public TableDefinition {
        requireNonNull(schema, "schema is null");
        primaryKey = ImmutableList.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        bucketKey = ImmutableList.copyOf(requireNonNull(bucketKey, "bucketKey is null"));
        partitionFields = ImmutableList.copyOf(requireNonNull(partitionFields, "partitionFields is null"));
    }

    /** A table partitioned by bucket only. */
    public TableDefinition(Schema schema, List<String> primaryKey, List<String> bucketKey, int bucketCount) {
        this(schema, primaryKey, bucketKey, bucketCount, List.of());
    }

    public boolean isPartitioned() {
        return !partitionFields.isEmpty();
    }

    /** The user's fields of a spec Lakestream made: all but the trailing bucket field, if the table has one. */
    public static List<PartitionField> userPartitionFields(PartitionSpec spec, boolean hasBucketKey) {
        List<PartitionField> fields = spec.fields();
        return hasBucketKey && !fields.isEmpty() ? fields.subList(0, fields.size() - 1) : fields;
    }

    public boolean hasPrimaryKey() {
        return !primaryKey.isEmpty();
    }

    public boolean hasBucketKey() {
        return !bucketKey.isEmpty();
    }

    /** The primary key columns of the schema, in key order. */
    public List<Types.NestedField> primaryKeyFields() {
        return primaryKey.stream().map(schema::findField).toList();
    }

    /** Reads the definition back from an Iceberg table created by {@link TableLayout}. */
    public static TableDefinition fromIceberg(String tableName, Table table) {
        return fromIceberg(tableName, table, table.schema());
    }

    /**
     * The definition with {@code schema}, one of the table's schemas (time travel reads with the schema of its time,
     * {@link SchemaHistory}); key columns are never renamed, so they resolve by name in every schema Lakestream made.
     */
    public static TableDefinition fromIceberg(String tableName, Table table, Schema schema) {
        Map<String, String> properties = table.properties();
        if (!properties.containsKey(LakestreamProperties.TABLE_FORMAT_VERSION)) {
            throw new LakestreamException(
                    NOT_A_LAKESTREAM_TABLE,
                    "Table %s is a plain Iceberg table, not a Lakestream table (it has no '%s' property); read it with an Iceberg connector, or create a Lakestream table"
                            .formatted(tableName, LakestreamProperties.TABLE_FORMAT_VERSION));
        }
        String bucketNum = properties.get(LakestreamProperties.BUCKET_NUM);
        int bucketCount;
        try {
            bucketCount = Integer.parseInt(requireProperty(tableName, properties, LakestreamProperties.BUCKET_NUM));
        } catch (NumberFormatException e) {
            throw new LakestreamException(
                    INVALID_TABLE_DEFINITION,
                    "Table %s has an invalid '%s' property: %s"
                            .formatted(tableName, LakestreamProperties.BUCKET_NUM, bucketNum));
        }
        Schema userSchema = userColumns(schema);
        List<String> primaryKey =
                KeyColumnsProperty.decode(properties.getOrDefault(LakestreamProperties.PRIMARY_KEY, ""), userSchema);
        List<String> bucketKey =
                KeyColumnsProperty.decode(properties.getOrDefault(LakestreamProperties.BUCKET_KEY, ""), userSchema);
        // Lakestream creates the lake with its partitioning as spec 0 and never evolves it (LakeLayoutValidator)
        PartitionSpec created = table.specs().get(0);
        List<PartitionField> partitionFields =
                created == null ? List.of() : userPartitionFields(created, !bucketKey.isEmpty());
        return new TableDefinition(userSchema, primaryKey, bucketKey, bucketCount, partitionFields);
    }

    static Schema userColumns(Schema schema) {
        List<Types.NestedField> columns = schema.columns().stream()
                .filter(field -> !field.name().equals(LakestreamProperties.BUCKET_COLUMN))
                .toList();
        return new Schema(columns, schema.identifierFieldIds());
    }

    private static String requireProperty(String tableName, Map<String, String> properties, String key) {
        String value = properties.get(key);
        if (value == null) {
            throw new LakestreamException(
                    INVALID_TABLE_DEFINITION, "Table %s is missing the '%s' property".formatted(tableName, key));
        }
        return value;
    }
}
