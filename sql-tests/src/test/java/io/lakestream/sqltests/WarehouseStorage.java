package io.lakestream.sqltests;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.lakestream.testing.S3MockServer;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where a catalog's tables (lake and log) live, as each part is configured for it: the warehouse location,
 * the Iceberg catalog properties the Java API and Spark take for its file system, and Trino's file system
 * properties for the Lakestream connector and for Trino's stock Iceberg connector.
 */
record WarehouseStorage(
        String location,
        Map<String, String> catalogProperties,
        Map<String, String> lakestreamTrinoProperties,
        Map<String, String> stockIcebergTrinoProperties) {
    WarehouseStorage {
        requireNonNull(location, "location is null");
        catalogProperties = ImmutableMap.copyOf(catalogProperties);
        lakestreamTrinoProperties = ImmutableMap.copyOf(lakestreamTrinoProperties);
        stockIcebergTrinoProperties = ImmutableMap.copyOf(stockIcebergTrinoProperties);
    }

    /** A directory on the local disk (the Lakestream connector reads the local file system by default). */
    static WarehouseStorage local(Path directory) {
        return new WarehouseStorage(
                directory.toString(), Map.of(), Map.of(), Map.of("fs.local.enabled", "true", "local.location", "/"));
    }

    /** {@code s3://bucket/path} on S3Mock: the AWS SDK's properties for Java and Spark, Trino's own S3 file system. */
    static WarehouseStorage s3(S3MockServer s3, String location) {
        return new WarehouseStorage(location, s3.catalogProperties(), trinoS3(s3), trinoS3(s3));
    }

    /** Trino's S3 file system properties for the S3Mock server. */
    static Map<String, String> trinoS3(S3MockServer s3) {
        return Map.of(
                "fs.s3.enabled",
                "true",
                "s3.endpoint",
                s3.endpoint(),
                "s3.region",
                S3MockServer.REGION,
                "s3.path-style-access",
                "true",
                "s3.aws-access-key",
                S3MockServer.ACCESS_KEY,
                "s3.aws-secret-key",
                S3MockServer.SECRET_KEY);
    }
}
