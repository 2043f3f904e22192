package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.trino.testing.DistributedQueryRunner;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;

/**
 * Trino's stock Iceberg connector (the plugin Trino 483 ships) as a catalog over the same warehouse
 * as the {@code lakestream} catalog: it sees the lake layer of every Lakestream table as a plain
 * Iceberg table. The plugin's jars are listed by the {@code trino-stock-iceberg} module's build.
 */
public final class StockIcebergCatalog {
    public static final String CATALOG = "iceberg";
    /** Overrides where the stock plugin's class path file is. */
    public static final String CLASS_PATH_PROPERTY = "lakestream.trino.stock-iceberg-classpath";

    private StockIcebergCatalog() {}

    public static void install(DistributedQueryRunner runner, Path warehouse) {
        install(runner, properties(warehouse));
    }

    /** With the given catalog properties (e.g. a warehouse on S3 and Trino's {@code fs.s3.*} properties). */
    public static void install(DistributedQueryRunner runner, Map<String, String> properties) {
        TrinoPluginJars.install(
                runner,
                TrinoPluginJars.fromClassPathFile("iceberg", classPathFile(), "io.trino.plugin.iceberg.IcebergPlugin"));
        runner.createCatalog(CATALOG, "iceberg", properties);
    }

    /** The catalog properties a user writes into {@code etc/catalog/iceberg.properties} for this warehouse. */
    public static Map<String, String> properties(Path warehouse) {
        CatalogConfig config = CatalogConfig.embedded(requireNonNull(warehouse, "warehouse is null"));
        Map<String, String> iceberg = config.icebergProperties();
        return ImmutableMap.<String, String>builder()
                .put("iceberg.catalog.type", "jdbc")
                .put("iceberg.jdbc-catalog.driver-class", "org.sqlite.JDBC")
                .put("iceberg.jdbc-catalog.connection-url", iceberg.get("uri"))
                .put("iceberg.jdbc-catalog.catalog-name", LakestreamCatalog.DEFAULT_NAME)
                .put("iceberg.jdbc-catalog.default-warehouse-dir", config.warehouseLocation())
                .put("fs.local.enabled", "true")
                .put("local.location", "/")
                .buildOrThrow();
    }

    private static Path classPathFile() {
        String configured = System.getProperty(CLASS_PATH_PROPERTY);
        if (configured != null) {
            return Path.of(configured);
        }
        // target/test-classes (or target/classes) of trino-plugin -> the repository root
        try {
            Path classes = Path.of(StockIcebergCatalog.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            return classes.getParent()
                    .getParent()
                    .getParent()
                    .resolve("trino-stock-iceberg/target/plugin-classpath.txt");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
