package io.lakestream.spark.runtime;

import io.lakestream.testing.IsolatedClassPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Benchmark (a program, not a test): the Spark tiering job ({@code CALL ls.system.tier}) on {@code
 * local-cluster[E,1,2048]} against the embedded tiering service ({@code ./lakestream tier --once}, the real
 * service in its own class loader in this JVM) on the same backlog: a primary-key table of 4 buckets with
 * {@code changes} log changes, 95% new keys and 5% updates of existing keys, written the same way into a
 * warehouse per contender. Both tier with the service's default cap per round, round after round until the lake
 * holds the whole log; each reports changes per second of wall time (the backlog over the time until the lake
 * holds it). The job runs with 2 executors and then, on a new cluster, with 1 (the CI smoke run: on {@code
 * local[2]}, which starts no executor JVMs, to stay within a test's time budget).
 *
 * <p>Run: {@code mvn -o verify -pl lakestream-spark-runtime-tests -am -Dtest=TestSparkTieringBenchmark
 * -Dlakestream.bench.spark-tiering.changes=10000000} (default 1,000,000; the CI smoke test: 2,000). Method and
 * figures: docs/benchmarks.md, "Spark tiering job".
 */
final class SparkTieringBenchmark {
    static final String CHANGES_PROPERTY = "lakestream.bench.spark-tiering.changes";
    private static final int BUCKETS = 4;
    private static final Duration STARTUP = Duration.ofMinutes(3);

    record Result(long changes, double embeddedRowsPerSecond, Map<Integer, Double> jobRowsPerSecond) {
        double ratio(int executors) {
            return jobRowsPerSecond.get(executors) / embeddedRowsPerSecond;
        }

        String describe() {
            StringBuilder text = new StringBuilder(
                    "changes %,d: embedded service %,.0f rows/s".formatted(changes, embeddedRowsPerSecond));
            jobRowsPerSecond.forEach((executors, rate) ->
                    text.append("; Spark job, %d executor(s) %,.0f rows/s (%.2fx the embedded service)"
                            .formatted(executors, rate, ratio(executors))));
            if (jobRowsPerSecond.containsKey(1) && jobRowsPerSecond.containsKey(2)) {
                text.append("; 2 vs 1 executors %.2fx".formatted(jobRowsPerSecond.get(2) / jobRowsPerSecond.get(1)));
            }
            return text.append("; load average %.1f"
                            .formatted(
                                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()))
                    .toString();
        }
    }

    private SparkTieringBenchmark() {}

    /**
     * Runs the embedded service once and the job on a {@code local-cluster} of each of {@code executorCounts} (the
     * first: 2); an empty list runs the job once on {@code local[2]} (the smoke run: no executor JVMs to start),
     * reported under 0 executors.
     */
    static Result run(long changes, List<Integer> executorCounts) throws IOException {
        List<Path> sparkJars = IsolatedClassPath.classPathFile("runtime.spark.classpath.file");
        Path runtimeJar = IsolatedClassPath.file("runtime.jar");
        Path sparkHome = LocalSparkCluster.sparkHome(sparkJars);
        List<Path> classPath = new ArrayList<>(sparkJars);
        classPath.add(runtimeJar);
        LakestreamTieringCommand embedded = new LakestreamTieringCommand();
        Map<Integer, Double> job = new java.util.TreeMap<>();
        double embeddedRate = 0;
        boolean smoke = executorCounts.isEmpty();
        for (int executors : smoke ? List.of(0) : executorCounts) {
            Path jobWarehouse =
                    Files.createTempDirectory("lakestream-bench-job").toRealPath();
            Path embeddedWarehouse =
                    Files.createTempDirectory("lakestream-bench-embedded").toRealPath();
            Map<String, String> config = new HashMap<>(LocalSparkCluster.config(List.of(runtimeJar)));
            config.put("spark.sql.catalog.ls", "io.lakestream.spark.LakestreamCatalog");
            config.put("spark.sql.catalog.ls.warehouse", jobWarehouse.toString());
            config.put("spark.sql.catalog.emb", "io.lakestream.spark.LakestreamCatalog");
            config.put("spark.sql.catalog.emb.warehouse", embeddedWarehouse.toString());
            String master = smoke ? "local[2]" : "local-cluster[%d,1,2048]".formatted(executors);
            try (IsolatedSpark spark = new IsolatedSpark("tiering-benchmark", master, classPath, config)) {
                LocalSparkCluster.await(
                        sparkHome, "executors to register", STARTUP, () -> spark.executorCount() == executors);
                boolean first = executors == executorCounts.stream().findFirst().orElse(0);
                List<String> catalogs = first ? List.of("ls", "emb") : List.of("ls");
                for (String catalog : catalogs) {
                    writeBacklog(spark, catalog, changes);
                }
                long start = System.nanoTime();
                int rounds = 0;
                while (!spark.sql("CALL ls.system.tier(table => 'db.t')")
                        .getFirst()
                        .getFirst()
                        .equals("UP_TO_DATE")) {
                    rounds++;
                }
                job.put(executors, changes / seconds(start));
                check(spark, "ls", changes, "the job after " + rounds + " rounds");
                if (first) {
                    start = System.nanoTime();
                    do {
                        embedded.tierOnce(embeddedWarehouse);
                    } while (behind(spark, "emb") > 0);
                    embeddedRate = changes / seconds(start);
                    check(spark, "emb", changes, "the embedded service");
                    if (!spark.sql("SELECT bucket, lake_offset FROM ls.db.`t$offsets` ORDER BY bucket")
                            .equals(spark.sql("SELECT bucket, lake_offset FROM emb.db.`t$offsets` ORDER BY bucket"))) {
                        throw new AssertionError("the job and the embedded service tiered to different offsets");
                    }
                }
            } finally {
                deleteRecursively(jobWarehouse);
                deleteRecursively(embeddedWarehouse);
            }
        }
        return new Result(changes, embeddedRate, job);
    }

    /** 95% new keys, then 5% updates of existing keys, as two log commits. */
    private static void writeBacklog(IsolatedSpark spark, String catalog, long changes) {
        long keys = changes - changes / 20;
        spark.sql("CREATE NAMESPACE IF NOT EXISTS %s.db".formatted(catalog));
        spark.sql(("CREATE TABLE %s.db.t (id BIGINT, v BIGINT, name STRING) "
                        + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='%d')")
                .formatted(catalog, BUCKETS));
        spark.sql("INSERT INTO %s.db.t SELECT id, id * 3, concat('name-', id %% 30000) FROM range(0, %d, 1, 4)"
                .formatted(catalog, keys));
        spark.sql(("INSERT INTO %s.db.t SELECT (id * 7919) %% %d, id, concat('updated-', id %% 30000) "
                        + "FROM range(0, %d, 1, 4)")
                .formatted(catalog, keys, changes / 20));
    }

    private static long behind(IsolatedSpark spark, String catalog) {
        return ((Number) spark.sql("SELECT sum(records_behind) FROM %s.db.`t$offsets`".formatted(catalog))
                        .getFirst()
                        .getFirst())
                .longValue();
    }

    private static void check(IsolatedSpark spark, String catalog, long changes, String who) {
        long offsets = ((Number) spark.sql("SELECT sum(lake_offset) FROM %s.db.`t$offsets`".formatted(catalog))
                        .getFirst()
                        .getFirst())
                .longValue();
        long rows = ((Number) spark.sql("SELECT count(*) FROM %s.db.`t$lake`".formatted(catalog))
                        .getFirst()
                        .getFirst())
                .longValue();
        if (offsets != changes || rows != changes - changes / 20) {
            throw new AssertionError("%s: lake offsets %d of %d changes, %d lake rows of %d keys"
                    .formatted(who, offsets, changes, rows, changes - changes / 20));
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (var paths = Files.walk(directory)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
