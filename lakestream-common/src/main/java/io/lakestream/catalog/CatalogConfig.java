package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogPublishing;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;

/**
 * Where Lakestream tables are cataloged: an Iceberg catalog of type {@code jdbc} (the embedded
 * default: a SQLite file in the warehouse; a PostgreSQL URI works the same way), {@code hadoop} or
 * {@code rest}.
 *
 * @param type jdbc, hadoop or rest
 * @param warehouse root location of table data
 * @param uri JDBC URL or REST endpoint; for jdbc it defaults to the SQLite file in the warehouse
 * @param properties more Iceberg catalog properties (credentials, ...)
 */
public record CatalogConfig(String type, String warehouse, Optional<String> uri, Map<String, String> properties) {
    public static final String EMBEDDED_CATALOG_FILE = "lakestream-catalog.db";

    /**
     * Iceberg's file IO for S3 (iceberg-aws), the lake's default for a warehouse on S3: named, not referenced,
     * so that an engine with its own file IO (Trino) never loads it.
     */
    static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";

    /** Prefix of the catalog properties that go into the Hadoop configuration. */
    public static final String HADOOP_PREFIX = "hadoop.";

    public CatalogConfig {
        requireNonNull(type, "type is null");
        requireNonNull(warehouse, "warehouse is null");
        requireNonNull(uri, "uri is null");
        properties = ImmutableMap.copyOf(requireNonNull(properties, "properties is null"));
        type = type.toLowerCase(Locale.ROOT);
        if (!type.equals("jdbc") && !type.equals("hadoop") && !type.equals("rest")) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG, "Unknown catalog type '%s': use jdbc, hadoop or rest".formatted(type));
        }
        if (type.equals("rest") && uri.isEmpty()) {
            throw new LakestreamException(INVALID_CATALOG_CONFIG, "A rest catalog needs a URI (the REST endpoint)");
        }
        if (type.equals("jdbc")) {
            // a SQLite URL that asks for other locking than the shared one fails here, not at first use
            uri.ifPresent(SqliteCatalogUri::withLocking);
        }
        if (type.equals("jdbc") && uri.isEmpty() && !LogPublishing.isLocal(warehouse)) {
            // the embedded default keeps its SQLite file in the warehouse directory, which must be local
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "A jdbc catalog with a warehouse on another file system than the local one (%s) needs a URI: give the JDBC URL of the catalog database (e.g. jdbc:sqlite:/local/path/catalog.db or a PostgreSQL URL)"
                            .formatted(warehouse));
        }
    }

    /**
     * The Hadoop configuration of the lake's Hadoop file IO and of a log on HDFS: Hadoop's defaults (with
     * {@code core-site.xml} from the class path) plus every catalog property {@code hadoop.<name>} as
     * {@code <name>} (e.g. {@code hadoop.fs.defaultFS}, {@code hadoop.dfs.replication}), the convention of
     * Iceberg's Spark catalog.
     */
    public Configuration hadoopConfiguration() {
        Configuration configuration = new Configuration();
        properties.forEach((name, value) -> {
            if (name.startsWith(HADOOP_PREFIX)) {
                configuration.set(name.substring(HADOOP_PREFIX.length()), value);
            }
        });
        return configuration;
    }

    /** The embedded default: a JDBC catalog in a SQLite file inside the warehouse directory. */
    public static CatalogConfig embedded(Path warehouse) {
        return embedded(warehouse, Map.of());
    }

    /**
     * The embedded catalog with more catalog properties: what the tables' file IO and logs need to reach storage
     * other than the warehouse directory (e.g. {@code adls.*} or {@code s3.*} for a table whose log is on Azure or
     * S3, {@code io-impl}, {@code hadoop.*}).
     */
    public static CatalogConfig embedded(Path warehouse, Map<String, String> properties) {
        return new CatalogConfig("jdbc", warehouse.toAbsolutePath().toString(), Optional.empty(), properties);
    }

    /** The properties Iceberg's {@link CatalogUtil#buildIcebergCatalog} takes. */
    public Map<String, String> icebergProperties() {
        Map<String, String> result = new HashMap<>(properties);
        result.put(CatalogUtil.ICEBERG_CATALOG_TYPE, type);
        result.put(CatalogProperties.WAREHOUSE_LOCATION, warehouseLocation());
        if (type.equals("jdbc")) {
            // every SQLite URL gets the locking all users of the file share (SqliteCatalogUri)
            result.put(
                    CatalogProperties.URI,
                    uri.map(SqliteCatalogUri::withLocking)
                            .orElseGet(() -> SqliteCatalogUri.of(Path.of(warehouse.replaceFirst("^file:", ""))
                                    .resolve(EMBEDDED_CATALOG_FILE))));
            // V1 adds view support to the catalog tables; SQLite needs no extra setup for it.
            result.putIfAbsent("jdbc.schema-version", "V1");
            if (warehouseLocation().startsWith("file:")) {
                // A local warehouse: plain java.nio instead of Hadoop's checksummed local file system.
                result.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
            }
        } else {
            uri.ifPresent(value -> result.put(CatalogProperties.URI, value));
        }
        if (!type.equals("rest") && LogPublishing.isS3(warehouseLocation())) {
            // Hadoop's file IO (the jdbc and hadoop catalogs' default) would need Hadoop's S3 connector; a rest
            // catalog's default file IO resolves s3: to S3FileIO itself
            result.putIfAbsent(CatalogProperties.FILE_IO_IMPL, S3_FILE_IO);
        }
        return result;
    }

    /**
     * The warehouse as a location with a scheme: a local directory becomes a {@code file:///} URI. Table
     * locations inherit it, and engines that pick a file system by scheme (Trino's Iceberg connector)
     * can only read a table whose locations have one.
     */
    public String warehouseLocation() {
        if (warehouse.startsWith("/")) {
            String uri = Path.of(warehouse).toUri().toString();
            return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
        }
        return warehouse;
    }
}
