package io.lakestream.trino;

import static java.util.stream.Collectors.joining;

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
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.ToDoubleFunction;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
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
 *       connector reading the same logical state tiered as equality deletes (goal: at most 0.7);
 * </ol>
 *
 * and three references without a goal: (3) what the equality deletes cost the stock connector, (4) what the
 * union read costs over a read of our own lake alone, (5) (2) with the lake key cache off.
 *
 * <p>Every table of every section is written and tiered first. Then each query of each section runs once on
 * both sides, printed as the cold first runs; then a JVM warm-up runs every query of every section on both
 * sides, interleaved, for {@code --warmup-rounds} rounds (5) and at least {@code --warmup-seconds} (0), and then
 * until two rounds in a row are not more than 3% faster than every round before them (at most {@code
 * --warmup-max-rounds}, 20), so that the sections measured first are not measured while the JIT still compiles
 * (after five rounds the round times were still falling by 5-10% a round).
 * Then each section: both sides return the same rows (checked where there is a goal), {@code --warmup} (2)
 * more interleaved rounds, and {@code --rounds} (5) timed rounds, the two sides interleaved round by round
 * (alternating which runs first) so that a change of the machine's load hits both. Other options: {@code
 * --rows} (3,000,000), {@code --buckets} (4). {@code --profile-tail-seconds N} replaces the measurements: after
 * the warm-up it records a JFR profile of the union read with the 5% tail for N seconds, then one of the same
 * query on {@code "t$lake"} (the same lake files, no tail) for N seconds, each into its own file.
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
    /** Fully tiered and compacted, no log tail: section (1), and the compacted side of (3). */
    private static final String COMPACTED = "bench";
    /** The same rows, then 5% of the keys updated in its log tail (the union read of (2), (4), (5)). */
    private static final String TAIL = "bench_tail";
    /** The same rows and update as {@link #TAIL}, the update tiered as equality deletes (the stock side of (2)). */
    private static final String DELETES = "bench_deletes";

    private final DistributedQueryRunner trino;
    private final int rounds;
    private final int warmup;

    private TrinoUnionReadBenchmark(DistributedQueryRunner trino, int rounds, int warmup) {
        this.trino = trino;
        this.rounds = rounds;
        this.warmup = warmup;
    }

    /** The same query on two sides, timed against each other. */
    private record Comparison(String name, Session session, String ours, String theirs) {}

    /**
     * A section of the output: comparisons with one goal (NaN: a reference without a goal); both sides must return
     * the same rows where they read the same logical state (every section with a goal, and those made {@link #withSameState}).
     */
    private record Section(
            String title,
            String oursLabel,
            String theirsLabel,
            double goal,
            List<Comparison> queries,
            boolean sameState) {
        /** The same section, its two sides known to read the same logical state: their rows are compared. */
        Section withSameState() {
            return new Section(title, oursLabel, theirsLabel, goal, queries, true);
        }

        static Section of(
                String title,
                String oursLabel,
                String theirsLabel,
                double goal,
                Session session,
                int queries,
                String ours,
                String theirs) {
            List<Comparison> comparisons = new ArrayList<>();
            for (int q = 0; q < queries; q++) {
                comparisons.add(new Comparison(
                        SCAN_NAMES.get(q),
                        session,
                        SCANS.get(q).formatted(ours),
                        SCANS.get(q).formatted(theirs)));
            }
            return new Section(title, oursLabel, theirsLabel, goal, List.copyOf(comparisons), !Double.isNaN(goal));
        }
    }

    public static void main(String[] args) throws Exception {
        int rows = 3_000_000;
        int buckets = 4;
        int rounds = 5;
        int warmup = 2;
        int warmupRounds = 5;
        int warmupMaxRounds = 20;
        int warmupSeconds = 0;
        int profileSeconds = 0;
        for (int i = 0; i + 1 < args.length; i += 2) {
            int value = Integer.parseInt(args[i + 1]);
            switch (args[i]) {
                case "--rows" -> rows = value;
                case "--buckets" -> buckets = value;
                case "--rounds" -> rounds = value;
                case "--warmup" -> warmup = value;
                case "--warmup-rounds" -> warmupRounds = value;
                case "--warmup-seconds" -> warmupSeconds = value;
                case "--warmup-max-rounds" -> warmupMaxRounds = value;
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
            long setupStart = System.nanoTime();
            // three tables with the same rows, tiered and compacted; then the same 5% update in TAIL's log tail
            // (the union read) and in DELETES, tiered as equality deletes (what the stock connector reads), so
            // that every section's state exists before the first measurement and both sides of a section are
            // measured in the same rounds, interleaved
            TieringConfig compacting = TieringConfig.builder()
                    .compactionDeleteFiles(1)
                    .retention(Duration.ofDays(1))
                    .build();
            Map<String, LakestreamTable> tables = new LinkedHashMap<>();
            for (String name : List.of(COMPACTED, TAIL, DELETES)) {
                trino.execute("CREATE TABLE lakestream.tests." + name
                        + " (id bigint, name varchar, qty integer, price double)"
                        + " WITH (primary_key = ARRAY['id'], bucket_count = " + buckets + ")");
                LakestreamTable table = catalog.loadTable(TableIdentifier.of("tests", name));
                write(table, allocator, new Random(7), rows, rows, true);
                tierFully(
                        new TableTiering(compacting, allocator, threads, TieringHooks.NONE, Clock.systemUTC()), table);
                tables.put(name, table);
            }
            for (String name : List.of(TAIL, DELETES)) {
                write(tables.get(name), allocator, new Random(11), rows / 20, rows, false);
            }
            TieringConfig noCompaction = TieringConfig.builder()
                    .compactionDeleteFiles(Integer.MAX_VALUE)
                    .compactionSmallFiles(Integer.MAX_VALUE)
                    .retention(Duration.ofDays(1))
                    .build();
            tierFully(
                    new TableTiering(noCompaction, allocator, threads, TieringHooks.NONE, Clock.systemUTC()),
                    tables.get(DELETES));
            OUT.printf(
                    "table: %,d rows, %d buckets, primary key id; %d cores; set-up (3 tables) %.0f s%n",
                    rows, buckets, Runtime.getRuntime().availableProcessors(), (System.nanoTime() - setupStart) / 1e9);
            // heap and collector settings move the timings: printed with them (./lakestream sets Trino's own)
            OUT.println("JVM: "
                    + ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                            .filter(argument -> argument.startsWith("-X"))
                            .collect(joining(" ")));

            List<Section> sections = sections(trino.getDefaultSession());
            TrinoUnionReadBenchmark bench = new TrinoUnionReadBenchmark(trino, rounds, warmup);
            bench.printColdRuns(sections);
            bench.warmUp(sections, warmupRounds, warmupSeconds, warmupMaxRounds);
            if (profileSeconds > 0) {
                String sql = SCANS.getFirst();
                bench.profile(sql.formatted("lakestream.tests." + TAIL), "union", profileSeconds);
                bench.profile(sql.formatted("lakestream.tests.\"" + TAIL + "$lake\""), "lake", profileSeconds);
                System.exit(0);
            }
            OUT.printf("%nmedian of %d interleaved rounds after %d warm-up rounds per query%n", rounds, warmup);
            for (Section section : sections) {
                bench.measure(section);
            }
            bench.printMergeCounters(
                    "a union read after the sections", SCANS.getFirst().formatted("lakestream.tests." + TAIL));
        } finally {
            threads.shutdownNow();
        }
        System.exit(0);
    }

    private static List<Section> sections(Session session) {
        String tail = "lakestream.tests." + TAIL;
        String deletes = "iceberg.tests." + DELETES;
        return List.of(
                Section.of(
                        "(1) fully tiered and compacted: lakestream.tests.bench vs iceberg.tests.bench",
                        "lakestream s",
                        "iceberg s",
                        1.1,
                        session,
                        SCANS.size(),
                        "lakestream.tests." + COMPACTED,
                        "iceberg.tests." + COMPACTED),
                Section.of(
                        "(2) 5% of the keys updated: lakestream.tests.bench_tail, union read with the updates in the"
                                + " log tail, vs iceberg.tests.bench_deletes, the same state tiered as equality deletes",
                        "lakestream s", "iceberg s", 0.7, session, 2, tail, deletes),
                // what the equality deletes cost the stock connector (the goal of (2) assumes a high cost)
                Section.of(
                        "(3) reference, no goal: the stock connector on bench_deletes (5% as equality deletes)"
                                + " vs on bench (compacted, without the update)",
                        "deletes s", "compacted s", Double.NaN, session, 2, deletes, "iceberg.tests." + COMPACTED),
                // what the merge costs us: the union read against a scan of our own lake alone (no tail, no key)
                Section.of(
                        "(4) reference, no goal: the union read of bench_tail (5% in the log tail) vs"
                                + " \"bench_tail$lake\" (the same lake files, the tail not read)",
                        "union s",
                        "lake only s",
                        Double.NaN,
                        session,
                        2,
                        tail,
                        "lakestream.tests.\"" + TAIL + "$lake\""),
                // (2) without the lake key cache: each merge decodes the key column of the lake files
                Section.of(
                                "(5) reference, no goal: (2) with the lake key cache off (session property"
                                        + " lake_key_cache_enabled = false)",
                                "lakestream s",
                                "iceberg s",
                                Double.NaN,
                                Session.builder(session)
                                        .setCatalogSessionProperty("lakestream", "lake_key_cache_enabled", "false")
                                        .build(),
                                2,
                                tail,
                                deletes)
                        .withSameState(),
                // the state between two compactions: lake files with equality delete files, on both connectors
                Section.of(
                                "(6) reference, no goal: lakestream.tests.bench_deletes (5% tiered as equality deletes, no"
                                        + " tail; deletes applied on Trino's Parquet pages) vs iceberg.tests.bench_deletes",
                                "lakestream s",
                                "iceberg s",
                                Double.NaN,
                                session,
                                SCANS.size(),
                                "lakestream.tests." + DELETES,
                                deletes)
                        .withSameState());
    }

    /**
     * The first run of every query of every section, in section order, ours then theirs: what a query costs
     * before the JIT has compiled its code (and, for the union reads, before the lake key cache holds the
     * files' keys). Each depends on what ran before it, so these are printed as they are, with no ratio goal.
     */
    private void printColdRuns(List<Section> sections) {
        OUT.println("\ncold first runs (each query's first run in this JVM, in this order; no warm-up)");
        header("ours s", "theirs s");
        Map<Session, Set<String>> ran = new IdentityHashMap<>();
        for (Section section : sections) {
            for (Comparison query : section.queries()) {
                Set<String> ranInSession = ran.computeIfAbsent(query.session(), _ -> new HashSet<>());
                Optional<Run> ours = ranInSession.add(query.ours())
                        ? Optional.of(run(query.session(), query.ours()))
                        : Optional.empty();
                Optional<Run> theirs = ranInSession.add(query.theirs())
                        ? Optional.of(run(query.session(), query.theirs()))
                        : Optional.empty();
                if (ours.isEmpty() && theirs.isEmpty()) {
                    continue;
                }
                OUT.printf(
                        "%-28s %14s %14s %8s    %-14s %s%n",
                        section.title().substring(0, 4) + query.name(),
                        ours.map(run -> "%.3f".formatted(run.timing().seconds()))
                                .orElse("(ran above)"),
                        theirs.map(run -> "%.3f".formatted(run.timing().seconds()))
                                .orElse("(ran above)"),
                        ours.isPresent() && theirs.isPresent()
                                ? "%.2f"
                                        .formatted(ours.get().timing().seconds()
                                                / theirs.get().timing().seconds())
                                : "",
                        "",
                        ours.isPresent() && theirs.isPresent()
                                ? "%.2f"
                                        .formatted(ours.get().timing().cpuSeconds()
                                                / theirs.get().timing().cpuSeconds())
                                : "");
                if (ours.isPresent() && query.ours().equals(SCANS.getFirst().formatted("lakestream.tests." + TAIL))) {
                    printMergeCounters("  its union read", ours.get().id());
                }
            }
        }
    }

    /**
     * Runs every query of every section on both sides, interleaved (which side runs first alternates by round),
     * until both {@code minRounds} rounds and {@code minSeconds} have passed: both sides get the same warm-up.
     */
    private void warmUp(List<Section> sections, int minRounds, int minSeconds, int maxRounds) {
        long start = System.nanoTime();
        long minNanos = minSeconds * 1_000_000_000L;
        int round = 0;
        // each round's seconds: they fall while the JIT compiles, and level off once it is done
        StringBuilder roundSeconds = new StringBuilder();
        long fastestBefore = Long.MAX_VALUE;
        int levelRounds = 0;
        while (round < maxRounds && (round < minRounds || System.nanoTime() - start < minNanos || levelRounds < 2)) {
            long roundStart = System.nanoTime();
            for (Section section : sections) {
                for (Comparison query : section.queries()) {
                    runBoth(query, round);
                }
            }
            long nanos = System.nanoTime() - roundStart;
            roundSeconds.append(" %.1f".formatted(nanos / 1e9));
            // still warming while a round beats every earlier one by more than 3%; done after two rounds that do not
            levelRounds = nanos < fastestBefore * 0.97 ? 0 : levelRounds + 1;
            fastestBefore = Math.min(fastestBefore, nanos);
            round++;
        }
        OUT.printf(
                "%nJVM warm-up: %d rounds of every query of every section, both sides interleaved, %.0f s; rounds (s):%s%n",
                round, (System.nanoTime() - start) / 1e9, roundSeconds);
    }

    /** Runs one query for a while, recording a JFR profile of that time alone into a file of its own. */
    private void profile(String sql, String label, int seconds) throws IOException {
        Path file = Files.createTempFile("lakestream-trino-profile-" + label + "-", ".jfr");
        int runs = 0;
        try (Recording recording = new Recording(Configuration.getConfiguration("profile"))) {
            recording.start();
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            while (System.nanoTime() < end) {
                trino.execute(sql);
                runs++;
            }
            recording.stop();
            recording.dump(file);
        } catch (ParseException e) {
            throw new IllegalStateException("the JDK's JFR profile settings cannot be read", e);
        }
        OUT.printf("profile of '%s': %d runs in %d s, %s%n", sql, runs, seconds, file);
    }
    /** Tiers until the log has nothing left: one pass tiers at most the configured records per bucket. */
    public static void tierFully(TableTiering tiering, LakestreamTable table) {
        while (tiering.tier(table).changesTiered() > 0) {
            // another round
        }
    }

    /** Prints the union read counters of a query that ran (merged in key order: see docs/trino.md). */
    private void printMergeCounters(String label, QueryId id) {
        Metrics metrics = connectorMetrics(trino, id);
        OUT.printf(
                "%s: union read counters: lake rows %,d, hidden %,d, merged in key order %,d;"
                        + " lake key cache hits %d, misses %d (files)%n",
                label,
                total(metrics, LakestreamMetrics.LAKE_ROWS),
                total(metrics, LakestreamMetrics.LAKE_ROWS_HIDDEN),
                total(metrics, LakestreamMetrics.LAKE_ROWS_IN_KEY_ORDER),
                total(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS),
                total(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES));
    }

    /** The connector metrics of a query that ran, summed over its operators (and so over its splits). */
    static Metrics connectorMetrics(DistributedQueryRunner trino, QueryId id) {
        return trino
                .getCoordinator()
                .getQueryManager()
                .getFullQueryInfo(id)
                .getQueryStats()
                .getOperatorSummaries()
                .stream()
                .map(OperatorStats::getConnectorMetrics)
                .reduce(Metrics.EMPTY, Metrics::mergeWith);
    }

    /** Runs a union read once and prints its time and merge counters. */
    private void printMergeCounters(String label, String sql) {
        Run run = run(trino.getDefaultSession(), sql);
        printMergeCounters("%s (%.3f s)".formatted(label, run.timing().seconds()), run.id());
    }

    private static long total(Metrics metrics, String name) {
        return metrics.getMetrics().get(name) instanceof Count<?> count ? count.getTotal() : 0;
    }

    private static void header(String left, String right) {
        OUT.printf("%-28s %14s %14s %8s    %-14s %s%n", "query", left, right, "ratio", "goal", "CPU s ratio");
    }

    /**
     * Times each query of a section on both sides in interleaved rounds, after its own warm-up, and prints the
     * ratio of their medians; with a goal, both sides must return the same rows (checked).
     */
    private void measure(Section section) {
        OUT.println("\n" + section.title());
        header(section.oursLabel(), section.theirsLabel());
        for (Comparison query : section.queries()) {
            MaterializedResult a = trino.execute(query.session(), query.ours());
            MaterializedResult b = trino.execute(query.session(), query.theirs());
            // a reference comparison (no goal) reads two different states: only their sizes match
            if (section.sameState() && !a.getMaterializedRows().equals(b.getMaterializedRows())) {
                throw new IllegalStateException(
                        "different results: %s vs %s".formatted(a.getMaterializedRows(), b.getMaterializedRows()));
            }
            for (int i = 0; i < warmup; i++) {
                runBoth(query, i);
            }
            List<Timing> oursTimings = new ArrayList<>();
            List<Timing> theirTimings = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                Timing[] both = runBoth(query, round);
                oursTimings.add(both[0]);
                theirTimings.add(both[1]);
            }
            double oursSeconds = median(oursTimings, Timing::seconds);
            double theirSeconds = median(theirTimings, Timing::seconds);
            double ratio = oursSeconds / theirSeconds;
            double goal = section.goal();
            String verdict = Double.isNaN(goal) ? "" : "<=%.1f %s".formatted(goal, ratio <= goal ? "met" : "MISSED");
            // CPU seconds of the whole process: less sensitive than wall time to other programs on the machine
            double cpuRatio = median(oursTimings, Timing::cpuSeconds) / median(theirTimings, Timing::cpuSeconds);
            OUT.printf(
                    "%-28s %14.3f %14.3f %8.2f    %-14s %.2f%n",
                    query.name(), oursSeconds, theirSeconds, ratio, verdict, cpuRatio);
        }
    }

    /**
     * Runs a query on both sides, ours first in even rounds and theirs first in odd ones, so that neither
     * always finds the other's warm caches; returns ours and theirs.
     */
    private Timing[] runBoth(Comparison query, int round) {
        Timing[] both = new Timing[2];
        if (round % 2 == 0) {
            both[0] = time(query.session(), query.ours());
            both[1] = time(query.session(), query.theirs());
        } else {
            both[1] = time(query.session(), query.theirs());
            both[0] = time(query.session(), query.ours());
        }
        return both;
    }

    /** Wall and process CPU seconds of one query. */
    private record Timing(double seconds, double cpuSeconds) {}

    private Timing time(Session session, String sql) {
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        trino.execute(session, sql);
        return new Timing((System.nanoTime() - start) / 1e9, (processCpuNanos() - startCpu) / 1e9);
    }

    /** One run of a query: its time and id (for its counters). */
    private record Run(Timing timing, QueryId id) {}

    /** {@link #time} that also keeps the query's id. */
    private Run run(Session session, String sql) {
        long startCpu = processCpuNanos();
        long start = System.nanoTime();
        QueryId id = trino.executeWithPlan(session, sql).queryId();
        return new Run(new Timing((System.nanoTime() - start) / 1e9, (processCpuNanos() - startCpu) / 1e9), id);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static double median(List<Timing> timings, ToDoubleFunction<Timing> value) {
        double[] values = timings.stream().mapToDouble(value).sorted().toArray();
        return values[values.length / 2];
    }

    /**
     * Writes {@code count} rows of the benchmark's table ({@code id bigint, name varchar, qty integer, price double}):
     * keys 0..count-1, or upserts of distinct random existing keys.
     */
    public static void write(
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
