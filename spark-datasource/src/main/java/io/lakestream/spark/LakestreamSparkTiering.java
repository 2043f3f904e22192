package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.tiering.TieringConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Spark tiering job for {@code spark-submit}: tiers every table of a Lakestream catalog (or of one of its
 * namespaces) with {@code CALL <catalog>.system.tier}, once or in a loop.
 *
 * <pre>
 * spark-submit --class io.lakestream.spark.LakestreamSparkTiering --jars lakestream-spark-runtime.jar \
 *     --conf spark.sql.catalog.ls=io.lakestream.spark.LakestreamCatalog --conf spark.sql.catalog.ls.warehouse=... \
 *     lakestream-spark-runtime.jar --catalog ls [--namespace db] [--interval 30s | --once]
 * </pre>
 *
 * A table that fails (a bad state, an I/O error) is logged and skipped; the others are tiered.
 */
public final class LakestreamSparkTiering {
    private static final Logger log = LoggerFactory.getLogger(LakestreamSparkTiering.class);

    /** What one pass did for one table: the procedure's row, or the error that stopped it. */
    record TableResult(String table, Optional<Row> row, Optional<String> error) {
        TableResult {
            requireNonNull(table, "table is null");
            requireNonNull(row, "row is null");
            requireNonNull(error, "error is null");
        }
    }

    private LakestreamSparkTiering() {}

    public static void main(String[] args) throws InterruptedException {
        String catalog = null;
        Optional<String> namespace = Optional.empty();
        Optional<Duration> interval = Optional.empty();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--catalog" -> catalog = value(args, ++i);
                case "--namespace" -> namespace = Optional.of(value(args, ++i));
                // the embedded service's duration syntax (30s, 5m, ...)
                case "--interval" ->
                    interval = Optional.of(
                            TieringConfig.fromProperties(Map.of(TieringConfig.PREFIX + "interval", value(args, ++i)))
                                    .interval());
                case "--once" -> interval = Optional.empty();
                default -> throw usage("unknown argument " + args[i]);
            }
        }
        if (catalog == null) {
            throw usage("--catalog is missing");
        }
        SparkSession spark =
                SparkSession.builder().appName("lakestream-tiering").getOrCreate();
        do {
            for (TableResult result : tierAll(spark, catalog, namespace)) {
                log.info(
                        "Tiering {}: {}",
                        result.table(),
                        result.row()
                                .map(Row::toString)
                                .orElseGet(() -> result.error().orElseThrow()));
            }
            if (interval.isPresent()) {
                // a schedule, not a correctness wait
                Thread.sleep(interval.get().toMillis());
            }
        } while (interval.isPresent());
    }

    /** One pass: {@code CALL <catalog>.system.tier} for every table of the catalog or of one namespace. */
    static List<TableResult> tierAll(SparkSession spark, String catalog, Optional<String> namespace) {
        List<String> namespaces = namespace
                .map(List::of)
                .orElseGet(() -> spark.sql("SHOW NAMESPACES IN " + catalog).collectAsList().stream()
                        .map(row -> row.getString(0))
                        .toList());
        List<TableResult> results = new ArrayList<>();
        for (String ns : namespaces) {
            for (Row table :
                    spark.sql("SHOW TABLES IN %s.%s".formatted(catalog, ns)).collectAsList()) {
                String name = ns + "." + table.getString(1);
                try {
                    Row row = spark.sql("CALL %s.system.tier(table => '%s')".formatted(catalog, name))
                            .collectAsList()
                            .getFirst();
                    results.add(new TableResult(name, Optional.of(row), Optional.empty()));
                } catch (RuntimeException e) {
                    log.warn("Tiering {} failed; the other tables go on", name, e);
                    results.add(new TableResult(name, Optional.empty(), Optional.of(String.valueOf(e.getMessage()))));
                }
            }
        }
        return results;
    }

    private static String value(String[] args, int index) {
        if (index >= args.length) {
            throw usage(args[index - 1] + " needs a value");
        }
        return args[index];
    }

    private static LakestreamException usage(String problem) {
        return new LakestreamException(
                INVALID_CATALOG_CONFIG,
                problem
                        + "; usage: LakestreamSparkTiering --catalog <spark catalog> [--namespace <ns>] [--interval <30s> | --once]");
    }
}
