package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;

import com.google.common.base.Splitter;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LogCompression;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.table.TableSpec;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.expressions.Transform;

/**
 * Turns a Spark {@code CREATE TABLE ... USING lakestream TBLPROPERTIES (...)} into a {@link
 * TableSpec}. The table properties {@code primary-key}, {@code bucket.key} (comma-separated
 * columns), {@code bucket.num} and {@code log.path} define the table, {@code partition.expiration}
 * sets partition expiry and {@code log.compression} the log segments' compression (the {@code lakestream.}
 * prefixed names work too); every other property is stored on the Iceberg table as it is.
 */
final class LakestreamTableSpecs {
    static final String PROVIDER = "lakestream";
    static final String PRIMARY_KEY = "primary-key";
    static final String BUCKET_KEY = "bucket.key";
    static final String BUCKET_NUM = "bucket.num";
    static final String LOG_PATH = "log.path";
    static final String PARTITION_EXPIRATION = "partition.expiration";
    static final String LOG_COMPRESSION = "log.compression";

    private static final Splitter COLUMNS = Splitter.on(',').trimResults().omitEmptyStrings();
    // Properties Spark adds itself; they are not table properties of ours.
    private static final Set<String> SPARK_RESERVED =
            Set.of(TableCatalog.PROP_OWNER, TableCatalog.PROP_PROVIDER, TableCatalog.PROP_IS_MANAGED_LOCATION);

    private LakestreamTableSpecs() {}

    static TableSpec toSpec(Column[] columns, Transform[] partitions, Map<String, String> properties) {
        String provider = properties.get(TableCatalog.PROP_PROVIDER);
        if (provider != null && !provider.equalsIgnoreCase(PROVIDER)) {
            throw invalid(
                    "a Lakestream catalog creates Lakestream tables only: write USING lakestream (or leave USING out), not USING %s"
                            .formatted(provider));
        }
        if (properties.containsKey(TableCatalog.PROP_LOCATION)) {
            throw invalid(
                    "LOCATION is not supported: Lakestream tables live in the catalog's warehouse; leave LOCATION out");
        }
        Map<String, String> rest = new HashMap<>();
        Map<String, String> definition = new HashMap<>();
        properties.forEach((key, value) -> {
            String name = key.toLowerCase(Locale.ROOT);
            if (name.startsWith("lakestream.")) {
                name = name.substring("lakestream.".length());
            }
            switch (name) {
                case PRIMARY_KEY, BUCKET_KEY, BUCKET_NUM, LOG_PATH -> definition.put(name, value);
                // stored under its full name; validated with the partitioning by the table layout
                case PARTITION_EXPIRATION -> rest.put(PartitionExpiration.PROPERTY, value);
                // stored under its full name; validated by the table layout, which stores the default when not given
                case LOG_COMPRESSION -> rest.put(LogCompression.PROPERTY, value);
                default -> {
                    if (!SPARK_RESERVED.contains(key)) {
                        rest.put(key, value);
                    }
                }
            }
        });
        List<String> primaryKey = COLUMNS.splitToList(definition.getOrDefault(PRIMARY_KEY, ""));
        TableSpec.Builder spec = TableSpec.builder(LakestreamTypes.icebergSchema(columns, new HashSet<>(primaryKey)))
                .primaryKey(primaryKey)
                .bucketKey(COLUMNS.splitToList(definition.getOrDefault(BUCKET_KEY, "")))
                .properties(rest)
                .partitioning(LakestreamPartitioning.terms(partitions));
        if (definition.containsKey(BUCKET_NUM)) {
            spec.bucketCount(bucketCount(definition.get(BUCKET_NUM)));
        }
        if (definition.containsKey(LOG_PATH)) {
            spec.logPath(definition.get(LOG_PATH));
        }
        return spec.build();
    }

    /** The table properties Spark shows (SHOW TBLPROPERTIES, DESCRIBE EXTENDED): the Iceberg properties and the provider. */
    static Map<String, String> sparkProperties(Map<String, String> icebergProperties) {
        Map<String, String> result = new HashMap<>(icebergProperties);
        result.put(TableCatalog.PROP_PROVIDER, PROVIDER);
        return result;
    }

    /** Whether a Spark table property names {@link PartitionExpiration#PROPERTY}, with or without its prefix. */
    static boolean isPartitionExpiration(String property) {
        String name = property.toLowerCase(Locale.ROOT);
        return name.equals(PARTITION_EXPIRATION) || name.equals(PartitionExpiration.PROPERTY);
    }

    /** Whether a Spark table property names {@link LogCompression#PROPERTY}, with or without its prefix. */
    static boolean isLogCompression(String property) {
        String name = property.toLowerCase(Locale.ROOT);
        return name.equals(LOG_COMPRESSION) || name.equals(LogCompression.PROPERTY);
    }

    private static int bucketCount(String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw invalid(
                    "table property 'bucket.num' must be a whole number of buckets, but was '%s'".formatted(value));
        }
    }

    private static LakestreamException invalid(String message) {
        return new LakestreamException(INVALID_TABLE_DEFINITION, message);
    }
}
