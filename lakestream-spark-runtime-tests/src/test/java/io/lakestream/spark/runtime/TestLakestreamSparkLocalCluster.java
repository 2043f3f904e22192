package io.lakestream.spark.runtime;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.IsolatedClassPath;
import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shaded runtime jar on a Spark cluster whose executors are JVMs of their own: the master
 * {@code local-cluster[2,1,2048]} (a standalone master and two workers in this JVM, each worker launching
 * one executor JVM with one core), the runtime jar handed to the executors as {@code --jars} does. Every
 * handle, split and commit message crosses JVMs serialized, and each executor opens the catalog itself.
 *
 * <p>Union reads, {@code INSERT}, {@code UPDATE}, {@code MERGE}, {@code DELETE} and the DataFrame
 * {@code writeTo} return an oracle's rows (built from what the test wrote, with tiering by another
 * process's code between rounds; seed: {@code -Dlakestream.test.seed}); an executor killed with
 * {@code kill -9} while its task writes leaves nothing visible, and Spark's retry of the task commits the
 * insert exactly once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkLocalCluster {
    private static final long SEED = Long.getLong("lakestream.test.seed", 20_4L);
    private static final String MASTER = "local-cluster[2,1,2048]";
    private static final int EXECUTORS = 2;
    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final String EXECUTOR_PID = "reflect('java.lang.ProcessHandle', 'current')";

    private final LakestreamTieringCommand tiering = new LakestreamTieringCommand();
    private Path sparkHome;
    private Path warehouse;
    private IsolatedSpark spark;

    @BeforeAll
    void startCluster() throws IOException {
        List<Path> sparkJars = IsolatedClassPath.classPathFile("runtime.spark.classpath.file");
        Path runtimeJar = IsolatedClassPath.file("runtime.jar");
        sparkHome = LocalSparkCluster.sparkHome(sparkJars);
        warehouse = Files.createTempDirectory("lakestream-local-cluster").toRealPath();
        Path gateJar = LocalSparkCluster.taskGateJar(Files.createTempDirectory("lakestream-task-gate"));

        // the jars on the driver's class path and, fetched from the driver, on the executors' (as --jars does)
        List<Path> classPath = new ArrayList<>(sparkJars);
        classPath.add(runtimeJar);
        classPath.add(gateJar);
        Map<String, String> config = new HashMap<>(LocalSparkCluster.config(List.of(runtimeJar, gateJar)));
        config.put("spark.sql.catalog.ls", "io.lakestream.spark.LakestreamCatalog");
        config.put("spark.sql.catalog.ls.warehouse", warehouse.toString());
        spark = new IsolatedSpark("local-cluster", MASTER, classPath, config);
        spark.sql("CREATE NAMESPACE ls.db");
    }

    @BeforeEach
    void awaitExecutors() {
        // executors register a few seconds after the session starts (and after one was killed, its worker starts
        // another): a job started before would run on fewer
        await("executors to register", STARTUP, () -> spark.executorCount() == EXECUTORS);
    }

    @AfterAll
    void stopCluster() {
        if (spark != null) {
            spark.close();
        }
    }

    @Test
    void executorsAreJvmsOfTheirOwn() {
        Set<Long> executors = executorPids();
        assertThat(executors)
                .hasSize(EXECUTORS)
                .doesNotContain(ProcessHandle.current().pid());
        Set<Long> children = ProcessHandle.current()
                .descendants()
                .filter(process -> process.info().commandLine().orElse("").contains("CoarseGrainedExecutorBackend"))
                .map(ProcessHandle::pid)
                .collect(Collectors.toSet());
        assertThat(children)
                .as("executor JVMs launched by the workers in this JVM")
                .containsAll(executors);
    }

    /**
     * Random rounds of {@code INSERT}, {@code writeTo}, {@code UPDATE}, {@code DELETE} and {@code MERGE}, with
     * tiering at random; after each the union read (its splits read on both executors) equals the oracle. The
     * inserted rows carry the pid of the JVM that wrote them: the executors, not the driver.
     */
    @Test
    void writesAndUnionReadsOnExecutorsMatchTheOracle() {
        Random random = Seeds.random(SEED);
        spark.sql("CREATE TABLE ls.db.target (id BIGINT, v BIGINT, writer STRING) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')");
        Map<Long, Long> oracle = new TreeMap<>();
        for (int round = 0; round < 10; round++) {
            String context = "seed " + SEED + ", round " + round;
            // each kind once first (insert, writeTo, update, delete, merge), then at random
            int operation = round < 5 ? round : random.nextInt(5);
            switch (operation) {
                case 0, 1 -> {
                    Map<Long, Long> batch = batch(random);
                    // repartitioned, so the writer column is computed in the writing tasks (a projection right over
                    // VALUES is computed on the driver)
                    String query = ("SELECT id, v, CAST(%s AS STRING) AS writer "
                                    + "FROM (SELECT /*+ REPARTITION(2) */ * FROM VALUES %s AS s(id, v))")
                            .formatted(EXECUTOR_PID, values(batch));
                    if (operation == 0) {
                        spark.sql("INSERT INTO ls.db.target " + query);
                    } else {
                        spark.appendTo(query, "ls.db.target");
                    }
                    oracle.putAll(batch);
                }
                case 2 -> {
                    long modulus = 3 + random.nextInt(4);
                    long remainder = random.nextInt((int) modulus);
                    spark.sql("UPDATE ls.db.target SET v = v + 1000 WHERE id %% %s = %s".formatted(modulus, remainder));
                    oracle.replaceAll((id, v) -> id % modulus == remainder ? v + 1000 : v);
                }
                case 3 -> {
                    long low = random.nextInt(300);
                    long high = low + random.nextInt(100);
                    spark.sql("DELETE FROM ls.db.target WHERE id BETWEEN %s AND %s".formatted(low, high));
                    oracle.keySet().removeIf(id -> id >= low && id <= high);
                }
                default -> {
                    Map<Long, Long> batch = batch(random);
                    // matched with an even source value: delete; other matched: update; not matched: insert
                    spark.sql(("MERGE INTO ls.db.target t USING (SELECT * FROM VALUES %s AS s(id, v)) s ON t.id = s.id "
                                    + "WHEN MATCHED AND s.v %% 2 = 0 THEN DELETE "
                                    + "WHEN MATCHED THEN UPDATE SET v = s.v "
                                    + "WHEN NOT MATCHED THEN INSERT (id, v, writer) VALUES (s.id, s.v, 'merge')")
                            .formatted(values(batch)));
                    batch.forEach((id, v) -> {
                        if (oracle.containsKey(id) && v % 2 == 0) {
                            oracle.remove(id);
                        } else {
                            oracle.put(id, v);
                        }
                    });
                }
            }
            if (random.nextInt(3) == 0) {
                tiering.tierOnce(warehouse);
            }
            assertThat(spark.sql("SELECT id, v FROM ls.db.target"))
                    .as(context)
                    .containsExactlyInAnyOrderElementsOf(oracle.entrySet().stream()
                            .map(entry -> List.<Object>of(entry.getKey(), entry.getValue()))
                            .toList());
        }
        // the scan's tasks ran on both executors (four buckets, one split each)
        assertThat(spark.sql("SELECT DISTINCT CAST(%s AS BIGINT) FROM ls.db.target".formatted(EXECUTOR_PID)).stream()
                        .map(row -> (Long) row.getFirst())
                        .collect(Collectors.toSet()))
                .isEqualTo(executorPids());
        // and the rows were written by the executors' tasks (pids of executors that may have been replaced since)
        Set<Long> writers = spark.sql("SELECT DISTINCT writer FROM ls.db.target WHERE writer <> 'merge'").stream()
                .map(row -> Long.parseLong((String) row.getFirst()))
                .collect(Collectors.toSet());
        assertThat(writers).isNotEmpty().doesNotContain(ProcessHandle.current().pid());
    }

    /**
     * An executor JVM killed with {@code kill -9} while its task holds a staged log segment open: nothing of
     * the insert is visible while Spark retries the task, and when the retry finishes the insert is committed
     * exactly once (every key once, one offset per row in the log: a second commit of the same rows would
     * double the log's offsets even where the primary key hides the duplicates).
     */
    @Test
    void executorKilledMidWriteLeavesNothingVisibleAndTheRetryCommitsOnce() throws Exception {
        spark.sql(
                "CREATE TABLE ls.db.killed (id BIGINT, v BIGINT) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        Path gate = Files.createTempDirectory("lakestream-gate");
        long rows = 40_000;
        // two tasks of 20,000 rows; the second stops at the gate after 19,000 rows (staged segments on disk)
        CompletableFuture<List<List<Object>>> insert = CompletableFuture.supplyAsync(
                () -> spark.sql(("INSERT INTO ls.db.killed SELECT id, id * 2 FROM range(0, %s, 1, 2) "
                                + "WHERE IF(id = 39000, reflect('%s', 'pass', '%s'), 'x') IS NOT NULL")
                        .formatted(rows, TaskGate.class.getName(), gate)));

        await("the writing task at the gate", STARTUP, () -> arrivals(gate).size() == 1 || insert.isDone());
        assertThat(insert).as("the insert waits at the gate").isNotDone();
        long victim = arrivals(gate).getFirst();
        List<Path> staged = openLogFiles(victim);
        assertThat(staged)
                .as("log segments the task has open in executor %s", victim)
                .isNotEmpty();

        ProcessHandle executor = ProcessHandle.of(victim).orElseThrow();
        assertThat(executor.destroyForcibly()).isTrue();
        // (onExit() of a process another part of this JVM started and reaps may never complete)
        await("executor " + victim + " to exit", STARTUP, () -> !executor.isAlive());

        // Spark runs the task again (on the other executor, or the one the worker starts instead)
        await("the retried task at the gate", STARTUP, () -> arrivals(gate).size() == 2 || insert.isDone());
        assertThat(insert).as("the retried insert waits at the gate").isNotDone();
        assertThat(spark.sql("SELECT count(*) FROM ls.db.killed")).containsExactly(List.of(0L));
        assertThat(spark.sql("SELECT sum(log_end_offset) FROM ls.db.`killed$offsets`"))
                .as("nothing published")
                .containsExactly(List.of(0L));

        Files.createFile(gate.resolve("open"));
        insert.get();
        assertThat(spark.sql("SELECT count(*), count(DISTINCT id), sum(id), sum(v) FROM ls.db.killed"))
                .containsExactly(List.of(rows, rows, rows * (rows - 1) / 2, rows * (rows - 1)));
        assertThat(spark.sql("SELECT sum(log_end_offset) FROM ls.db.`killed$offsets`"))
                .as("one commit of each row")
                .containsExactly(List.of(rows));
        // the killed attempt's segments were never published: left for the orphan sweep
        assertThat(staged).allMatch(Files::exists);
        tiering.tierOnce(warehouse);
        assertThat(spark.sql("SELECT count(*), sum(v) FROM ls.db.`killed$lake`"))
                .containsExactly(List.of(rows, rows * (rows - 1)));
    }

    /** The pids of the executor JVMs, as their tasks report them. */
    /**
     * A stream on the executors: the changelog of a primary-key table ({@code stream.output=changelog}) into
     * another through the streaming sink, with {@code Trigger.AvailableNow} and small batches, run, then
     * restarted from its checkpoint after more writes and tiering by another process. After each run the
     * derived table equals the oracle, and the restarted run wrote exactly the changes made since the first
     * (one per source change: every delete is of a present key), none of the first run's again.
     */
    @Test
    void streamWithAvailableNowRestartsFromItsCheckpoint() throws IOException {
        Random random = Seeds.random(SEED + 1);
        spark.sql("CREATE TABLE ls.db.stream_source (id BIGINT, v BIGINT, writer STRING) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')");
        spark.sql("CREATE TABLE ls.db.stream_target (id BIGINT, v BIGINT, writer STRING) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        Path checkpoint = Files.createTempDirectory("lakestream-cluster-stream");
        Map<String, String> options = Map.of("stream.output", "changelog", "max-commits-per-trigger", "2");
        Map<Long, Long> oracle = new TreeMap<>();
        for (int commit = 0; commit < 3; commit++) {
            Map<Long, Long> batch = batch(random);
            spark.sql("INSERT INTO ls.db.stream_source SELECT id, v, 'w' FROM VALUES %s AS s(id, v)"
                    .formatted(values(batch)));
            oracle.putAll(batch);
        }
        spark.sql("UPDATE ls.db.stream_source SET v = v + 1 WHERE id % 2 = 0");
        oracle.replaceAll((id, v) -> id % 2 == 0 ? v + 1 : v);
        spark.streamAvailableNow("ls.db.`stream_source$changes`", options, "ls.db.stream_target", checkpoint);
        assertThat(targetRows("ls.db.stream_target"))
                .as("seed %s: after the first run", SEED + 1)
                .isEqualTo(oracle);
        long targetChanges = count("ls.db.`stream_target$changes`");
        long sourceChanges = count("ls.db.`stream_source$changes`");

        for (int commit = 0; commit < 3; commit++) {
            Map<Long, Long> batch = batch(random);
            spark.sql("INSERT INTO ls.db.stream_source SELECT id, v, 'w' FROM VALUES %s AS s(id, v)"
                    .formatted(values(batch)));
            oracle.putAll(batch);
        }
        long deleted = oracle.keySet().iterator().next();
        spark.sql("DELETE FROM ls.db.stream_source WHERE id = " + deleted);
        oracle.remove(deleted);
        tiering.tierOnce(warehouse);
        spark.streamAvailableNow("ls.db.`stream_source$changes`", options, "ls.db.stream_target", checkpoint);
        assertThat(targetRows("ls.db.stream_target"))
                .as("seed %s: after the restart", SEED + 1)
                .isEqualTo(oracle);
        assertThat(count("ls.db.`stream_target$changes`") - targetChanges)
                .as("seed %s: the restarted run wrote each new change once", SEED + 1)
                .isEqualTo(count("ls.db.`stream_source$changes`") - sourceChanges);
    }

    private Map<Long, Long> targetRows(String table) {
        Map<Long, Long> rows = new TreeMap<>();
        for (List<Object> row : spark.sql("SELECT id, v FROM " + table)) {
            rows.put((Long) row.get(0), (Long) row.get(1));
        }
        return rows;
    }

    private long count(String table) {
        return (Long) spark.sql("SELECT count(*) FROM " + table).getFirst().getFirst();
    }

    private Set<Long> executorPids() {
        return spark
                .sql("SELECT DISTINCT CAST(%s AS BIGINT) FROM range(0, 1000, 1, 8)".formatted(EXECUTOR_PID))
                .stream()
                .map(row -> (Long) row.getFirst())
                .collect(Collectors.toSet());
    }

    /** The pids of the executors whose tasks arrived at the gate, in order of arrival. */
    static List<Long> arrivals(Path gate) {
        try (Stream<Path> files = Files.list(gate)) {
            return files.filter(file -> file.getFileName().toString().startsWith("arrived-"))
                    .sorted((a, b) -> lastModified(a).compareTo(lastModified(b)))
                    .map(file -> Long.parseLong(file.getFileName().toString().split("-")[1]))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Instant lastModified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toInstant();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The log segment files (Arrow files under the warehouse) a process has open, from {@code /proc/<pid>/fd}. */
    private List<Path> openLogFiles(long pid) throws IOException {
        List<Path> open = new ArrayList<>();
        try (Stream<Path> descriptors = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path descriptor : descriptors.toList()) {
                Optional<Path> target = readLink(descriptor);
                if (target.isPresent()
                        && target.get().startsWith(warehouse)
                        && target.get().getFileName().toString().endsWith(".arrow")) {
                    open.add(target.get());
                }
            }
        }
        return open;
    }

    private static Optional<Path> readLink(Path descriptor) {
        try {
            return Optional.of(Files.readSymbolicLink(descriptor));
        } catch (IOException e) {
            // closed meanwhile
            return Optional.empty();
        }
    }

    private static Map<Long, Long> batch(Random random) {
        Map<Long, Long> batch = new TreeMap<>();
        int size = 30 + random.nextInt(50);
        while (batch.size() < size) {
            batch.put((long) random.nextInt(400), (long) random.nextInt(10_000));
        }
        return batch;
    }

    private static String values(Map<Long, Long> batch) {
        return batch.entrySet().stream()
                .map(entry -> "(CAST(%s AS BIGINT), CAST(%s AS BIGINT))".formatted(entry.getKey(), entry.getValue()))
                .collect(joining(", "));
    }

    /** Waits for a condition of the cluster (not for time to pass); fails with the executors' logs. */
    private void await(String what, Duration timeout, BooleanSupplier condition) {
        LocalSparkCluster.await(sparkHome, what, timeout, condition);
    }
}
