package io.lakestream.trino;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import io.trino.Session;
import io.trino.operator.OperatorStats;
import io.trino.spi.QueryId;
import io.trino.spi.metrics.Count;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToDoubleFunction;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The Lakestream connector against Trino's stock Iceberg connector, in one Trino runner, on the same
 * Iceberg table (issue 5's benchmark):
 *
 * <ol>
 *   <li>fully tiered and compacted: a scan of several columns, the same with a filter, and a point
 *       lookup by key, {@code lakestream.t} against {@code iceberg.t} (goal: ratio at most 1.1);
 *   <li>5% of the keys updated in the log tail: the Lakestream union read against the stock
 *       connector reading the same logical state tiered as equality deletes (goal: at most 0.7).
 * </ol>
 *
 * <p>Both sides return the same rows (checked) and are timed in interleaved rounds, so that a change of
 * the machine's load during the run hits both. Run: see docs/benchmarks.md; options {@code --rows}
 * (3,000,000), {@code --buckets} (4), {@code --rounds} (5), {@code --warmup} (2); {@code --profile-tail-seconds N}
 * skips the measurements after (1) and runs the union read with the 5% tail for N seconds, for a profiler.
 */
public final class TrinoUnionReadBenchmark {
    // Trino's logging takes over System.out once a server starts; results go to the real stdout
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    private static final List<String> SCANS = List.of(
            "SELECT count(*), sum(qty), sum(price), max(name) FROM %s",
            "SELECT count(*), sum(qty), max(name) FROM %s WHERE qty < 10",
            "SELECT id, name, qty, price FROM %s WHERE id = 1234567");
    private static final List<String> SCAN_NAMES =
            List.of("scan 4 columns", "scan with filter qty < 10", "point lookup");

    private final DistributedQueryRunner trino;
    private final Session session;
    private final int rounds;
    private final int warmup;

    private TrinoUnionReadBenchmark(DistributedQueryRunner trino, Session session, int rounds, int warmup) {
        this.session = session;
        this.trino = trino;
        this.rounds = rounds;
        this.warmup = warmup;
    }

    public static void main(String[] args) throws Exception {
        int rows = 3_000_000;
        int buckets = 4;
        int rounds = 5;
        int warmup = 2;
        int profileSeconds = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            int value = Integer.parseInt(args[i + 1]);
            switch (args[i]) {
                case "--rows" -> rows = value;
                case "--buckets" -> buckets = value;
                case "--rounds" -> rounds = value;
                case "--warmup" -> warmup = value;
                case "--profile-tail-seconds" -> profileSeconds = value;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Path warehouse = Files.createTempDirectory("lakestream-trino-bench");
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (DistributedQueryRunner trino = LakestreamQueryRunner.builder(warehouse)
                        .withStockIcebergCatalog()
                        .build();
                LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                RootAllocator allocator = new RootAllocator()) {
            // two tables with the same rows: "bench" keeps the 5% update in its log tail (the union read),
            // "bench_deletes" gets it tiered as equality deletes (what the stock connector reads), so
            // that both sides of (2) are measured in the same rounds, interleaved
            TieringConfig compacting = TieringConfig.builder()
                    .compactionDeleteFiles(1)
                    .retention(Duration.ofDays(1))
                    .build();
            List<LakestreamTable> tables = new ArrayList<>();
            for (String name : List.of("bench", "bench_deletes")) {
                trino.execute("CREATE TABLE lakestream.tests." + name
                        + " (id bigint, name varchar, qty integer, price double)"
                        + " WITH (primary_key = ARRAY['id'], bucket_count = " + buckets + ")");
                LakestreamTable table = catalog.loadTable(TableIdentifier.of("tests", name));
                write(table, allocator, new Random(7), rows, rows, true);
                tierFully(
                        new TableTiering(compacting, allocator, threads, TieringHooks.NONE, Clock.systemUTC()), table);
                tables.add(table);
            }
            TrinoUnionReadBenchmark bench =
                    new TrinoUnionReadBenchmark(trino, trino.getDefaultSession(), rounds, warmup);
            OUT.printf(
                    "table: %,d rows, %d buckets, primary key id; %d cores; median of %d interleaved rounds after %d warm-up%n",
                    rows, buckets, Runtime.getRuntime().availableProcessors(), rounds, warmup);

            OUT.println("\n(1) fully tiered and compacted: lakestream.tests.bench vs iceberg.tests.bench");
            bench.header("lakestream s", "iceberg s");
            bench.compareScans(SCANS.size(), "lakestream.tests.bench", "iceberg.tests.bench", 1.1);

            // 5% of the keys updated (the same keys and values in both tables); bench_deletes tiered
            // without compaction, i.e. with equality deletes
            for (LakestreamTable table : tables) {
                write(table, allocator, new Random(11), rows / 20, rows, false);
            }
            TieringConfig noCompaction = TieringConfig.builder()
                    .compactionDeleteFiles(Integer.MAX_VALUE)
                    .compactionSmallFiles(Integer.MAX_VALUE)
                    .retention(Duration.ofDays(1))
                    .build();
            tierFully(
                    new TableTiering(noCompaction, allocator, threads, TieringHooks.NONE, Clock.systemUTC()),
                    tables.get(1));
            if (profileSeconds > 0) {
                loopForProfiler(trino, SCANS.getFirst().formatted("lakestream.tests.bench"), profileSeconds);
                System.exit(0);
            }
            OUT.println("\n(2) 5% of the keys updated: lakestream.tests.bench, union read with the updates in the log"
                    + " tail, vs iceberg.tests.bench_deletes, the same state tiered as equality deletes");
            // the first merges of the tail find the lake key cache empty: one run each, reported as they are
            for (int q = 0; q < 2; q++) {
                bench.printMergeCounters(
                        "first run (key cache cold), " + SCAN_NAMES.get(q),
                        SCANS.get(q).formatted("lakestream.tests.bench"));
                double stock = bench.time(SCANS.get(q).formatted("iceberg.tests.bench_deletes"))
                        .seconds();
                OUT.printf("first run of the stock connector on bench_deletes: %.3f s%n", stock);
            }
            bench.header("lakestream s", "iceberg s");
            bench.compareScans(2, "lakestream.tests.bench", "iceberg.tests.bench_deletes", 0.7);
            bench.printMergeCounters("after (2)", SCANS.getFirst().formatted("lakestream.tests.bench"));
            // what the equality deletes cost the stock connector (the goal of (2) assumes a high cost)
            OUT.println("\n(3) reference, no goal: the stock connector on bench_deletes (5% as equality deletes)"
                    + " vs on bench (the compacted lake, the 5% not tiered there)");
            bench.header("deletes s", "compacted s");
            bench.compareScans(2, "iceberg.tests.bench_deletes", "iceberg.tests.bench", Double.NaN);
            // what the merge costs us: the union read against a scan of our own lake alone (no tail, no key column)
            OUT.println("\n(4) reference, no goal: the union read of bench (5% in the log tail) vs \"bench$lake\""
                    + " (the same lake files, the tail not read)");
            bench.header("union s", "lake only s");
            bench.compareScans(2, "lakestream.tests.bench", "lakestream.tests.\"bench$lake\"", Double.NaN);
            // (2) without the lake key cache: each merge decodes the key column of the lake files
            OUT.println("\n(5) reference, no goal: (2) with the lake key cache off (session property"
                    + " lake_key_cache_enabled = false)");
            TrinoUnionReadBenchmark noKeyCache = new TrinoUnionReadBenchmark(
                    trino,
                    Session.builder(trino.getDefaultSession())
                            .setCatalogSessionProperty("lakestream", "lake_key_cache_enabled", "false")
                            .build(),
                    rounds,
                    warmup);
            noKeyCache.header("lakestream s", "iceberg s");
            noKeyCache.compareScans(2, "lakestream.tests.bench", "iceberg.tests.bench_deletes", Double.NaN);
            noKeyCache.printMergeCounters("after (5)", SCANS.getFirst().formatted("lakestream.tests.bench"));
        } finally {
            threads.shutdownNow();
        }
        System.exit(0);
    }

    /** Tiers until the log has nothing left: one pass tiers at most the configured records per bucket. */
    private static void tierFully(TableTiering tiering, LakestreamTable table) {
        while (tiering.tier(table).changesTiered() > 0) {
            // another round
        }
    }

    /**
     * Runs one query for a while and prints when (epoch milliseconds), for a profiler started with the JVM:
     * its samples between the two times are of that query alone.
     */
    private static void loopForProfiler(DistributedQueryRunner trino, String sql, int seconds) {
        trino.execute(sql);
        OUT.printf("profiling '%s' from %d%n", sql, System.currentTimeMillis());
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        int runs = 0;
        while (System.nanoTime() < end) {
            trino.execute(sql);
            runs++;
        }
        OUT.printf("profiling ended at %d after %d runs%n", System.currentTimeMillis(), runs);
    }

    /**
     * Runs a union read once and prints its time and merge counters (how many lake rows were merged in key
     * order, see docs/trino.md, and the lake key cache's hits and misses, in lake files).
     */
    private void printMergeCounters(String label, String sql) {
        long start = System.nanoTime();
        QueryId id = trino.executeWithPlan(session, sql).queryId();
        double seconds = (System.nanoTime() - start) / 1e9;
        Metrics metrics =
                trino
                        .getCoordinator()
                        .getQueryManager()
                        .getFullQueryInfo(id)
                        .getQueryStats()
                        .getOperatorSummaries()
                        .stream()
                        .map(OperatorStats::getConnectorMetrics)
                        .reduce(Metrics.EMPTY, Metrics::mergeWith);
        OUT.printf(
                "%s: %.3f s; union read counters: lake rows %,d, hidden %,d, merged in key order %,d;"
                        + " lake key cache hits %d, misses %d (files)%n",
                label,
                seconds,
                total(metrics, LakestreamMetrics.LAKE_ROWS),
                total(metrics, LakestreamMetrics.LAKE_ROWS_HIDDEN),
                total(metrics, LakestreamMetrics.LAKE_ROWS_IN_KEY_ORDER),
                total(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS),
                total(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES));
    }

    private static long total(Metrics metrics, String name) {
        return metrics.getMetrics().get(name) instanceof Count<?> count ? count.getTotal() : 0;
    }

    /** {@link #compare} of the first {@code queries} scans on two tables. */
    private void compareScans(int queries, String ours, String theirs, double goal) {
        for (int q = 0; q < queries; q++) {
            compare(
                    SCAN_NAMES.get(q),
                    SCANS.get(q).formatted(ours),
                    SCANS.get(q).formatted(theirs),
                    goal);
        }
    }

    private void header(String left, String right) {
        OUT.printf("%-28s %14s %14s %8s    %-14s %s%n", "query", left, right, "ratio", "goal", "CPU s ratio");
    }

    /**
     * Runs both queries in interleaved rounds and prints the ratio of their medians; with a goal, they
     * must return the same rows (checked).
     */
    private void compare(String name, String ours, String stock, double goal) {
        MaterializedResult a = trino.execute(session, ours);
        MaterializedResult b = trino.execute(session, stock);
        // a reference comparison (no goal) reads two different states: only their sizes match
        if (!Double.isNaN(goal) && !a.getMaterializedRows().equals(b.getMaterializedRows())) {
            throw new IllegalStateException(
                    "different results: %s vs %s".formatted(a.getMaterializedRows(), b.getMaterializedRows()));
        }
        for (int i = 0; i < warmup; i++) {
            trino.execute(session, ours);
            trino.execute(session, stock);
        }
        List<Timing> oursTimings = new ArrayList<>();
        List<Timing> stockTimings = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            // alternate which side runs first, so neither always finds the other's warm caches
            if (round % 2 == 0) {
                oursTimings.add(time(ours));
                stockTimings.add(time(stock));
            } else {
                stockTimings.add(time(stock));
                oursTimings.add(time(ours));
            }
        }
        double oursSeconds = median(oursTimings, Timing::seconds);
        double stockSeconds = median(stockTimings, Timing::seconds);
        double ratio = oursSeconds / stockSeconds;
        String verdict = Double.isNaN(goal) ? "" : "<=%.1f %s".formatted(goal, ratio <= goal ? "met" : "MISSED");
        // CPU seconds of the whole process: less sensitive than wall time to other programs on the machine
        double cpuRatio = median(oursTimings, Timing::cpuSeconds) / median(stockTimings, Timing::cpuSeconds);
        OUT.printf(
                "%-28s %14.3f %14.3f %8.2f    %-14s %.2f%n", name, oursSeconds, stockSeconds, ratio, verdict, cpuRatio);
    }

    /** Wall and process CPU seconds of one query. */
    private record Timing(double seconds, double cpuSeconds) {}

    private Timing time(String sql) {
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        trino.execute(session, sql);
        return new Timing((System.nanoTime() - start) / 1e9, (processCpuNanos() - startCpu) / 1e9);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double median(List<Timing> timings, ToDoubleFunction<Timing> value) {
        double[] values = timings.stream().mapToDouble(value).sorted().toArray();
        return values[values.length / 2];
    }

    /** Writes {@code count} rows: keys 0..count-1, or upserts of distinct random existing keys. */
    private static void write(
            LakestreamTable table, RootAllocator allocator, Random random, int count, int keys, boolean newKeys) {
        int[] ids =
                newKeys ? null : random.ints(0, keys).distinct().limit(count).toArray();
        int commitRows = 200_000;
        for (int done = 0; done < count; ) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                int end = Math.min(count, done + commitRows);
                for (; done < end; done++) {
                    long id = newKeys ? done : ids[done];
                    writer.upsert(Map.of(
                            "id",
                            id,
                            "name",
                            "name-" + id + "-" + random.nextInt(1000),
                            "qty",
                            (int) (id % 100),
                            "price",
                            id * 0.5));
                }
                writer.commit();
            }
        }
    }
}
