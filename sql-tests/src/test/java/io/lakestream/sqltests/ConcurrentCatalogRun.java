package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.ChildJvm;
import io.lakestream.testing.Seeds;
import io.lakestream.tiering.TieringResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.logging.Logger;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Several processes commit to one table of one catalog on a catalog server at once, and every reader
 * sees only what was committed: two Java writers and the tiering service, each in a JVM of its own,
 * plus Trino and Spark writing through SQL in this JVM, while Trino and Spark read the table. Each
 * writer follows a seeded {@link WriterPlan} on keys of its own, so the test knows every state the
 * table may show:
 *
 * <ul>
 *   <li>during the run, every union read (Trino and Spark) shows, for each writer, exactly its rows after
 *       some number of its commits (commits are atomic), never fewer than an earlier read showed;
 *   <li>after the run and a last tiering round, Trino's and Spark's union reads, Trino's lake read and
 *       Trino's stock Iceberg connector all return exactly the rows of every writer's last state.
 * </ul>
 */
final class ConcurrentCatalogRun {
    private static final Logger LOG = Logger.getLogger(ConcurrentCatalogRun.class.getName());
    static final String SCHEMA = "concurrent";
    static final String TABLE = "events";
    private static final int JAVA_WRITERS = 2;
    private static final int JAVA_COMMITS = 20;
    // a streaming writer's pace: the Java writers' commits spread over the engines' statements and reads
    private static final int JAVA_PAUSE_MILLIS = 150;
    private static final int SQL_COMMITS = 6;
    private static final int ROWS_PER_COMMIT = 8;

    private final CrossEngine engines;
    private final ServerCatalog catalog;
    private final Path directory;
    private final long seed;

    /** The run of seed {@code -Dlakestream.test.seed} (default 20), with its logs and configuration file in {@code directory}. */
    ConcurrentCatalogRun(CrossEngine engines, ServerCatalog catalog, Path directory) {
        this.engines = engines;
        this.catalog = catalog;
        this.directory = directory;
        this.seed = Seeds.seed(20);
    }

    /** Runs it; a failure names the seed that replays it. */
    void run() throws Exception {
        try {
            runSeeded();
        } catch (AssertionError e) {
            throw new AssertionError(
                    "seed " + seed + " (replay with -Dlakestream.test.seed=" + seed + "): " + e.getMessage(), e);
        }
    }

    private void runSeeded() throws Exception {
        String table = catalog.name() + "." + SCHEMA + "." + TABLE;
        engines.trino("CREATE SCHEMA " + catalog.name() + "." + SCHEMA);
        engines.trino("CREATE TABLE " + table + " (id bigint, src varchar, seq bigint)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 4)");

        List<WriterPlan> javaPlans = new ArrayList<>();
        for (int writer = 0; writer < JAVA_WRITERS; writer++) {
            javaPlans.add(WriterPlan.generate("java" + writer, keyBase(writer), seed, JAVA_COMMITS, ROWS_PER_COMMIT));
        }
        WriterPlan trinoPlan = WriterPlan.generate("trino", keyBase(8), seed, SQL_COMMITS, ROWS_PER_COMMIT);
        WriterPlan sparkPlan = WriterPlan.generate("spark", keyBase(9), seed, SQL_COMMITS, ROWS_PER_COMMIT);
        List<WriterPlan> plans = new ArrayList<>(javaPlans);
        plans.add(trinoPlan);
        plans.add(sparkPlan);

        Path config = catalog.writeConfigFile(directory);
        Process tiering = ChildJvm.start(
                ChildJvm.command("384m", CatalogTieringProcess.class, config.toString(), SCHEMA, TABLE),
                directory.resolve(catalog.name() + "-tiering.log"));
        List<Process> writers = new ArrayList<>();
        for (int writer = 0; writer < JAVA_WRITERS; writer++) {
            writers.add(ChildJvm.start(
                    ChildJvm.command(
                            "256m",
                            CatalogWriterProcess.class,
                            config.toString(),
                            SCHEMA,
                            TABLE,
                            javaPlans.get(writer).source(),
                            Long.toString(keyBase(writer)),
                            Long.toString(seed),
                            Integer.toString(JAVA_COMMITS),
                            Integer.toString(ROWS_PER_COMMIT),
                            Integer.toString(JAVA_PAUSE_MILLIS)),
                    directory.resolve(catalog.name() + "-writer-" + writer + ".log")));
        }

        // one checker per reader: a read that started earlier in one engine may end after a later one in the other
        ConsistentReads trinoReads = new ConsistentReads(plans);
        ConsistentReads sparkReads = new ConsistentReads(plans);
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            Future<?> trinoWrites = threads.submit(() -> write(trinoPlan, table, engines::trino));
            Future<?> sparkWrites = threads.submit(() -> write(sparkPlan, table, engines::spark));
            Future<?> trinoReader =
                    threads.submit(() -> readWhile(writing, trinoReads, "Trino", engines::trino, table));
            Future<?> sparkReader =
                    threads.submit(() -> readWhile(writing, sparkReads, "Spark", engines::spark, table));
            try {
                trinoWrites.get(5, TimeUnit.MINUTES);
                sparkWrites.get(5, TimeUnit.MINUTES);
                for (int writer = 0; writer < JAVA_WRITERS; writer++) {
                    awaitSuccess(writers.get(writer), "Java writer " + writer, "-writer-" + writer + ".log");
                }
            } finally {
                writing.set(false);
            }
            trinoReader.get(5, TimeUnit.MINUTES);
            sparkReader.get(5, TimeUnit.MINUTES);
        } finally {
            threads.shutdownNow();
            writers.forEach(Process::destroyForcibly);
            tiering.getOutputStream().close();
        }
        assertThat(trinoReads.reads()).as("Trino reads during the run").isPositive();
        assertThat(sparkReads.reads()).as("Spark reads during the run").isPositive();
        awaitSuccess(tiering, "the tiering service", "-tiering.log");
        String tieringLog = Files.readString(directory.resolve(catalog.name() + "-tiering.log"));
        assertThat(tieringLog).as("the tiering service's rounds").contains("ROUND TIERED");
        // how much the run overlapped, in the test log
        LOG.info("catalog %s, seed %d: %d reads during the run; Trino's saw %s states per writer; tiering %s"
                .formatted(
                        catalog.name(),
                        seed,
                        trinoReads.reads() + sparkReads.reads(),
                        trinoReads.statesSeen(),
                        tieringLog
                                .lines()
                                .filter(line -> line.startsWith("OUTCOMES"))
                                .findFirst()
                                .orElse("")));

        try (LakestreamCatalog java = LakestreamCatalog.open(catalog.config())) {
            LakestreamTable loaded = java.loadTable(TableIdentifier.of(SCHEMA, TABLE));
            assertThat(engines.tier(loaded).outcome())
                    .isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
        }
        List<String> expected = ConsistentReads.format(trinoReads.finalRows());
        String columns = "SELECT id, src, seq FROM ";
        assertThat(ConsistentReads.format(engines.trino(columns + table)))
                .as("Trino union read")
                .isEqualTo(expected);
        assertThat(ConsistentReads.format(engines.spark(columns + table)))
                .as("Spark union read")
                .isEqualTo(expected);
        assertThat(ConsistentReads.format(
                        engines.trino(columns + catalog.name() + "." + SCHEMA + ".\"" + TABLE + "$lake\"")))
                .as("Trino lake read after the last tiering round")
                .isEqualTo(expected);
        assertThat(ConsistentReads.format(
                        engines.trino(columns + catalog.stockIcebergName() + "." + SCHEMA + "." + TABLE)))
                .as("Trino's stock Iceberg connector")
                .isEqualTo(expected);
    }

    private static long keyBase(int writer) {
        return writer * 1_000_000L;
    }

    /** Reads the table until the writers are done, checking every read; a failed check ends the run. */
    private static Void readWhile(
            AtomicBoolean writing,
            ConsistentReads reads,
            String engine,
            Function<String, List<List<Object>>> query,
            String table) {
        while (writing.get()) {
            reads.check(engine + " read " + reads.reads(), query.apply("SELECT id, src, seq FROM " + table));
        }
        return null;
    }

    private static Void write(WriterPlan plan, String table, Function<String, List<List<Object>>> engine) {
        for (WriterPlan.Commit commit : plan.commits()) {
            engine.apply(plan.statement(commit, table));
        }
        return null;
    }

    private void awaitSuccess(Process process, String name, String logSuffix) throws Exception {
        boolean finished = process.waitFor(5, TimeUnit.MINUTES);
        if (!finished || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new AssertionError("%s %s (seed %d); its log:%n%s"
                    .formatted(
                            name,
                            finished ? "failed with exit code " + process.exitValue() : "did not finish",
                            seed,
                            Files.readString(directory.resolve(catalog.name() + logSuffix))));
        }
    }

    /** Checks reads against the writers' plans: per writer, a committed state, never older than the last one seen. */
    static final class ConsistentReads {
        private final Map<String, List<Map<Long, Long>>> states = new HashMap<>();
        private final Map<String, Integer> lastSeen = new HashMap<>();
        private final Map<String, Set<Integer>> statesSeen = new TreeMap<>();
        private int reads;

        ConsistentReads(List<WriterPlan> plans) {
            plans.forEach(plan -> {
                states.put(plan.source(), plan.states());
                lastSeen.put(plan.source(), 0);
            });
        }

        synchronized void check(String read, List<List<Object>> rows) {
            Map<String, Map<Long, Long>> seen = new HashMap<>();
            states.keySet().forEach(source -> seen.put(source, new HashMap<>()));
            for (List<Object> row : rows) {
                Map<Long, Long> rowsOfSource = seen.get((String) row.get(1));
                assertThat(rowsOfSource)
                        .as("%s: a row no writer wrote: %s", read, row)
                        .isNotNull();
                assertThat(rowsOfSource.put((Long) row.get(0), (Long) row.get(2)))
                        .as("%s: key %s twice", read, row.get(0))
                        .isNull();
            }
            seen.forEach((source, visible) -> {
                List<Map<Long, Long>> committed = states.get(source);
                int from = lastSeen.get(source);
                int state = committed.subList(from, committed.size()).indexOf(visible);
                assertThat(state)
                        .as(
                                "%s: the rows of %s are no state after %d or more of its commits: %s",
                                read, source, from, visible)
                        .isNotNegative();
                lastSeen.put(source, from + state);
                statesSeen.computeIfAbsent(source, ignored -> new HashSet<>()).add(from + state);
            });
            reads++;
        }

        synchronized int reads() {
            return reads;
        }

        /** Per writer, how many of its committed states the reads saw. */
        synchronized Map<String, Integer> statesSeen() {
            Map<String, Integer> counts = new TreeMap<>();
            statesSeen.forEach((source, states) -> counts.put(source, states.size()));
            return counts;
        }

        /** Every writer's rows after all its commits, as query rows {@code (id, src, seq)}. */
        List<List<Object>> finalRows() {
            List<List<Object>> rows = new ArrayList<>();
            states.forEach((source, committed) ->
                    committed.getLast().forEach((id, seq) -> rows.add(List.of(id, source, seq))));
            return rows;
        }

        static List<String> format(List<List<Object>> rows) {
            return Values.format(rows, false);
        }
    }
}
