package io.lakestream.trino;

import io.lakestream.table.LogCompression;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.table.SupportedTypes;
import io.lakestream.table.TableSpec;
import io.lakestream.trino.LakestreamSessionProperties.DefaultPrimaryKey;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorTableMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/** The table spec of a {@code CREATE TABLE}: columns, keys and bucket count; validated by the table layout. */
final class LakestreamTableCreation {
    static final String TABLE_COMMENT_PROPERTY = "comment";

    private LakestreamTableCreation() {}

    static TableSpec spec(ConnectorTableMetadata metadata, DefaultPrimaryKey defaultPrimaryKey) {
        Map<String, Object> properties = metadata.getProperties();
        List<String> primaryKey = LakestreamTableProperties.primaryKey(properties);
        if (primaryKey.isEmpty() && defaultPrimaryKey == DefaultPrimaryKey.FIRST_COLUMN) {
            primaryKey = firstColumnKey(metadata);
        }
        List<Types.NestedField> fields = new ArrayList<>();
        int fieldId = 1;
        for (ColumnMetadata column : metadata.getColumns()) {
            if (column.isHidden()) {
                continue;
            }
            // primary key columns are NOT NULL whether or not the statement says so
            boolean required = !column.isNullable() || primaryKey.contains(column.getName());
            fields.add(Types.NestedField.builder()
                    .withId(fieldId++)
                    .withName(column.getName())
                    .isOptional(!required)
                    .ofType(LakestreamTypes.toIcebergType(column.getName(), column.getType()))
                    .withDoc(column.getComment().orElse(null))
                    .build());
        }
        // nested types carry placeholder ids: fresh ids, top-level columns first (1..n, as before), then nested fields
        Types.StructType columns = (Types.StructType)
                TypeUtil.assignFreshIds(Types.StructType.of(fields), new AtomicInteger()::incrementAndGet);
        TableSpec.Builder spec = TableSpec.builder(new Schema(columns.fields()))
                .primaryKey(primaryKey)
                .bucketKey(LakestreamTableProperties.bucketKey(properties));
        LakestreamTableProperties.bucketCount(properties).ifPresent(spec::bucketCount);
        spec.partitioning(LakestreamTableProperties.partitioning(properties));
        Map<String, String> tableProperties = new HashMap<>();
        metadata.getComment().ifPresent(comment -> tableProperties.put(TABLE_COMMENT_PROPERTY, comment));
        // validated with the partitioning by the table layout, before anything is created
        LakestreamTableProperties.partitionExpiration(properties)
                .ifPresent(expiration -> tableProperties.put(PartitionExpiration.PROPERTY, expiration));
        // validated by the table layout, which stores the default when the statement does not choose
        LakestreamTableProperties.logCompression(properties)
                .ifPresent(compression -> tableProperties.put(LogCompression.PROPERTY, compression));
        spec.properties(tableProperties);
        return spec.build();
    }

    /** The first visible column, when its type can be a key; else none (an append-only table). */
    private static List<String> firstColumnKey(ConnectorTableMetadata metadata) {
        return metadata.getColumns().stream()
                .filter(column -> !column.isHidden())
                .findFirst()
                .filter(column -> SupportedTypes.isSupportedKeyType(
                        LakestreamTypes.toIcebergType(column.getName(), column.getType())))
                .map(column -> List.of(column.getName()))
                .orElse(List.of());
    }
}
