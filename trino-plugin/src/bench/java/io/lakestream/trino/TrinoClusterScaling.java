package io.lakestream.trino;

import io.lakestream.write.LakestreamWriter;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner.MaterializedResultWithPlan;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * How a union read spreads over a Trino cluster (issue 20's scaling notes): a coordinator that runs no splits
 * and {@code --workers} (2) workers in one JVM; for a primary-key table of {@code --rows} (1,000,000) rows,
 * tiered, with 5% of the keys updated in the log tail, at 1, 2, 4 and 8 buckets: the splits each worker read,
 * the median time of {@code SELECT count(*), sum(v)} over {@code --rounds} (5) rounds after two warm-up rounds,
 * and the lake key cache's hits and misses per round (each worker caches the files it merges; splits do not stick
 * to a worker). Run: {@code mvn -o -q test-compile -pl trino-plugin -am}, then this class's {@code main} on the module's
 * test class path with the project's JVM flags (as {@code ./lakestream bench trino-union-read} runs its benchmark).
 *
 * <p>All nodes share the JVM and its cores: the times show what the bucket count does to one scan's
 * parallelism, not what more machines would add.
 */
public final class TrinoClusterScaling {
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

    private TrinoClusterScaling() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        int rows = Integer.parseInt(options.getOrDefault("rows", "1000000"));
        int workers = Integer.parseInt(options.getOrDefault("workers", "2"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "5"));
        Path warehouse = Files.createTempDirectory("lakestream-cluster-scaling");
        try (DistributedQueryRunner trino = LakestreamQueryRunner.builder(warehouse)
                        .setWorkerCount(workers)
                        .addCoordinatorProperty("node-scheduler.include-coordinator", "false")
                        .build();
                LakestreamTestTables tables = new LakestreamTestTables(warehouse)) {
            QueryTasksPerNode nodes = new QueryTasksPerNode(trino);
            OUT.printf(
                    "%s rows, 5%% of the keys in the log tail, coordinator + %s workers in one JVM (%s cores)%n",
                    rows, workers, Runtime.getRuntime().availableProcessors());
            OUT.println("buckets | splits per worker | median ms | key cache hits/misses per round");
            for (int buckets : new int[] {1, 2, 4, 8}) {
                String table = "scaling_" + buckets;
                trino.execute("CREATE TABLE " + table + " (id bigint, v bigint) WITH (primary_key = ARRAY['id'], "
                        + "bucket_count = " + buckets + ")");
                write(tables, table, rows, 1.0, 0);
                tables.tier(table);
                write(tables, table, rows, 0.05, 1);
                String sql = "SELECT count(*), sum(v) FROM " + table;
                for (int warmup = 0; warmup < 2; warmup++) {
                    trino.execute(sql);
                }
                List<Long> millis = new ArrayList<>();
                List<String> cache = new ArrayList<>();
                Map<String, Long> splits = Map.of();
                for (int round = 0; round < rounds; round++) {
                    long start = System.nanoTime();
                    MaterializedResultWithPlan result = trino.executeWithPlan(trino.getDefaultSession(), sql);
                    millis.add((System.nanoTime() - start) / 1_000_000);
                    splits = nodes.lakestreamSplits(result.queryId());
                    Metrics metrics = nodes.connectorMetrics(result.queryId());
                    cache.add(QueryTasksPerNode.count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS) + "/"
                            + QueryTasksPerNode.count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES));
                }
                millis.sort(Long::compare);
                OUT.printf("%7s | %17s | %9s | %s%n", buckets, splits.values(), millis.get(millis.size() / 2), cache);
            }
        }
    }

    /** Upserts {@code fraction} of the keys {@code [0, rows)} with values offset by {@code generation}, in one commit. */
    private static void write(LakestreamTestTables tables, String table, int rows, double fraction, int generation) {
        Random random = new Random(table.hashCode() + generation);
        try (LakestreamWriter writer = new LakestreamWriter(tables.load(table), tables.allocator())) {
            for (long id = 0; id < rows; id++) {
                if (fraction >= 1.0 || random.nextDouble() < fraction) {
                    writer.upsert(Map.of("id", id, "v", id + generation));
                }
            }
            writer.commit();
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new java.util.HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        return options;
    }
}
