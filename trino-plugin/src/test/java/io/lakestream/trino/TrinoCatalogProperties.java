package io.lakestream.trino;

import com.google.common.collect.ImmutableMap;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import java.util.Map;
import java.util.Optional;

/**
 * The Trino catalog properties of a catalog the command line names ({@link io.lakestream.catalog.CatalogOptions}):
 * of the Lakestream connector and of Trino's stock Iceberg connector, as a user writes them into {@code
 * etc/catalog/*.properties}. The command line takes Iceberg's catalog property names (as Spark, the Java API and
 * the tiering service do); Trino names the same settings differently and reads files through its own file
 * system layer, so each one the command line accepts is translated here.
 */
final class TrinoCatalogProperties {
    /** Iceberg catalog property -> the Lakestream connector's property. */
    private static final Map<String, String> CATALOG_CREDENTIALS = Map.of(
            "jdbc.user", "lakestream.catalog.user",
            "jdbc.password", "lakestream.catalog.password",
            "credential", "lakestream.catalog.credential",
            "token", "lakestream.catalog.token");
    /** Iceberg's S3FileIO property -> Trino's S3 file system property. */
    private static final Map<String, String> S3 = Map.of(
            "s3.endpoint", "s3.endpoint",
            "s3.path-style-access", "s3.path-style-access",
            "s3.access-key-id", "s3.aws-access-key",
            "s3.secret-access-key", "s3.aws-secret-key",
            "client.region", "s3.region");

    private TrinoCatalogProperties() {}

    /**
     * The Lakestream connector's properties.
     *
     * @throws IllegalArgumentException a catalog property Trino has no setting for
     */
    static Map<String, String> lakestream(CatalogConfig config) {
        ImmutableMap.Builder<String, String> properties = ImmutableMap.<String, String>builder()
                .put("lakestream.catalog.type", config.type())
                .put("lakestream.warehouse", config.warehouse());
        config.uri().ifPresent(uri -> properties.put("lakestream.catalog.uri", uri));
        config.properties().forEach((name, value) -> {
            if (CATALOG_CREDENTIALS.containsKey(name)) {
                properties.put(CATALOG_CREDENTIALS.get(name), value);
            } else if (!S3.containsKey(name)) {
                throw new IllegalArgumentException(
                        "the trino command has no Trino setting for catalog property '%s'; it takes %s and %s"
                                .formatted(name, CATALOG_CREDENTIALS.keySet(), S3.keySet()));
            }
        });
        if (onS3(config)) {
            properties.putAll(s3FileSystem(config));
        }
        // the connector reads the local file system without any setting
        return properties.buildOrThrow();
    }

    /**
     * The properties of Trino's stock Iceberg connector on the same catalog, which reads the lake only; empty for a
     * catalog type it cannot read (hadoop).
     */
    static Optional<Map<String, String>> stockIceberg(CatalogConfig config) {
        ImmutableMap.Builder<String, String> properties = ImmutableMap.builder();
        switch (config.type()) {
            case "jdbc" -> {
                // the URL with the locking every user of a SQLite catalog file shares (CatalogConfig adds it)
                String url = config.icebergProperties().get("uri");
                properties
                        .put("iceberg.catalog.type", "jdbc")
                        .put(
                                "iceberg.jdbc-catalog.driver-class",
                                url.startsWith("jdbc:sqlite:") ? "org.sqlite.JDBC" : "org.postgresql.Driver")
                        .put("iceberg.jdbc-catalog.connection-url", url)
                        .put("iceberg.jdbc-catalog.catalog-name", LakestreamCatalog.DEFAULT_NAME)
                        .put("iceberg.jdbc-catalog.default-warehouse-dir", config.warehouseLocation());
                optional(config, "jdbc.user")
                        .ifPresent(user -> properties.put("iceberg.jdbc-catalog.connection-user", user));
                optional(config, "jdbc.password")
                        .ifPresent(password -> properties.put("iceberg.jdbc-catalog.connection-password", password));
            }
            case "rest" -> {
                properties
                        .put("iceberg.catalog.type", "rest")
                        .put("iceberg.rest-catalog.uri", config.uri().orElseThrow());
                optional(config, "token")
                        .ifPresent(token -> properties
                                .put("iceberg.rest-catalog.security", "OAUTH2")
                                .put("iceberg.rest-catalog.oauth2.token", token));
                optional(config, "credential")
                        .ifPresent(credential -> properties
                                .put("iceberg.rest-catalog.security", "OAUTH2")
                                .put("iceberg.rest-catalog.oauth2.credential", credential));
            }
            default -> {
                return Optional.empty();
            }
        }
        properties.putAll(
                onS3(config) ? s3FileSystem(config) : Map.of("fs.local.enabled", "true", "local.location", "/"));
        return Optional.of(properties.buildOrThrow());
    }

    private static boolean onS3(CatalogConfig config) {
        String warehouse = config.warehouseLocation();
        return warehouse.startsWith("s3://") || warehouse.startsWith("s3a://");
    }

    /** Trino's S3 file system, set up from the S3FileIO properties given. */
    private static Map<String, String> s3FileSystem(CatalogConfig config) {
        ImmutableMap.Builder<String, String> properties = ImmutableMap.builder();
        properties.put("fs.s3.enabled", "true");
        config.properties().forEach((name, value) -> {
            if (S3.containsKey(name)) {
                properties.put(S3.get(name), value);
            }
        });
        return properties.buildOrThrow();
    }

    private static Optional<String> optional(CatalogConfig config, String property) {
        return Optional.ofNullable(config.properties().get(property));
    }
}
