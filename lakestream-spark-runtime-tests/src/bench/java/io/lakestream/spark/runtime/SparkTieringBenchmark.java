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
 * holds it). The job runs on a cluster of each executor count, each on a new cluster (the CI smoke run: on {@code
 * local[2]}, which starts no executor JVMs, to stay within a test's time budget); the embedded service runs on the
 * first cluster of a repeat, before or after the job. Repeats alternate the order: even repeats run the job first
 * and the cluster sizes as given, odd repeats the embedded service first and the cluster sizes reversed, so neither
 * contender nor cluster size always runs cold or under the other's leftovers.
 *
 * <p>Options (system properties, through {@link Options#fromSystemProperties}): {@value #CHANGES_PROPERTY} (the
 * backlog; without it the CI smoke run of 2,000 changes), {@value #EXECUTORS_PROPERTY} (cluster sizes, default
 * {@code 2,1}), {@value #REPEATS_PROPERTY} (default 1). Run: {@code mvn -o verify -pl lakestream-spark-runtime-tests
 * -am -Dtest=TestSparkTieringBenchmark -Dlakestream.bench.spark-tiering.changes=10000000
 * -Dlakestream.bench.spark-tiering.repeats=4}. Method and figures: docs/benchmarks.md, "Spark tiering job".
 */
final class SparkTieringBenchmark {
    static final String CHANGES_PROPERTY = "lakestream.bench.spark-tiering.changes";
    static final String EXECUTORS_PROPERTY = "lakestream.bench.spark-tiering.executors";
    static final String REPEATS_PROPERTY = "lakestream.bench.spark-tiering.repeats";
    private static final long SMOKE_CHANGES = 2_000;
    private static final int BUCKETS = 4;
    private static final Duration STARTUP = Duration.ofMinutes(3);

    /**
     * What to run: {@code executorCounts} empty is the smoke run (the job on {@code local[2]}, reported under 0
     * executors).
     */
    record Options(long changes, List<Integer> executorCounts, int repeats) {
        Options {
            executorCounts = List.copyOf(executorCounts);
            if (changes < 20 || repeats < 1 || executorCounts.stream().anyMatch(count -> count < 1)) {
                throw new IllegalArgumentException(
                        "changes must be at least 20, repeats and executor counts at least 1: %s changes, executors %s, %s repeats"
                                .formatted(changes, executorCounts, repeats));
            }
        }

        /** The benchmark run when {@value #CHANGES_PROPERTY} is set, else the smoke run. */
        static Options fromSystemProperties() {
            Long changes = Long.getLong(CHANGES_PROPERTY);
            int repeats = Integer.getInteger(REPEATS_PROPERTY, 1);
            if (changes == null) {
                return new Options(SMOKE_CHANGES, List.of(), repeats);
            }
            List<Integer> executors = java.util.Arrays.stream(
                            System.getProperty(EXECUTORS_PROPERTY, "2,1").split(","))
                    .map(String::trim)
                    .map(Integer::valueOf)
                    .toList();
            return new Options(changes, executors, repeats);
        }

        /** The cluster sizes of repeat {@code repeat}: reversed in odd repeats. */
        List<Integer> clusters(int repeat) {
            List<Integer> clusters = new ArrayList<>(executorCounts.isEmpty() ? List.of(0) : executorCounts);
            if (repeat % 2 == 1) {
                java.util.Collections.reverse(clusters);
            }
            return clusters;
        }

        /** Whether the job tiers before the embedded service in repeat {@code repeat}. */
        static boolean jobFirst(int repeat) {
            return repeat % 2 == 0;
        }
    }

    /** One repeat's rates; {@code order} says which contender and cluster size ran first. */
    record Result(long changes, double embeddedRowsPerSecond, Map<Integer, Double> jobRowsPerSecond, String order) {
        double ratio(int executors) {
            return jobRowsPerSecond.get(executors) / embeddedRowsPerSecond;
        }

        String describe() {
            StringBuilder text = new StringBuilder(
                    "changes %,d (%s): embedded service %,.0f rows/s".formatted(changes, order, embeddedRowsPerSecond));
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

    /** Runs every repeat of {@code options}; one result per repeat. */
    static List<Result> run(Options options) throws IOException {
        List<Result> results = new ArrayList<>();
        for (int repeat = 0; repeat < options.repeats(); repeat++) {
            Result result = runRepeat(options, repeat);
            System.out.println("SparkTieringBenchmark repeat %d: %s".formatted(repeat, result.describe()));
            results.add(result);
        }
        return results;
    }

    /**
     * One repeat: the job on a new cluster of each size in this repeat's order; on the first of them also the
     * embedded service, before or after the job.
     */
    private static Result runRepeat(Options options, int repeat) throws IOException {
        List<Path> sparkJars = IsolatedClassPath.classPathFile("runtime.spark.classpath.file");
        Path runtimeJar = IsolatedClassPath.file("runtime.jar");
        Path sparkHome = LocalSparkCluster.sparkHome(sparkJars);
        List<Path> classPath = new ArrayList<>(sparkJars);
        classPath.add(runtimeJar);
        long changes = options.changes();
        boolean jobFirst = Options.jobFirst(repeat);
        List<Integer> clusters = options.clusters(repeat);
        Map<Integer, Double> job = new java.util.TreeMap<>();
        double embeddedRate = 0;
        for (int executors : clusters) {
            boolean withEmbedded = executors == clusters.getFirst();
            Path jobWarehouse =
                    Files.createTempDirectory("lakestream-bench-job").toRealPath();
            Path embeddedWarehouse =
                    Files.createTempDirectory("lakestream-bench-embedded").toRealPath();
            Map<String, String> config = new HashMap<>(LocalSparkCluster.config(List.of(runtimeJar)));
            config.put("spark.sql.catalog.ls", "io.lakestream.spark.LakestreamCatalog");
            config.put("spark.sql.catalog.ls.warehouse", jobWarehouse.toString());
            config.put("spark.sql.catalog.emb", "io.lakestream.spark.LakestreamCatalog");
            config.put("spark.sql.catalog.emb.warehouse", embeddedWarehouse.toString());
            String master = executors == 0 ? "local[2]" : "local-cluster[%d,1,2048]".formatted(executors);
            try (IsolatedSpark spark = new IsolatedSpark("tiering-benchmark", master, classPath, config)) {
                LocalSparkCluster.await(
                        sparkHome, "executors to register", STARTUP, () -> spark.executorCount() == executors);
                writeBacklog(spark, "ls", changes);
                if (withEmbedded) {
                    writeBacklog(spark, "emb", changes);
                }
                if (withEmbedded && !jobFirst) {
                    embeddedRate = tierEmbedded(spark, embeddedWarehouse, changes);
                }
                job.put(executors, tierWithJob(spark, changes));
                if (withEmbedded && jobFirst) {
                    embeddedRate = tierEmbedded(spark, embeddedWarehouse, changes);
                }
                if (withEmbedded
                        && !spark.sql("SELECT bucket, lake_offset FROM ls.db.`t$offsets` ORDER BY bucket")
                                .equals(spark.sql(
                                        "SELECT bucket, lake_offset FROM emb.db.`t$offsets` ORDER BY bucket"))) {
                    throw new AssertionError("the job and the embedded service tiered to different offsets");
                }
            } finally {
                deleteRecursively(jobWarehouse);
                deleteRecursively(embeddedWarehouse);
            }
        }
        String order = "%s first, clusters %s"
                .formatted(jobFirst ? "job" : "embedded service", clusters.equals(List.of(0)) ? "local[2]" : clusters);
        return new Result(changes, embeddedRate, job, order);
    }

    /** The job's rate: {@code CALL ls.system.tier} until the lake holds the whole log. */
    private static double tierWithJob(IsolatedSpark spark, long changes) {
        long start = System.nanoTime();
        int rounds = 0;
        while (!spark.sql("CALL ls.system.tier(table => 'db.t')")
                .getFirst()
                .getFirst()
                .equals("UP_TO_DATE")) {
            rounds++;
        }
        double rate = changes / seconds(start);
        check(spark, "ls", changes, "the job after " + rounds + " rounds");
        return rate;
    }

    /** The embedded service's rate: {@code ./lakestream tier --once} until nothing is behind. */
    private static double tierEmbedded(IsolatedSpark spark, Path warehouse, long changes) {
        LakestreamTieringCommand embedded = new LakestreamTieringCommand();
        long start = System.nanoTime();
        do {
            embedded.tierOnce(warehouse);
        } while (behind(spark, "emb") > 0);
        double rate = changes / seconds(start);
        check(spark, "emb", changes, "the embedded service");
        return rate;
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
