package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringRound;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark tiering job of one Spark catalog: the tiering module's {@link TieringRound} (plan on the driver
 * from the lake snapshot's offsets and the pinned log end, one commit guarded by the offsets' compare-and-swap)
 * with the bucket tasks run as Spark tasks ({@link SparkBucketTaskRunner}). Configured by the catalog's
 * {@code tiering.*} options ({@code spark.sql.catalog.<name>.tiering.max-records-per-bucket}, ...), the same
 * keys as the embedded service.
 */
final class SparkTiering {
    private final SparkSession spark;
    private final String catalogName;
    private final Map<String, String> catalogOptions;
    private final TieringConfig config;
    private final TieringHooks driverHooks;

    SparkTiering(SparkSession spark, String catalogName, Map<String, String> catalogOptions) {
        this(spark, catalogName, catalogOptions, TieringHooks.NONE);
    }

    /** With hooks at the driver's steps (the commit), for tests that race it. */
    SparkTiering(SparkSession spark, String catalogName, Map<String, String> catalogOptions, TieringHooks driverHooks) {
        this.driverHooks = requireNonNull(driverHooks, "driverHooks is null");
        this.spark = requireNonNull(spark, "spark is null");
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
        this.config = tieringConfig(catalogOptions);
    }

    /** One round for one table; bad states are thrown with the embedded service's coded errors. */
    TieringRound.Result tier(LakestreamTable table, long maxRecordsPerBucket) {
        SparkBucketTaskRunner runner =
                new SparkBucketTaskRunner(spark, catalogName, catalogOptions, config.targetFileSizeBytes());
        return new TieringRound(maxRecordsPerBucket, runner, driverHooks).run(table);
    }

    TieringConfig config() {
        return config;
    }

    /** The catalog options' {@code tiering.*} keys over the embedded service's defaults. */
    private static TieringConfig tieringConfig(Map<String, String> catalogOptions) {
        return TieringConfig.fromProperties(tieringOptions(catalogOptions));
    }

    /** The catalog options' {@code tiering.*} keys (the embedded service's configuration keys). */
    static Map<String, String> tieringOptions(Map<String, String> catalogOptions) {
        Map<String, String> tiering = new HashMap<>();
        catalogOptions.forEach((key, value) -> {
            if (key.startsWith(TieringConfig.PREFIX)) {
                tiering.put(key, value);
            }
        });
        return tiering;
    }
}
