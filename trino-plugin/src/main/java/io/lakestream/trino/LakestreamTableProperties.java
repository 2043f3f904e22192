package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_INVALID_TABLE_PROPERTY;
import static io.trino.spi.type.VarcharType.VARCHAR;

import com.google.common.collect.ImmutableList;
import io.lakestream.table.LogCompression;
import io.lakestream.table.PartitionExpiration;
import io.trino.spi.TrinoException;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.type.ArrayType;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** The {@code WITH (...)} properties of {@code CREATE TABLE}. */
public final class LakestreamTableProperties {
    public static final String PRIMARY_KEY = "primary_key";
    public static final String BUCKET_KEY = "bucket_key";
    public static final String BUCKET_COUNT = "bucket_count";
    public static final String PARTITIONING = "partitioning";
    public static final String PARTITION_EXPIRATION = "partition_expiration";
    public static final String LOG_COMPRESSION = "log_compression";

    public static final List<PropertyMetadata<?>> PROPERTIES = List.of(
            columnListProperty(
                    PRIMARY_KEY,
                    "Primary key columns; an INSERT of an existing key replaces the row. Without one the table is append-only"),
            columnListProperty(
                    BUCKET_KEY, "Columns that choose a row's bucket; defaults to the primary key (a subset of it)"),
            PropertyMetadata.integerProperty(
                    BUCKET_COUNT,
                    "Number of log buckets: the unit of parallelism of reads and tiering",
                    null,
                    value -> {
                        if (value != null && value < 1) {
                            throw new TrinoException(
                                    LAKESTREAM_INVALID_TABLE_PROPERTY,
                                    "bucket_count must be at least 1, but was %s".formatted(value));
                        }
                    },
                    false),
            partitioningProperty(),
            PropertyMetadata.stringProperty(
                    PARTITION_EXPIRATION,
                    "Partitions whose time range ended longer ago than this are removed once tiered (table property "
                            + PartitionExpiration.PROPERTY
                            + "): '30d', '12h', '90m' (units ms, s, m, h, d) or ISO-8601 'P30D'; the table must be partitioned by"
                            + " year, month, day or hour of a column, or by a date column",
                    null,
                    false),
            PropertyMetadata.stringProperty(
                    LOG_COMPRESSION,
                    "How new log segments compress their record batches (table property "
                            + LogCompression.PROPERTY
                            + "): 'zstd' (the default) or 'none'; segments already written keep theirs",
                    null,
                    false));

    private LakestreamTableProperties() {}

    /** Partitioning terms as Trino's Iceberg connector spells them ({@code day(ts)}, {@code bucket(id, 8)}, ...). */
    @SuppressWarnings("unchecked")
    public static List<String> partitioning(Map<String, Object> properties) {
        List<String> value = (List<String>) properties.get(PARTITIONING);
        return value == null ? List.of() : value;
    }

    private static PropertyMetadata<List<String>> partitioningProperty() {
        return stringListProperty(
                PARTITIONING,
                "Partitioning of the table by its columns, in Iceberg's transforms: 'col', 'year(col)', 'month(col)', 'day(col)', 'hour(col)', 'bucket(col, n)', 'truncate(col, w)'; the rows of each partition are bucketed as well. A primary-key table may be partitioned by key columns only",
                term -> term);
    }

    public static Optional<String> partitionExpiration(Map<String, Object> properties) {
        return Optional.ofNullable((String) properties.get(PARTITION_EXPIRATION));
    }

    public static Optional<String> logCompression(Map<String, Object> properties) {
        return Optional.ofNullable((String) properties.get(LOG_COMPRESSION));
    }

    public static List<String> primaryKey(Map<String, Object> properties) {
        return columnList(properties, PRIMARY_KEY);
    }

    public static List<String> bucketKey(Map<String, Object> properties) {
        return columnList(properties, BUCKET_KEY);
    }

    public static Optional<Integer> bucketCount(Map<String, Object> properties) {
        return Optional.ofNullable((Integer) properties.get(BUCKET_COUNT));
    }

    @SuppressWarnings("unchecked")
    private static List<String> columnList(Map<String, Object> properties, String name) {
        List<String> value = (List<String>) properties.get(name);
        return value == null ? List.of() : value;
    }

    private static PropertyMetadata<List<String>> columnListProperty(String name, String description) {
        // Trino folds unquoted column names to lower case; do the same for the key names
        return stringListProperty(name, description, column -> column.toLowerCase(Locale.ROOT));
    }

    /** An {@code ARRAY(varchar)} property without NULL elements, each element normalized. */
    private static PropertyMetadata<List<String>> stringListProperty(
            String name, String description, UnaryOperator<String> normalize) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        Class<List<String>> javaType = (Class) List.class;
        return new PropertyMetadata<>(
                name,
                description,
                new ArrayType(VARCHAR),
                javaType,
                List.of(),
                false,
                value -> ((List<?>) value)
                        .stream()
                                .map(element -> {
                                    if (element == null) {
                                        throw new TrinoException(
                                                LAKESTREAM_INVALID_TABLE_PROPERTY,
                                                "%s must not contain NULL".formatted(name));
                                    }
                                    return normalize.apply((String) element);
                                })
                                .collect(ImmutableList.toImmutableList()),
                value -> value);
    }
}
