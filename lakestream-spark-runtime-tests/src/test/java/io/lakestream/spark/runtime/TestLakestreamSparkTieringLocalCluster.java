package io.lakestream.spark.runtime;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.IsolatedClassPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Spark tiering job ({@code CALL ls.system.tier(...)}) on {@code local-cluster[2,1,2048]}: its bucket
 * tasks run in executor JVMs of their own, loading the shaded runtime jar, and return their files to the
 * driver, which commits them.
 *
 * <p>Random writes through Spark go to two warehouses alike; one is tiered by the job, the other by the real
 * embedded service ({@code ./lakestream tier --once}, another class loader): after each tiering the offset maps
 * are equal, both lakes equal the oracle built from what the test wrote (seed {@code -Dlakestream.test.seed}),
 * and so does the union read. An executor killed with {@code kill -9} after its task wrote its files: nothing
 * is visible until Spark's retry of the task finishes, and the table then holds every change once.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkTieringLocalCluster {
    private static final long SEED = Long.getLong("lakestream.test.seed", 23L);
    private static final String MASTER = "local-cluster[2,1,2048]";
    private static final int EXECUTORS = 2;
    private static final Duration STARTUP = Duration.ofMinutes(3);
    private static final Pattern ATTEMPT = Pattern.compile("-(a\\d+)\\.parquet$");

    private final LakestreamTieringCommand tiering = new LakestreamTieringCommand();
    private Path sparkHome;
    private Path jobWarehouse;
    private Path embeddedWarehouse;
    private Path gate;
    private IsolatedSpark spark;

    @BeforeAll
    void startCluster() throws IOException {
        List<Path> sparkJars = IsolatedClassPath.classPathFile("runtime.spark.classpath.file");
        Path runtimeJar = IsolatedClassPath.file("runtime.jar");
        sparkHome = LocalSparkCluster.sparkHome(sparkJars);
        jobWarehouse = Files.createTempDirectory("lakestream-tiering-job").toRealPath();
        embeddedWarehouse =
                Files.createTempDirectory("lakestream-tiering-embedded").toRealPath();
        gate = Files.createTempDirectory("lakestream-tiering-gate");
        Path gateJar = LocalSparkCluster.classesJar(
                Files.createTempDirectory("lakestream-gate-jar").resolve("lakestream-tiering-gate.jar"),
                TaskGate.class,
                TieringGate.class);

        List<Path> classPath = new ArrayList<>(sparkJars);
        classPath.add(runtimeJar);
        classPath.add(gateJar);
        Map<String, String> config = new HashMap<>(LocalSparkCluster.config(List.of(runtimeJar, gateJar)));
        config.put(
                "spark.executor.extraJavaOptions",
                LocalSparkCluster.EXECUTOR_JAVA_OPTIONS + " -D" + TieringGate.DIRECTORY_PROPERTY + "=" + gate);
        config.put("spark.lakestream.tiering.task-hook", TieringGate.class.getName() + "#reached");
        config.put("spark.sql.catalog.ls", "io.lakestream.spark.LakestreamCatalog");
        config.put("spark.sql.catalog.ls.warehouse", jobWarehouse.toString());
        config.put("spark.sql.catalog.emb", "io.lakestream.spark.LakestreamCatalog");
        config.put("spark.sql.catalog.emb.warehouse", embeddedWarehouse.toString());
        spark = new IsolatedSpark("tiering-local-cluster", MASTER, classPath, config);
        spark.sql("CREATE NAMESPACE ls.db");
        spark.sql("CREATE NAMESPACE emb.db");
    }

    @BeforeEach
    void awaitExecutors() {
        await("executors to register", () -> spark.executorCount() == EXECUTORS);
    }

    @AfterAll
    void stopCluster() {
        if (spark != null) {
            spark.close();
        }
    }

    @Test
    void jobOnExecutorsTiersWhatTheEmbeddedServiceTiers() {
        Random random = new Random(SEED);
        for (String catalog : List.of("ls", "emb")) {
            spark.sql("CREATE TABLE %s.db.t (id BIGINT, v BIGINT) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')"
                    .formatted(catalog));
        }
        Map<Long, Long> oracle = new TreeMap<>();
        int tierings = 0;
        for (int round = 0; round < 8; round++) {
            String context = "seed %s (-Dlakestream.test.seed), round %s".formatted(SEED, round);
            switch (round < 3 ? round : random.nextInt(3)) {
                case 0 -> {
                    Map<Long, Long> batch = new TreeMap<>();
                    int size = 50 + random.nextInt(200);
                    while (batch.size() < size) {
                        batch.put((long) random.nextInt(1000), (long) random.nextInt(100_000));
                    }
                    String values = batch.entrySet().stream()
                            .map(entry -> "(CAST(%s AS BIGINT), CAST(%s AS BIGINT))"
                                    .formatted(entry.getKey(), entry.getValue()))
                            .collect(joining(", "));
                    both("INSERT INTO %s.db.t SELECT /*+ REPARTITION(2) */ * FROM VALUES " + values + " AS s(id, v)");
                    oracle.putAll(batch);
                }
                case 1 -> {
                    long modulus = 2 + random.nextInt(5);
                    long remainder = random.nextInt((int) modulus);
                    both("UPDATE %s.db.t SET v = v + 1 WHERE id %% " + modulus + " = " + remainder);
                    oracle.replaceAll((id, v) -> id % modulus == remainder ? v + 1 : v);
                }
                default -> {
                    long low = random.nextInt(1000);
                    long high = low + random.nextInt(100);
                    both("DELETE FROM %s.db.t WHERE id BETWEEN " + low + " AND " + high);
                    oracle.keySet().removeIf(id -> id >= low && id <= high);
                }
            }
            if (round == 7 || random.nextBoolean()) {
                tierings++;
                tiering.tierOnce(embeddedWarehouse);
                List<List<Object>> result = spark.sql("CALL ls.system.tier(table => 'db.t')");
                assertThat(result).as(context).hasSize(1);
                assertThat(result.getFirst().getFirst()).as(context).isIn("TIERED", "UP_TO_DATE");
                assertThat(offsets("ls"))
                        .as(context + ": the job's offsets are the embedded service's")
                        .isEqualTo(offsets("emb"))
                        .allMatch(row -> row.get(1).equals(row.get(2)));
                assertThat(spark.sql("SELECT id, v FROM ls.db.`t$lake`"))
                        .as(context)
                        .containsExactlyInAnyOrderElementsOf(entries(oracle));
                assertThat(spark.sql("SELECT id, v FROM emb.db.`t$lake`"))
                        .as(context)
                        .containsExactlyInAnyOrderElementsOf(entries(oracle));
            }
            assertThat(spark.sql("SELECT id, v FROM ls.db.t"))
                    .as(context)
                    .containsExactlyInAnyOrderElementsOf(entries(oracle));
        }
        assertThat(tierings).isGreaterThan(1);
        // the job's tasks ran in the executor JVMs, not in the driver (this JVM)
        Set<Long> writers = files(gate, "wrote-").stream()
                .map(name -> Long.parseLong(name.split("-")[1]))
                .collect(Collectors.toSet());
        assertThat(writers).isNotEmpty().doesNotContain(ProcessHandle.current().pid());
    }

    /**
     * Bucket 0's task stops at the gate after writing its files (bucket 1's finishes); its executor is killed with
     * {@code kill -9}. Nothing is committed while Spark runs the lost task again (on the other executor or the one
     * its worker starts instead); once the gate opens, the job commits once: every change in the lake once, and the
     * killed attempt's files stay on disk unreferenced (for the lake orphan sweep).
     */
    @Test
    void executorKilledAfterWritingLeavesNothingVisibleAndTheRetryTiersOnce() throws Exception {
        long rows = 20_000;
        spark.sql(
                "CREATE TABLE ls.db.killed (id BIGINT, v BIGINT) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        spark.sql("INSERT INTO ls.db.killed SELECT id, id * 2 FROM range(0, %s, 1, 2)".formatted(rows));
        Path armed = Files.createFile(gate.resolve("armed-0"));
        try {
            CompletableFuture<List<List<Object>>> tier =
                    CompletableFuture.supplyAsync(() -> spark.sql("CALL ls.system.tier(table => 'db.killed')"));
            await(
                    "bucket 0's task at the gate",
                    () -> TestLakestreamSparkLocalCluster.arrivals(gate).size() == 1 || tier.isDone());
            assertThat(tier).as("the job waits at the gate").isNotDone();
            long victim = TestLakestreamSparkLocalCluster.arrivals(gate).getFirst();
            ProcessHandle executor = ProcessHandle.of(victim).orElseThrow();
            assertThat(executor.destroyForcibly()).isTrue();
            await("executor " + victim + " to exit", () -> !executor.isAlive());

            await(
                    "the retried task at the gate",
                    () -> TestLakestreamSparkLocalCluster.arrivals(gate).size() == 2 || tier.isDone());
            assertThat(tier).as("the retried job waits at the gate").isNotDone();
            assertThat(spark.sql("SELECT sum(lake_offset) FROM ls.db.`killed$offsets`"))
                    .as("nothing committed")
                    .containsExactly(List.of(0L));
            assertThat(spark.sql("SELECT count(*) FROM ls.db.`killed$lake`")).containsExactly(List.of(0L));

            Files.createFile(gate.resolve("open"));
            List<List<Object>> result = tier.get();
            assertThat(result).hasSize(1);
            assertThat(result.getFirst().subList(0, 2)).containsExactly("TIERED", rows);
        } finally {
            Files.deleteIfExists(armed);
        }
        assertThat(spark.sql("SELECT count(*), count(DISTINCT id), sum(id), sum(v) FROM ls.db.`killed$lake`"))
                .containsExactly(List.of(rows, rows, rows * (rows - 1) / 2, rows * (rows - 1)));
        assertThat(spark.sql("SELECT sum(lake_offset), sum(log_end_offset) FROM ls.db.`killed$offsets`"))
                .containsExactly(List.of(rows, rows));
        // files of three attempts: the two committed and the killed one's, which nothing references
        Set<String> attempts;
        try (Stream<Path> files =
                Files.walk(jobWarehouse.resolve("db").resolve("killed").resolve("data"))) {
            attempts = files.map(file -> ATTEMPT.matcher(file.getFileName().toString()))
                    .filter(Matcher::find)
                    .map(matcher -> matcher.group(1))
                    .collect(Collectors.toSet());
        }
        assertThat(attempts).hasSize(3);
    }

    private void both(String statement) {
        for (String catalog : List.of("ls", "emb")) {
            spark.sql(statement.formatted(catalog));
        }
    }

    private List<List<Object>> offsets(String catalog) {
        return spark.sql(
                "SELECT bucket, lake_offset, log_end_offset FROM %s.db.`t$offsets` ORDER BY bucket".formatted(catalog));
    }

    private static List<List<Object>> entries(Map<Long, Long> oracle) {
        return oracle.entrySet().stream()
                .map(entry -> List.<Object>of(entry.getKey(), entry.getValue()))
                .toList();
    }

    private static List<String> files(Path directory, String prefix) {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> name.startsWith(prefix))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void await(String what, BooleanSupplier condition) {
        LocalSparkCluster.await(sparkHome, what, STARTUP, condition);
    }
}
