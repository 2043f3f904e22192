package io.lakestream.sqltests;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static io.trino.testing.TestingSession.testSessionBuilder;

import com.google.common.collect.ImmutableMap;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.S3MockServer;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.trino.StockIcebergCatalog;
import io.lakestream.trino.TrinoPluginJars;
import io.lakestream.trino.TrinoUnionReadBenchmark;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * Trino union reads with the warehouse (lake and log) on S3 (S3Mock, a real S3 protocol server in its own JVM, on
 * loopback) against the same read on local disk, and against Trino's stock Iceberg connector on the same S3 files,
 * in one Trino runner and one run (issue 20's benchmark). Both plugins are loaded as a Trino server loads them, each
 * in its own class loader; Trino reads S3 through its own file system ({@code fs.s3.enabled}).
 *
 * <p>Tables: {@code bench}, fully tiered and compacted (no log tail), and {@code bench_tail}, the same rows and then
 * a fraction of the keys ({@code --tail-percent}, 5) updated in its log tail; each written once on S3 and once on
 * local disk by the Java writer and tiered by the tiering service. Sections: (1) the compacted table, our union read
 * on S3 against the stock connector on S3 (goal: at most 1.1); (2) and (3), references: the same read on S3 against
 * local disk, ours and the stock connector's; (4) the table with a log tail, our union read on S3 against local
 * disk; (5) on S3, the union read against a read of the same table's lake alone (what reading the tail from S3
 * costs). Every query first runs on both sides, whose rows must be equal where they read the same state, and every
 * scan must count every row written; then a JVM warm-up of {@code --warmup-rounds} (3) rounds of every query, and
 * per query {@code --warmup} (2) and {@code --rounds} (5) timed rounds, both sides interleaved (alternating which
 * runs first); medians are printed. Then the catalog and log file reads of 20 union reads in a row on S3 (the read
 * counters of the connector).
 *
 * <p>Run: {@code ./lakestream bench s3-union-read [--rows 1000000] [--buckets 4] [--rounds 5]}.
 */
public final class S3UnionReadBenchmark {
    // Trino's logging takes over System.out once a server starts; results go to the real stdout
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    static final String USAGE = "options: --rows N (1000000) --buckets N (4) --tail-percent N (5) --warmup-rounds N (3)"
            + " --warmup N (2) --rounds N (5)";
    private static final String S3_BUCKET = "lakestream-bench";
    private static final String S3_WAREHOUSE = "s3://" + S3_BUCKET + "/warehouse";
    private static final String NAMESPACE = "bench";
    private static final String COMPACTED = "bench";
    private static final String TAIL = "bench_tail";
    /** Catalogs of the runner: ours on S3 and on local disk, the stock Iceberg connector on the same two. */
    static final String OURS_S3 = "s3";

    static final String OURS_LOCAL = "local";
    static final String STOCK_S3 = StockIcebergCatalog.CATALOG;
    static final String STOCK_LOCAL = "iceberg_local";
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "qty", Types.IntegerType.get()),
            Types.NestedField.optional(4, "price", Types.DoubleType.get()));

    record Options(int rows, int buckets, int tailPercent, int warmupRounds, int warmup, int rounds) {
        Options {
            checkArgument(rows > 0 && buckets > 0 && rounds > 0 && warmup >= 0 && warmupRounds >= 0, USAGE);
            checkArgument(tailPercent > 0 && tailPercent <= 100, "--tail-percent is 1..100; %s", USAGE);
        }

        static Options parse(String[] args) {
            Map<String, Integer> values = new HashMap<>(Map.of(
                    "--rows", 1_000_000,
                    "--buckets", 4,
                    "--tail-percent", 5,
                    "--warmup-rounds", 3,
                    "--warmup", 2,
                    "--rounds", 5));
            for (int i = 0; i < args.length; i += 2) {
                checkArgument(values.containsKey(args[i]), "unknown option %s; %s", args[i], USAGE);
                checkArgument(i + 1 < args.length, "option %s needs a value; %s", args[i], USAGE);
                values.put(args[i], Integer.parseInt(args[i + 1]));
            }
            return new Options(
                    values.get("--rows"),
                    values.get("--buckets"),
                    values.get("--tail-percent"),
                    values.get("--warmup-rounds"),
                    values.get("--warmup"),
                    values.get("--rounds"));
        }
    }

    /** One query on two sides; {@code goal} NaN for a reference; {@code sameState}: both sides must return equal rows. */
    record Comparison(String section, String query, String ours, String theirs, double goal, boolean sameState) {}

    /** A comparison's medians, and the rows each side returned on its first run. */
    record Result(
            Comparison comparison,
            double oursSeconds,
            double theirsSeconds,
            List<MaterializedRow> oursRows,
            List<MaterializedRow> theirsRows) {
        double ratio() {
            return oursSeconds / theirsSeconds;
        }
    }

    /**
     * What a run measured: every comparison, and what {@code s3UnionReads} union reads in a row read from the catalog
     * and the log ({@code LakestreamConnector.metadataReads}: {@code catalogReads}, {@code logFileReads}).
     */
    record Measurement(List<Result> results, Map<String, Long> s3CatalogReads, long s3UnionReads) {}

    private S3UnionReadBenchmark() {}

    public static void main(String[] args) {
        try {
            measure(Options.parse(args), OUT);
        } catch (Throwable e) {
            // System.err belongs to Trino's logging by now: a failure would otherwise leave the JVM hanging silently
            OUT.println("s3-union-read benchmark failed:");
            e.printStackTrace(OUT);
            System.exit(1);
        }
        System.exit(0);
    }

    static Measurement measure(Options options, PrintStream out) throws Exception {
        Path directory = Files.createTempDirectory("lakestream-s3-union-read-");
        Path localWarehouse = Files.createDirectories(directory.resolve("local"));
        try (S3MockServer s3 = S3MockServer.start(S3_BUCKET)) {
            CatalogConfig s3Config = new CatalogConfig(
                    "jdbc",
                    S3_WAREHOUSE,
                    Optional.of("jdbc:sqlite:" + directory.resolve("s3-catalog.db")),
                    s3.catalogProperties());
            long setupStart = System.nanoTime();
            for (CatalogConfig config : List.of(CatalogConfig.embedded(localWarehouse), s3Config)) {
                writeTables(config, options);
            }
            out.printf(
                    "tables: %,d rows each (id bigint primary key, name, qty, price), %d buckets; %s and %s, each on S3"
                            + " (S3Mock) and on local disk; set-up %.0f s; %d cores%n",
                    options.rows(),
                    options.buckets(),
                    COMPACTED + " (compacted)",
                    TAIL + " (" + options.tailPercent() + "% of the keys updated in the log tail)",
                    (System.nanoTime() - setupStart) / 1e9,
                    Runtime.getRuntime().availableProcessors());
            try (DistributedQueryRunner trino = runner(s3, s3Config, localWarehouse)) {
                return new S3ReadComparisons(trino, options, out).run(comparisons(options));
            }
        } finally {
            S3ReadComparisons.deleteRecursively(directory);
        }
    }

    /** {@link #COMPACTED} and {@link #TAIL}: the same rows, tiered and compacted; then TAIL's update in its log. */
    private static void writeTables(CatalogConfig config, Options options) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (LakestreamCatalog catalog = LakestreamCatalog.open(config);
                RootAllocator allocator = new RootAllocator()) {
            catalog.createNamespace(Namespace.of(NAMESPACE));
            TableTiering tiering = new TableTiering(
                    TieringConfig.builder()
                            .compactionDeleteFiles(1)
                            .retention(Duration.ofDays(1))
                            .build(),
                    allocator,
                    threads,
                    TieringHooks.NONE,
                    Clock.systemUTC());
            for (String name : List.of(COMPACTED, TAIL)) {
                LakestreamTable table = catalog.createTable(
                        TableIdentifier.of(NAMESPACE, name),
                        TableSpec.builder(SCHEMA)
                                .primaryKey("id")
                                .bucketCount(options.buckets())
                                .build());
                TrinoUnionReadBenchmark.write(table, allocator, new Random(7), options.rows(), options.rows(), true);
                TrinoUnionReadBenchmark.tierFully(tiering, table);
            }
            LakestreamTable tail = catalog.loadTable(TableIdentifier.of(NAMESPACE, TAIL));
            int updated = Math.max(1, (int) ((long) options.rows() * options.tailPercent() / 100));
            TrinoUnionReadBenchmark.write(tail, allocator, new Random(11), updated, options.rows(), false);
        } finally {
            threads.shutdownNow();
        }
    }

    /** One Trino node with the four catalogs: ours and the stock Iceberg connector, each on S3 and on local disk. */
    private static DistributedQueryRunner runner(S3MockServer s3, CatalogConfig s3Config, Path localWarehouse)
            throws Exception {
        DistributedQueryRunner runner = DistributedQueryRunner.builder(testSessionBuilder()
                        .setCatalog(OURS_S3)
                        .setSchema(NAMESPACE)
                        .build())
                .setWorkerCount(0)
                .build();
        try {
            TrinoPluginJars.install(
                    runner, TrinoPluginJars.fromDirectory("lakestream", Path.of(TrinoEngine.pluginDirectory())));
            Map<String, String> trinoS3 = trinoS3Properties(s3);
            runner.createCatalog(
                    OURS_S3,
                    "lakestream",
                    ImmutableMap.<String, String>builder()
                            .put("lakestream.catalog.type", "jdbc")
                            .put("lakestream.catalog.uri", s3Config.uri().orElseThrow())
                            .put("lakestream.warehouse", S3_WAREHOUSE)
                            .putAll(trinoS3)
                            .buildOrThrow());
            runner.createCatalog(
                    OURS_LOCAL,
                    "lakestream",
                    Map.of("lakestream.catalog.type", "jdbc", "lakestream.warehouse", localWarehouse.toString()));
            StockIcebergCatalog.install(
                    runner,
                    ImmutableMap.<String, String>builder()
                            .put("iceberg.catalog.type", "jdbc")
                            .put("iceberg.jdbc-catalog.driver-class", "org.sqlite.JDBC")
                            // with the locking every user of the catalog file shares (CatalogConfig adds it)
                            .put(
                                    "iceberg.jdbc-catalog.connection-url",
                                    s3Config.icebergProperties().get("uri"))
                            .put("iceberg.jdbc-catalog.catalog-name", LakestreamCatalog.DEFAULT_NAME)
                            .put("iceberg.jdbc-catalog.default-warehouse-dir", S3_WAREHOUSE)
                            .putAll(trinoS3)
                            .buildOrThrow());
            runner.createCatalog(STOCK_LOCAL, "iceberg", StockIcebergCatalog.properties(localWarehouse));
            return runner;
        } catch (Throwable e) {
            runner.close();
            throw e;
        }
    }

    /** Trino's own S3 file system for the S3Mock server (what a user puts into a catalog file). */
    private static Map<String, String> trinoS3Properties(S3MockServer s3) {
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

    private static List<Comparison> comparisons(Options options) {
        String compacted = "." + NAMESPACE + "." + COMPACTED;
        String tail = "." + NAMESPACE + "." + TAIL;
        String tailLake = "." + NAMESPACE + ".\"" + TAIL + "$lake\"";
        QueryTemplates queries = new QueryTemplates(options.rows() / 2 + 7);
        List<Comparison> comparisons = new ArrayList<>();
        comparisons.addAll(queries.section(
                "(1) compacted table on S3: our union read (s3) vs Trino's stock Iceberg connector (iceberg)",
                OURS_S3 + compacted,
                STOCK_S3 + compacted,
                1.1,
                true,
                3));
        comparisons.addAll(queries.section(
                "(2) reference: the compacted table, our union read on S3 (s3) vs on local disk (local)",
                OURS_S3 + compacted,
                OURS_LOCAL + compacted,
                Double.NaN,
                true,
                3));
        comparisons.addAll(queries.section(
                "(3) reference: the compacted table, the stock connector on S3 (iceberg) vs on local disk (iceberg_local)",
                STOCK_S3 + compacted,
                STOCK_LOCAL + compacted,
                Double.NaN,
                true,
                3));
        comparisons.addAll(queries.section(
                "(4) the table with a log tail: our union read on S3 (s3) vs on local disk (local)",
                OURS_S3 + tail,
                OURS_LOCAL + tail,
                Double.NaN,
                true,
                2));
        comparisons.addAll(queries.section(
                "(5) reference: on S3, the union read of the table with a log tail vs a read of its lake alone"
                        + " (the tail not read: another state)",
                OURS_S3 + tail,
                OURS_S3 + tailLake,
                Double.NaN,
                false,
                2));
        return List.copyOf(comparisons);
    }

    /** The queries of every section: two scans and a point lookup of a key that exists. */
    private record QueryTemplates(long lookupKey) {
        private static final List<String> NAMES =
                List.of("scan 4 columns", "scan with filter qty < 10", "point lookup");

        /** The first {@code queries} queries, on table {@code ours} against table {@code theirs}. */
        List<Comparison> section(
                String title, String ours, String theirs, double goal, boolean sameState, int queries) {
            List<String> templates = List.of(
                    "SELECT count(*), sum(qty), sum(price), max(name) FROM %s",
                    "SELECT count(*), sum(qty), max(name) FROM %s WHERE qty < 10",
                    "SELECT id, name, qty, price FROM %s WHERE id = " + lookupKey);
            List<Comparison> comparisons = new ArrayList<>();
            for (int q = 0; q < queries; q++) {
                comparisons.add(new Comparison(
                        title,
                        NAMES.get(q),
                        templates.get(q).formatted(ours),
                        templates.get(q).formatted(theirs),
                        goal,
                        sameState));
            }
            return comparisons;
        }
    }

    /** Whether every scan counted every row written, on both sides (the first column of a scan is {@code count(*)}). */
    static void checkCounts(List<Result> results, int rows) {
        for (Result result : results) {
            if (!result.comparison().query().startsWith("scan 4 columns")) {
                continue;
            }
            for (List<MaterializedRow> side : List.of(result.oursRows(), result.theirsRows())) {
                checkState(
                        side.size() == 1 && ((Number) side.getFirst().getField(0)).longValue() == rows,
                        "%s %s: counted %s, but %s rows were written",
                        result.comparison().section(),
                        result.comparison().query(),
                        side,
                        rows);
            }
        }
    }
}
