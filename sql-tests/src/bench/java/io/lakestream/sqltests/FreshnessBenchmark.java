package io.lakestream.sqltests;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Freshness: the time from a committed write to the first Trino query that sees it, over many
 * commits, while the tiering service runs (every second) on the same table. Writes alternate
 * between the Java writer (one commit per row) and Spark SQL {@code INSERT}; the clock starts when
 * the write returns, i.e. when its log commit is published. Trino's stock Iceberg connector (the
 * lake only) is measured the same way on a sample of the commits, for comparison: it sees a write
 * only after a tiering round. Goal: union-read p99 under 100 ms. After the commits, the same
 * point queries with no write before them (and a constant SELECT) show what a Trino query costs here at all.
 *
 * <p>Run: {@code ./lakestream bench freshness [--commits N]}.
 */
public final class FreshnessBenchmark {
    // Trino's logging takes over System.out once a server starts; results go to the real stdout
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    private static final long GOAL_P99_MILLIS = 100;
    private static final int LAKE_SAMPLE_EVERY = 10;
    /** Warm-up goes on in steps of this many commits until the JIT is quiet ({@link #JIT_QUIET_SHARE}). */
    private static final int WARMUP_STEP = 10;
    /**
     * The JIT counts as quiet when, over one warm-up step, the compilation time of all the benchmark's JVMs
     * together is under this share of the step's wall time (of one core): a server that has run for a while.
     */
    private static final double JIT_QUIET_SHARE = 0.10;
    /** A commit that no union read shows for this long is a failure (the program would otherwise poll forever). */
    private static final long VISIBLE_TIMEOUT_NANOS = 120_000_000_000L;

    static final String SCHEMA_NAME = "freshness";
    static final String TABLE_NAME = "events";
    static final TableIdentifier TABLE = TableIdentifier.of(SCHEMA_NAME, TABLE_NAME);
    /** Trino queries through the Lakestream connector so far (the stock connector's are not counted). */
    private static long unionQueries;

    private FreshnessBenchmark() {}

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            // System.err belongs to Trino's logging by now: a failure would otherwise leave the JVM hanging silently
            OUT.println("freshness benchmark failed:");
            e.printStackTrace(OUT);
            System.exit(1);
        }
        System.exit(0);
    }

    /** Runs the program with {@code args}; prints its figures. @return the union reads' freshness in ms, one per commit */
    static List<Long> run(String[] args) throws Exception {
        int commits = 200;
        Optional<Path> traceFile = Optional.empty();
        Optional<Path> queryInfoDir = Optional.empty();
        boolean inProcess = false;
        int trinoWorkers = 0;
        int warmup = 20;
        int warmupMax = 1000;
        int floorSamples = 100;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--in-process")) {
                inProcess = true;
            } else if (args[i].equals("--warmup") && i + 1 < args.length) {
                warmup = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--warmup-max") && i + 1 < args.length) {
                warmupMax = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--floor-samples") && i + 1 < args.length) {
                floorSamples = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--trino-workers") && i + 1 < args.length) {
                trinoWorkers = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--commits") && i + 1 < args.length) {
                commits = Integer.parseInt(args[++i]);
            } else if (args[i].equals("--trace") && i + 1 < args.length) {
                traceFile = Optional.of(Path.of(args[++i]));
            } else if (args[i].equals("--query-info") && i + 1 < args.length) {
                queryInfoDir = Optional.of(Path.of(args[++i]));
            } else {
                System.err.println(
                        "usage: lakestream bench freshness [--commits N] [--trace FILE] [--in-process] [--trino-workers N]"
                                + " [--warmup N] [--warmup-max N] [--floor-samples N] [--query-info DIR]");
                System.exit(2);
            }
        }
        List<Long> javaWriter = new ArrayList<>();
        List<Long> sparkInsert = new ArrayList<>();
        List<Long> sparkInsertDuration = new ArrayList<>();
        List<Long> lakeOnly = new ArrayList<>();
        List<TrinoEngine.QueryPhases> unionPhases = new ArrayList<>();
        // with --trace FILE: each measured commit's wall-clock window (epoch ms when the write returned,
        // freshness ms, writer), to line up with a JFR recording of the same run
        List<String> trace = new ArrayList<>();
        Map<String, Long> readsBefore;
        long queriesBefore;
        String schema = TrinoEngine.CATALOG + "." + SCHEMA_NAME;
        String stockTable = "iceberg." + SCHEMA_NAME + ".events";
        try (FreshnessWriters writers =
                inProcess ? FreshnessWriters.inProcess() : FreshnessWriters.childJvms(trinoWorkers)) {
            TrinoEngine trino = writers.trino();
            trino.query("CREATE SCHEMA " + schema);
            trino.query("CREATE TABLE " + schema
                    + ".events (id bigint, note varchar) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
            writers.startTiering();
            String warmedUp = warmUp(writers, schema, stockTable, warmup, Math.max(warmup, warmupMax));
            Map<String, Long> jitBefore = writers.compilationMillis();
            long measureStart = System.nanoTime();
            readsBefore = trino.metadataReads();
            queriesBefore = unionQueries;
            double loadBefore = loadAverage();
            for (int i = 0; i < commits; i++) {
                long writeStart = System.nanoTime();
                boolean spark = writers.write(schema, i);
                long committed = System.nanoTime();
                long committedEpochMillis = System.currentTimeMillis();
                String pointQuery = "SELECT count(*) FROM " + schema + ".events WHERE id = " + i;
                long visible = awaitVisible(trino, pointQuery, committed);
                trino.lastQueryPhases(pointQuery).ifPresent(unionPhases::add);
                trace.add("%d,%d,%s".formatted(committedEpochMillis, visible, spark ? "spark" : "java"));
                if (spark) {
                    sparkInsert.add(visible);
                    sparkInsertDuration.add((committed - writeStart) / 1_000_000);
                } else {
                    javaWriter.add(visible);
                }
                if (i % LAKE_SAMPLE_EVERY == 0) {
                    // each wait lasts up to a tiering round, so only a sample
                    lakeOnly.add(
                            awaitVisible(trino, "SELECT count(*) FROM " + stockTable + " WHERE id = " + i, committed));
                }
            }
            String jitMeasured = jitSummary(jitBefore, writers.compilationMillis(), System.nanoTime() - measureStart);
            writers.stopTiering();
            if (queryInfoDir.isPresent()) {
                writeQueryInfo(trino, queryInfoDir.get(), schema, commits);
            }
            report(
                    trino,
                    commits,
                    javaWriter,
                    sparkInsert,
                    sparkInsertDuration,
                    lakeOnly,
                    unionPhases,
                    readsBefore,
                    queriesBefore,
                    loadBefore,
                    floorSamples,
                    List.of(warmedUp, "JIT compilation during the measured commits: " + jitMeasured),
                    inProcess
                            ? "Trino (a coordinator and 1 worker), Spark, the Java writer and tiering in one JVM"
                            : "only Trino (a coordinator and %d workers) in this JVM; the writers and tiering in JVMs of"
                                            .formatted(trinoWorkers)
                                    + " their own");
        }
        if (traceFile.isPresent()) {
            Files.write(traceFile.get(), trace);
        }
        List<Long> union = new ArrayList<>(javaWriter);
        union.addAll(sparkInsert);
        return union;
    }

    private static void report(
            TrinoEngine trino,
            int commits,
            List<Long> javaWriter,
            List<Long> sparkInsert,
            List<Long> sparkInsertDuration,
            List<Long> lakeOnly,
            List<TrinoEngine.QueryPhases> unionPhases,
            Map<String, Long> readsBefore,
            long queriesBefore,
            double loadBefore,
            int floorSamples,
            List<String> notes,
            String shape) {
        String schema = TrinoEngine.CATALOG + "." + SCHEMA_NAME;
        String stockTable = "iceberg." + SCHEMA_NAME + ".events";
        Map<String, Long> readsAfter = trino.metadataReads();
        long queries = unionQueries - queriesBefore;
        // what a query costs when nothing changes: the floor under the freshness figures, in the same run
        List<TrinoEngine.QueryPhases> unionFloorPhases = new ArrayList<>();
        List<TrinoEngine.QueryPhases> stockFloorPhases = new ArrayList<>();
        List<TrinoEngine.QueryPhases> constantPhases = new ArrayList<>();
        List<Long> unionQuery = queryLatencies(
                trino,
                "SELECT count(*) FROM " + schema + ".events WHERE id = %d",
                commits,
                floorSamples,
                unionFloorPhases);
        List<Long> stockQuery = queryLatencies(
                trino,
                "SELECT count(*) FROM " + stockTable + " WHERE id = %d",
                commits,
                floorSamples,
                stockFloorPhases);
        List<Long> constantQuery = queryLatencies(trino, "SELECT %d", commits, floorSamples, constantPhases);
        List<Long> union = new ArrayList<>(javaWriter);
        union.addAll(sparkInsert);
        OUT.printf(
                "%d commits (Java writer and Spark INSERT alternating), tiering every 1 s, %d cores; %s; load average"
                        + " %.2f at the first measured commit, %.2f after the floor%n",
                commits, Runtime.getRuntime().availableProcessors(), shape, loadBefore, loadAverage());
        notes.forEach(OUT::println);
        print("Trino union read after a Java writer commit", javaWriter);
        print("Trino union read after a Spark INSERT", sparkInsert);
        print("Trino union read, all commits", union);
        print("Trino stock Iceberg (lake only)", lakeOnly);
        print("Spark INSERT statement itself (not freshness)", sparkInsertDuration);
        OUT.println("The same point query with no write before it (after the commits, tiering stopped):");
        print("  Trino union read", unionQuery);
        print("  Trino stock Iceberg (lake only)", stockQuery);
        print("  Trino SELECT of a constant (no connector)", constantQuery);
        OUT.printf(
                "Lakestream connector per union-read query (%d queries, all nodes): %.2f catalog reads, %.2f log file reads%n",
                queries,
                perQuery(readsBefore, readsAfter, "catalogReads", queries),
                perQuery(readsBefore, readsAfter, "logFileReads", queries));
        OUT.printf(
                "  catalog reads by the background lake refresh (off the queries' path): %.2f%n",
                perQuery(readsBefore, readsAfter, "backgroundCatalogReads", queries));
        OUT.printf(
                "  log file reads by kind: %.2f commits read, %.2f next version looked for, %.2f identity records,"
                        + " %.2f checkpoints and hints%n",
                perQuery(readsBefore, readsAfter, "logCommitsRead", queries),
                perQuery(readsBefore, readsAfter, "logCommitsAbsent", queries),
                perQuery(readsBefore, readsAfter, "logIdentityReads", queries),
                perQuery(readsBefore, readsAfter, "logCheckpointReads", queries));
        OUT.println("Where Trino's time went (coordinator's query stats, ms, p50 / p99):");
        printPhases("  union read after a commit (the visible query)", unionPhases);
        printPhases("  union read, no write before it", unionFloorPhases);
        printPhases("  stock Iceberg, no write before it", stockFloorPhases);
        printPhases("  SELECT of a constant", constantPhases);
        long p99 = percentile(union, 99);
        OUT.printf(
                "goal: union read p99 < %d ms: %s (p99 %d ms)%n",
                GOAL_P99_MILLIS, p99 < GOAL_P99_MILLIS ? "met" : "MISSED", p99);
    }

    /**
     * Warms both write paths and the query paths (union and stock reads, as the measured loop runs them),
     * unmeasured: at least {@code min} commits, then on in steps of
     * {@link #WARMUP_STEP} until the JIT of all JVMs is quiet, at most {@code max} commits. Measuring while the JIT
     * still compiles (right after the JVMs started it took about one of the two cores) measures a server that
     * just started, not the one a user queries. Returns what it did, for the report.
     */
    private static String warmUp(FreshnessWriters writers, String schema, String stockTable, int min, int max)
            throws Exception {
        TrinoEngine trino = writers.trino();
        long start = System.nanoTime();
        long stepStart = start;
        Map<String, Long> stepJit = writers.compilationMillis();
        String lastStep = "no step measured";
        int commits = 0;
        while (commits < max) {
            long id = -1 - commits;
            writers.write(schema, id);
            long committed = System.nanoTime();
            awaitVisible(trino, "SELECT count(*) FROM " + schema + ".events WHERE id = " + id, committed);
            if (commits % LAKE_SAMPLE_EVERY == 0) {
                // the measured loop's stock reads too: their code paths would otherwise compile while it measures
                awaitVisible(trino, "SELECT count(*) FROM " + stockTable + " WHERE id = " + id, committed);
            }
            commits++;
            if (commits % WARMUP_STEP == 0) {
                Map<String, Long> jit = writers.compilationMillis();
                long now = System.nanoTime();
                double share = jitShare(stepJit, jit, now - stepStart);
                lastStep = jitSummary(stepJit, jit, now - stepStart);
                if (commits >= min && share < JIT_QUIET_SHARE) {
                    return "warm-up: %d commits in %d s, until the JIT of all JVMs took under %.0f%% of one core over %d commits (%s)"
                            .formatted(
                                    commits,
                                    (now - start) / 1_000_000_000L,
                                    JIT_QUIET_SHARE * 100,
                                    WARMUP_STEP,
                                    lastStep);
                }
                stepJit = jit;
                stepStart = now;
            }
        }
        return "warm-up: %d commits in %d s (--warmup-max; the JIT was not quiet: last step %s)"
                .formatted(commits, (System.nanoTime() - start) / 1_000_000_000L, lastStep);
    }

    private static double jitShare(Map<String, Long> before, Map<String, Long> after, long wallNanos) {
        long millis = 0;
        for (Map.Entry<String, Long> jvm : after.entrySet()) {
            millis += jvm.getValue() - before.getOrDefault(jvm.getKey(), jvm.getValue());
        }
        return millis / (wallNanos / 1_000_000.0);
    }

    /** Each JVM's JIT compilation time between two readings, in ms and as a share of the wall time. */
    private static String jitSummary(Map<String, Long> before, Map<String, Long> after, long wallNanos) {
        double wallMillis = wallNanos / 1_000_000.0;
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Long> jvm : after.entrySet()) {
            long millis = jvm.getValue() - before.getOrDefault(jvm.getKey(), jvm.getValue());
            parts.add("%s %d ms (%.0f%%)".formatted(jvm.getKey(), millis, 100 * millis / wallMillis));
        }
        return String.join(", ", parts) + " of %.1f s".formatted(wallMillis / 1000);
    }

    private static double loadAverage() {
        return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static double perQuery(Map<String, Long> before, Map<String, Long> after, String name, long queries) {
        return (after.getOrDefault(name, 0L) - before.getOrDefault(name, 0L)) / (double) Math.max(1, queries);
    }

    /** Milliseconds from {@code committedNanos} until {@code countQuery} returns 1. */
    private static long awaitVisible(TrinoEngine trino, String countQuery, long committedNanos)
            throws InterruptedException {
        boolean union = countQuery.contains(TrinoEngine.CATALOG + ".");
        LongSupplier count = () -> {
            if (union) {
                unionQueries++;
            }
            return ((Number) trino.query(countQuery).getFirst().getFirst()).longValue();
        };
        while (count.getAsLong() != 1) {
            if (System.nanoTime() - committedNanos > VISIBLE_TIMEOUT_NANOS) {
                throw new IllegalStateException("no answer of 1 to '%s' in %d s after its write returned"
                        .formatted(countQuery, VISIBLE_TIMEOUT_NANOS / 1_000_000_000L));
            }
            Thread.sleep(1);
        }
        return (System.nanoTime() - committedNanos) / 1_000_000;
    }

    /**
     * The coordinator's full query info (stages, tasks, pipelines, operators with their blocked and wall times) of
     * the union read that saw the last measured commit, and of the polls before it, and of one {@code SELECT}
     * constant run now: to see where a union read waits (docs/benchmarks.md, "freshness").
     */
    private static void writeQueryInfo(TrinoEngine trino, Path dir, String schema, int commits) throws IOException {
        Files.createDirectories(dir);
        String lastPoint = "SELECT count(*) FROM " + schema + ".events WHERE id = " + (commits - 1);
        // every poll of that commit (the last one saw it); no other query's text contains this one's
        List<String> union = trino.queryInfoJson(lastPoint);
        for (int i = 0; i < union.size(); i++) {
            Files.writeString(dir.resolve("union-after-commit-" + i + ".json"), union.get(i));
        }
        String constant = "SELECT 20261202";
        trino.query(constant);
        List<String> constantInfo = trino.queryInfoJson(constant);
        if (!constantInfo.isEmpty()) {
            Files.writeString(dir.resolve("select-constant.json"), constantInfo.getLast());
        }
        System.out.printf(
                "query info: %d union read(s) after the last commit and a SELECT constant in %s%n", union.size(), dir);
    }

    /** Latencies of {@code samples} runs of a query, formatted with ids cycling over the written rows. */
    private static List<Long> queryLatencies(
            TrinoEngine trino, String query, int rows, int samples, List<TrinoEngine.QueryPhases> phases) {
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < samples; i++) {
            String statement = query.formatted(i % Math.max(1, rows));
            long start = System.nanoTime();
            trino.query(statement);
            millis.add((System.nanoTime() - start) / 1_000_000);
            trino.lastQueryPhases(statement).ifPresent(phases::add);
        }
        return millis;
    }

    private static void printPhases(String name, List<TrinoEngine.QueryPhases> phases) {
        if (phases.isEmpty()) {
            return;
        }
        OUT.printf(
                "%-48s elapsed %s, queued %s, analysis %s, planning %s, starting %s, execution %s, finishing %s;"
                        + " cpu %s, scheduled %s, blocked %s; tasks %s, drivers %s%n",
                name,
                phase(phases, TrinoEngine.QueryPhases::elapsed),
                phase(phases, TrinoEngine.QueryPhases::queued),
                phase(phases, TrinoEngine.QueryPhases::analysis),
                phase(phases, TrinoEngine.QueryPhases::planning),
                phase(phases, TrinoEngine.QueryPhases::starting),
                phase(phases, TrinoEngine.QueryPhases::execution),
                phase(phases, TrinoEngine.QueryPhases::finishing),
                phase(phases, TrinoEngine.QueryPhases::cpu),
                phase(phases, TrinoEngine.QueryPhases::scheduled),
                phase(phases, TrinoEngine.QueryPhases::blocked),
                phase(phases, TrinoEngine.QueryPhases::tasks),
                phase(phases, TrinoEngine.QueryPhases::drivers));
        OUT.printf(
                "%-48s first task created %s, leaf drivers ended %s, output drivers ended %s, query ended %s;"
                        + " table scans' getOutput wall %s, cpu %s%n",
                "",
                phase(phases, TrinoEngine.QueryPhases::firstTaskCreated),
                phase(phases, TrinoEngine.QueryPhases::leafDriversEnded),
                phase(phases, TrinoEngine.QueryPhases::outputDriversEnded),
                phase(phases, TrinoEngine.QueryPhases::ended),
                phase(phases, TrinoEngine.QueryPhases::scanWall),
                phase(phases, TrinoEngine.QueryPhases::scanCpu));
    }

    private static String phase(List<TrinoEngine.QueryPhases> phases, ToLongFunction<TrinoEngine.QueryPhases> value) {
        List<Long> values = phases.stream().map(value::applyAsLong).toList();
        return percentile(values, 50) + "/" + percentile(values, 99);
    }

    private static void print(String name, List<Long> millis) {
        OUT.printf(
                "%-48s p50 %5d ms   p99 %5d ms   max %5d ms   (%d samples)%n",
                name, percentile(millis, 50), percentile(millis, 99), percentile(millis, 100), millis.size());
    }

    private static long percentile(List<Long> values, int percentile) {
        List<Long> sorted = values.stream().sorted().toList();
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
