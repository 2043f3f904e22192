package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * Structured Streaming through the Lakestream source, two measurements in one run (docs/benchmarks.md,
 * "spark-stream"):
 *
 * <ol>
 *   <li><b>Commit-to-visible latency</b>: a stream of an append-only table with a 100 ms processing-time
 *       trigger into {@code foreachBatch}; after 20 warm-up commits, {@code --commits} Java-writer commits of one row each, paced
 *       {@code --pace-ms} apart; per commit, the time from {@code commit()} returning to the row reaching
 *       {@code foreachBatch} on the driver; p50 and p99.
 *   <li><b>Throughput against Spark's stock Iceberg stream</b>: {@code --rows} rows appended by Spark INSERTs
 *       and tiered (Iceberg appends, no compaction); our stream reads them from the log ({@code
 *       startup.mode=earliest}), the stock Iceberg runtime ({@link StockIcebergSpark}) streams the same rows
 *       from the lake's snapshots; both with {@code Trigger.AvailableNow} into Spark's no-op sink, alternating,
 *       median of {@code --rounds} after {@code --warmup}; rows per second and the ratio (ours / stock time).
 * </ol>
 *
 * The load average is printed before and after.
 */
public final class SparkStreamBenchmark {
    private static final String NS = "bench_stream";
    private static final int WARMUP_COMMITS = 20;

    /** What a run measured. */
    record Result(
            int commits,
            double p50Millis,
            double p99Millis,
            long rows,
            long oursRows,
            long stockRows,
            double oursSeconds,
            double stockSeconds) {
        double ratio() {
            return oursSeconds / stockSeconds;
        }
    }

    private SparkStreamBenchmark() {}

    public static void main(String[] args) throws Exception {
        run(args);
    }

    static Result run(String[] args) throws Exception {
        int commits = (int) arg(args, "--commits", 200);
        long paceMillis = arg(args, "--pace-ms", 37);
        long rows = arg(args, "--rows", 1_000_000);
        int insertCommits = (int) arg(args, "--insert-commits", 10);
        int warmup = (int) arg(args, "--warmup", 1);
        int rounds = (int) arg(args, "--rounds", 3);
        SparkTesting testing = SparkTesting.get();
        String run = Long.toString(System.nanoTime(), 36);
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        System.out.printf(Locale.ROOT, "load average before: %.2f%n", loadAverage());

        StreamDurations durations = new StreamDurations();
        StreamCpu cpu = new StreamCpu();
        testing.spark().streams().addListener(durations);
        double[] latencies;
        try {
            latencies = latencies(testing, "latency_" + run, commits, paceMillis, durations, cpu);
        } finally {
            testing.spark().streams().removeListener(durations);
        }
        double p50 = percentile(latencies, 50);
        double p99 = percentile(latencies, 99);
        System.out.printf(
                Locale.ROOT,
                "commit-to-visible, 100 ms trigger, %d commits: p50 %.0f ms, p99 %.0f ms, max %.0f ms (goal p99 < 1000 ms)%n",
                commits,
                p50,
                p99,
                latencies[latencies.length - 1]);
        durations.print();
        cpu.print();
        if (rows == 0) {
            System.out.printf(Locale.ROOT, "load average after: %.2f%n", loadAverage());
            return new Result(commits, p50, p99, 0, 0, 0, 0, 0);
        }

        String table = "throughput_" + run;
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (StockIcebergSpark stock = new StockIcebergSpark(testing.warehouseDirectory())) {
            appendAndTier(testing, table, rows, insertCommits, threads);
            List<Double> ours = new ArrayList<>();
            List<Double> theirs = new ArrayList<>();
            long oursRows = 0;
            long stockRows = 0;
            for (int round = 0; round < warmup + rounds; round++) {
                long start = System.nanoTime();
                oursRows = streamOurs(testing, table);
                double oursSeconds = (System.nanoTime() - start) / 1e9;
                start = System.nanoTime();
                stockRows = stock.streamAll(StockIcebergSpark.CATALOG + "." + NS + "." + table, checkpoint());
                double stockSeconds = (System.nanoTime() - start) / 1e9;
                if (round >= warmup) {
                    ours.add(oursSeconds);
                    theirs.add(stockSeconds);
                }
                System.out.printf(
                        Locale.ROOT,
                        "round %d%s: ours %.2f s (%d rows), stock Iceberg %.2f s (%d rows)%n",
                        round,
                        round < warmup ? " (warm-up)" : "",
                        oursSeconds,
                        oursRows,
                        stockSeconds,
                        stockRows);
            }
            Result result = new Result(commits, p50, p99, rows, oursRows, stockRows, median(ours), median(theirs));
            System.out.printf(
                    Locale.ROOT,
                    "append-only stream of %d rows, median of %d: ours %.2f s (%.0f rows/s), stock Iceberg %.2f s (%.0f rows/s), ratio ours/stock %.2f (goal <= 1)%n",
                    rows,
                    rounds,
                    result.oursSeconds(),
                    rows / result.oursSeconds(),
                    result.stockSeconds(),
                    rows / result.stockSeconds(),
                    result.ratio());
            System.out.printf(Locale.ROOT, "load average after: %.2f%n", loadAverage());
            return result;
        } finally {
            threads.shutdownNow();
        }
    }

    /** Per commit, milliseconds from {@code commit()} returning to the row reaching foreachBatch; sorted. */
    private static double[] latencies(
            SparkTesting testing, String table, int commits, long paceMillis, StreamDurations durations, StreamCpu cpu)
            throws IOException, TimeoutException, StreamingQueryException, InterruptedException {
        testing.sql("CREATE TABLE ls.%s.%s (id BIGINT) TBLPROPERTIES ('bucket.num'='2')".formatted(NS, table));
        Map<Long, Long> seen = new ConcurrentHashMap<>();
        StreamingQuery query = testing.spark()
                .readStream()
                .option("startup.mode", "latest")
                .table("ls.%s.%s".formatted(NS, table))
                .writeStream()
                .option("checkpointLocation", checkpoint().toString())
                .trigger(Trigger.ProcessingTime("100 milliseconds"))
                .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, id) -> {
                    List<Row> rows = batch.collectAsList();
                    long now = System.nanoTime();
                    rows.forEach(row -> seen.putIfAbsent(row.getLong(0), now));
                })
                .start();
        long[] acknowledged = new long[commits];
        try {
            query.processAllAvailable();
            LakestreamTable lakestream = SparkTables.load(NS, table);
            // not measured: the first batches with rows load and compile the read path (seconds, once per JVM)
            for (long warmup = -1; warmup >= -WARMUP_COMMITS; warmup--) {
                try (LakestreamWriter writer =
                        new LakestreamWriter(lakestream, testing.warehouse().allocator())) {
                    writer.append(Map.of("id", warmup));
                    writer.commit();
                }
                Thread.sleep(paceMillis);
            }
            query.processAllAvailable();
            durations.measure(query.id());
            cpu.start(query.id());
            for (int commit = 0; commit < commits; commit++) {
                try (LakestreamWriter writer =
                        new LakestreamWriter(lakestream, testing.warehouse().allocator())) {
                    writer.append(Map.of("id", (long) commit));
                    writer.commit();
                }
                acknowledged[commit] = System.nanoTime();
                Thread.sleep(paceMillis);
            }
            query.processAllAvailable();
            cpu.stop(durations.batchesWithRows());
        } finally {
            query.stop();
        }
        double[] latencies = new double[commits];
        for (int commit = 0; commit < commits; commit++) {
            Long arrived = seen.get((long) commit);
            if (arrived == null) {
                throw new IllegalStateException("commit " + commit + " never reached the stream");
            }
            latencies[commit] = Math.max(0, arrived - acknowledged[commit]) / 1e6;
        }
        Arrays.sort(latencies);
        return latencies;
    }

    private static void appendAndTier(
            SparkTesting testing, String table, long rows, int commits, ExecutorService threads) {
        testing.sql(("CREATE TABLE ls.%s.%s (id BIGINT, name STRING, qty INT, price DOUBLE) "
                        + "TBLPROPERTIES ('bucket.num'='4')")
                .formatted(NS, table));
        long step = Math.max(1, rows / commits);
        for (long from = 0; from < rows; from += step) {
            testing.sql(("INSERT INTO ls.%s.%s SELECT id, concat('name-', id), CAST(id %% 1000 AS INT), id / 8.0 "
                            + "FROM range(%d, %d)")
                    .formatted(NS, table, from, Math.min(rows, from + step)));
        }
        TableTiering noCompaction = SparkTables.tiering(threads, Integer.MAX_VALUE, Integer.MAX_VALUE);
        SparkTables.tierAll(noCompaction, SparkTables.load(NS, table));
    }

    private static long streamOurs(SparkTesting testing, String table)
            throws IOException, TimeoutException, StreamingQueryException {
        StreamingQuery query = testing.spark()
                .readStream()
                .option("startup.mode", "earliest")
                .table("ls.%s.%s".formatted(NS, table))
                .writeStream()
                .format("noop")
                .option("checkpointLocation", checkpoint().toString())
                .trigger(Trigger.AvailableNow())
                .start();
        query.awaitTermination();
        long rows = 0;
        for (StreamingQueryProgress progress : query.recentProgress()) {
            rows += progress.numInputRows();
        }
        return rows;
    }

    private static Path checkpoint() throws IOException {
        return Files.createTempDirectory("lakestream-stream-bench");
    }

    private static double percentile(double[] sorted, int percent) {
        int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static long arg(String[] args, String name, long defaultValue) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Long.parseLong(args[i + 1].replace("_", ""));
            }
        }
        return defaultValue;
    }
}
