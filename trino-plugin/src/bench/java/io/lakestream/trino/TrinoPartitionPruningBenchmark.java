package io.lakestream.trino;

import static java.util.stream.Collectors.joining;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import io.trino.Session;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.QueryId;
import io.trino.spi.metrics.Metric;
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
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Issue 21's benchmark: a table partitioned by day over {@code --days} days (30), tiered and compacted, with a fresh
 * log tail in the last day. A query on one day against a full scan of the table: the bytes its splits open (lake
 * files and log segments, counted apart: connector metrics {@code lakestream.lakeFileBytes} and {@code
 * lakestream.logSegmentBytes}; goal at most 1/20 of the full scan's), and its time against Trino's stock Iceberg
 * connector on a compacted copy holding the same rows, tail included (goal at most 1.1x). Both ratios come from one
 * run, in one Trino runner, the two sides interleaved round by round.
 *
 * <p>Options: {@code --days} (30), {@code --rows-per-day} (50,000), {@code --tail-rows} (20,000, all in the last
 * day), {@code --buckets} (2), {@code --warmup} (5 rounds), {@code --rounds} (7), {@code --log-compression} (the
 * table property {@code log_compression} of both tables: {@code zstd}, the default of new tables, or {@code none}).
 * The log figure covers the segments
 * a split carries (up to 128 per split); while the log of a partitioned table is one log per bucket, a query on any
 * day opens the whole tail of every bucket, so the log bytes of a one-day query on an older day equal the full
 * scan's.
 */
public final class TrinoPartitionPruningBenchmark {
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    private static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 1);
    private static final String TABLE = "daily";
    private static final String COPY = "daily_compacted";
    private static final String QUERY = "SELECT count(*), sum(qty), sum(price), max(region) FROM %s%s";

    /** Options of one run. */
    public record Options(
            int days, int rowsPerDay, int tailRows, int buckets, int warmup, int rounds, String logCompression) {
        static Options parse(String[] args) {
            String logCompression = LogCompression.DEFAULT.value();
            Map<String, Integer> values = new HashMap<>(Map.of(
                    "--days", 30,
                    "--rows-per-day", 50_000,
                    "--tail-rows", 20_000,
                    "--buckets", 2,
                    "--warmup", 5,
                    "--rounds", 7));
            for (int i = 0; i < args.length; i += 2) {
                if (args[i].equals("--log-compression") && i + 1 < args.length) {
                    logCompression = LogCompression.parse("of the benchmark", args[i + 1])
                            .value();
                    continue;
                }
                if (!values.containsKey(args[i]) || i + 1 == args.length) {
                    throw new IllegalArgumentException("unknown option or no value: " + args[i]);
                }
                values.put(args[i], Integer.parseInt(args[i + 1]));
            }
            return new Options(
                    values.get("--days"),
                    values.get("--rows-per-day"),
                    values.get("--tail-rows"),
                    values.get("--buckets"),
                    values.get("--warmup"),
                    values.get("--rounds"),
                    logCompression);
        }
    }

    /** Bytes a query's splits opened, lake and log apart. */
    public record Bytes(long lake, long log) {
        long total() {
            return lake + log;
        }
    }

    /** What one query on one day measured, against the full scan and the stock connector. */
    public record DayResult(
            String day,
            Bytes dayBytes,
            Bytes fullBytes,
            double oursSeconds,
            double stockSeconds,
            MaterializedResult rows) {
        double bytesRatio() {
            return (double) dayBytes.total() / fullBytes.total();
        }

        /** The lake layer alone: what partition pruning of the lake does, whatever the log holds. */
        double lakeBytesRatio() {
            return (double) dayBytes.lake() / fullBytes.lake();
        }

        double timeRatio() {
            return oursSeconds / stockSeconds;
        }
    }

    private final DistributedQueryRunner trino;
    private final Options options;

    private TrinoPartitionPruningBenchmark(DistributedQueryRunner trino, Options options) {
        this.trino = trino;
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Path warehouse = Files.createTempDirectory("lakestream-partition-bench");
        List<DayResult> results = run(warehouse, options, OUT);
        OUT.printf(
                "%nbytes goal <= %.3f of the full scan; time goal <= 1.10x the stock connector on the compacted copy%n",
                1 / 20.0);
        OUT.printf(
                "%-12s %14s %14s %14s %14s %9s %9s %10s %10s %8s%n",
                "day",
                "lake bytes",
                "log bytes",
                "full lake",
                "full log",
                "bytes",
                "lake only",
                "ours s",
                "stock s",
                "time");
        for (DayResult result : results) {
            OUT.printf(
                    "%-12s %,14d %,14d %,14d %,14d %9.4f %9.4f %10.3f %10.3f %7.2fx  %s%n",
                    result.day(),
                    result.dayBytes().lake(),
                    result.dayBytes().log(),
                    result.fullBytes().lake(),
                    result.fullBytes().log(),
                    result.bytesRatio(),
                    result.lakeBytesRatio(),
                    result.oursSeconds(),
                    result.stockSeconds(),
                    result.timeRatio(),
                    (result.bytesRatio() <= 1 / 20.0 ? "bytes met" : "bytes MISSED") + ", "
                            + (result.timeRatio() <= 1.1 ? "time met" : "time MISSED"));
        }
        System.exit(0);
    }

    /**
     * Sets up both tables in {@code warehouse} and measures a query on the last day (with the log tail) and on the
     * middle day (lake only): their rows equal the stock connector's on the copy, or the run fails. The set-up is
     * reported to {@code out}.
     */
    public static List<DayResult> run(Path warehouse, Options options, PrintStream out) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (DistributedQueryRunner trino = LakestreamQueryRunner.builder(warehouse)
                        .withStockIcebergCatalog()
                        .build();
                LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                RootAllocator allocator = new RootAllocator()) {
            long setup = System.nanoTime();
            TableTiering tiering = new TableTiering(
                    TieringConfig.builder()
                            .compactionDeleteFiles(1)
                            .compactionSmallFiles(2)
                            .retention(Duration.ofDays(1))
                            .build(),
                    allocator,
                    threads,
                    TieringHooks.NONE,
                    Clock.systemUTC());
            for (String name : List.of(TABLE, COPY)) {
                trino.execute(("CREATE TABLE lakestream.tests.%s (id bigint NOT NULL, ts timestamp(6), region varchar,"
                                + " qty integer, price double) WITH (partitioning = ARRAY['day(ts)'],"
                                + " bucket_key = ARRAY['id'], bucket_count = %d, log_compression = '%s')")
                        .formatted(name, options.buckets(), options.logCompression()));
                LakestreamTable table = catalog.loadTable(TableIdentifier.of("tests", name));
                append(table, allocator, options, 0, options.days() * options.rowsPerDay(), false);
                if (name.equals(COPY)) {
                    // the copy holds the tail too, tiered and compacted: the stock connector reads the same rows
                    append(table, allocator, options, options.days() * options.rowsPerDay(), options.tailRows(), true);
                }
                // tiering rounds compact each bucket's small files as they go (compactionSmallFiles)
                TrinoUnionReadBenchmark.tierFully(tiering, table);
            }
            // the fresh tail: appended after tiering, so it is in the log only
            append(
                    catalog.loadTable(TableIdentifier.of("tests", TABLE)),
                    allocator,
                    options,
                    options.days() * options.rowsPerDay(),
                    options.tailRows(),
                    true);
            out.printf(
                    "table: %d days x %,d rows, %,d rows of log tail in the last day, %d buckets, log_compression %s;"
                            + " %d cores; set-up %.0f s%n",
                    options.days(),
                    options.rowsPerDay(),
                    options.tailRows(),
                    options.buckets(),
                    options.logCompression(),
                    Runtime.getRuntime().availableProcessors(),
                    (System.nanoTime() - setup) / 1e9);
            out.println("JVM: "
                    + ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                            .filter(argument -> argument.startsWith("-X"))
                            .collect(joining(" ")));
            TrinoPartitionPruningBenchmark bench = new TrinoPartitionPruningBenchmark(trino, options);
            Bytes full = bench.bytes(QUERY.formatted("lakestream.tests." + TABLE, ""));
            List<DayResult> results = new ArrayList<>();
            for (LocalDate day :
                    List.of(FIRST_DAY.plusDays(options.days() - 1), FIRST_DAY.plusDays(options.days() / 2))) {
                results.add(bench.measure(day, full));
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }

    private DayResult measure(LocalDate day, Bytes full) {
        String where =
                " WHERE ts >= TIMESTAMP '%s 00:00:00' AND ts < TIMESTAMP '%s 00:00:00'".formatted(day, day.plusDays(1));
        String ours = QUERY.formatted("lakestream.tests." + TABLE, where);
        String stock = QUERY.formatted("iceberg.tests." + COPY, where);
        MaterializedResult rows = trino.execute(ours);
        MaterializedResult stockRows = trino.execute(stock);
        if (!rows.getMaterializedRows().equals(stockRows.getMaterializedRows())) {
            throw new IllegalStateException("the union read of %s returned %s, the stock connector on the copy %s"
                    .formatted(day, rows.getMaterializedRows(), stockRows.getMaterializedRows()));
        }
        Session session = trino.getDefaultSession();
        for (int i = 0; i < options.warmup(); i++) {
            trino.execute(session, ours);
            trino.execute(session, stock);
        }
        List<Double> oursTimes = new ArrayList<>();
        List<Double> stockTimes = new ArrayList<>();
        for (int round = 0; round < options.rounds(); round++) {
            // alternate which side runs first, so that a change of the machine's load hits both
            if (round % 2 == 0) {
                oursTimes.add(seconds(ours));
                stockTimes.add(seconds(stock));
            } else {
                stockTimes.add(seconds(stock));
                oursTimes.add(seconds(ours));
            }
        }
        return new DayResult(day.toString(), bytes(ours), full, median(oursTimes), median(stockTimes), rows);
    }

    /** The lake and log bytes the query's splits opened, from the connector metrics summed over its operators. */
    private Bytes bytes(String sql) {
        QueryId id = trino.executeWithPlan(trino.getDefaultSession(), sql).queryId();
        Metrics metrics = TrinoUnionReadBenchmark.connectorMetrics(trino, id);
        return new Bytes(
                total(metrics, LakestreamMetrics.LAKE_FILE_BYTES), total(metrics, LakestreamMetrics.LOG_SEGMENT_BYTES));
    }

    private static long total(Metrics metrics, String name) {
        Metric<?> metric = metrics.getMetrics().get(name);
        if (metric == null) {
            throw new IllegalStateException(
                    "the scan reported no " + name + ": " + metrics.getMetrics().keySet());
        }
        return ((LongCount) metric).getTotal();
    }

    private double seconds(String sql) {
        long start = System.nanoTime();
        trino.execute(sql);
        return (System.nanoTime() - start) / 1e9;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        return sorted.get(sorted.size() / 2);
    }

    /**
     * Appends {@code count} rows with ids from {@code firstId}: spread evenly over the days, or all in the last day
     * ({@code lastDay}), in commits of at most 200,000 rows.
     */
    private static void append(
            LakestreamTable table, RootAllocator allocator, Options options, long firstId, int count, boolean lastDay) {
        Random random = new Random(firstId);
        int commitRows = 200_000;
        for (int done = 0; done < count; ) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                int end = Math.min(count, done + commitRows);
                for (; done < end; done++) {
                    long id = firstId + done;
                    int day = lastDay ? options.days() - 1 : (int) (id % options.days());
                    writer.append(Map.of(
                            "id",
                            id,
                            "ts",
                            LocalDateTime.of(FIRST_DAY.plusDays(day), LocalTime.ofSecondOfDay(random.nextInt(86_400))),
                            "region",
                            "region-" + random.nextInt(8),
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
