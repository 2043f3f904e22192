package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.OffsetMap;
import io.lakestream.tiering.TieringStep;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Spark tiering job's driver killed with {@code kill -9} (a {@code spark-submit} of {@link
 * LakestreamSparkTiering} in a JVM of its own, {@code local[2]}, on this test's warehouse) at the two points that
 * matter, in one driver run over a namespace of two tables, held by {@link DriverGate}: right after the lake commit
 * of the first table it tiers (held there: a held driver does nothing, so the test sees what a kill there would
 * leave), then, released, inside the lake commit of the second (its tasks' files written, before the swap), where
 * it is killed. Every change ends in the lake exactly once after the next round (append-only tables, where a
 * second tiering would show as a duplicate row); the killed commit's files are orphans that {@code
 * system.remove_orphans} removes once older than the lake orphan age, leaving exactly the referenced files; the
 * committed table has no file unreferenced.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkTieringDriverKilled {
    private static final String NS = "driver_killed";
    private static final Duration DRIVER_TIMEOUT = Duration.ofMinutes(3);

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void killedAfterOneCommitAndInsideTheNext() throws Exception {
        List<String> tables = List.of("t1", "t2");
        tables.forEach(this::create);
        OffsetMap before = lakeOffsets("t1");
        assertThat(lakeOffsets("t2")).isEqualTo(before);
        Map<String, Set<String>> referencedBefore = new HashMap<>();
        tables.forEach(table -> referencedBefore.put(table, referencedDataFiles(table)));

        try (Driver driver =
                Driver.start(testing.warehouseDirectory(), List.of(TieringStep.COMMITTED, TieringStep.COMMITTING))) {
            // held right after the first table's commit
            driver.awaitGate(0);
            List<String> committed = tables.stream()
                    .filter(table -> !lakeOffsets(table).equals(before))
                    .toList();
            assertThat(committed).as("one table committed").hasSize(1);
            String after = committed.getFirst();
            String inside = tables.stream()
                    .filter(table -> !table.equals(after))
                    .findFirst()
                    .orElseThrow();
            assertThat(lakeOffsets(after).offsets().values().stream()
                            .mapToLong(Long::longValue)
                            .sum())
                    .as("the commit landed")
                    .isEqualTo(300);
            assertThat(tier(after)).isEqualTo("UP_TO_DATE");
            assertExactlyOnce(after);
            assertThat(dataFilesOnDisk(after)).isEqualTo(referencedDataFiles(after));

            // released: held inside the second table's commit, and killed there
            driver.release(0);
            driver.awaitGate(1);
            driver.kill();

            assertThat(lakeOffsets(inside)).as("nothing committed").isEqualTo(before);
            Set<String> orphans = new HashSet<>(dataFilesOnDisk(inside));
            orphans.removeAll(referencedBefore.get(inside));
            assertThat(orphans).as("files the killed driver's tasks wrote").isNotEmpty();
            assertThat(tier(inside)).isEqualTo("TIERED");
            assertExactlyOnce(inside);

            // older than the lake orphan age (3 days): the sweep takes exactly the killed attempt's files
            Path data = dataDirectory(inside);
            for (String orphan : orphans) {
                Files.setLastModifiedTime(
                        data.resolve(relative(data, orphan)),
                        FileTime.from(Instant.now().minus(Duration.ofDays(4))));
            }
            rows(testing.sql("CALL ls.system.remove_orphans(table => '%s.%s')".formatted(NS, inside)));
            assertThat(dataFilesOnDisk(inside)).isEqualTo(referencedDataFiles(inside));
            assertExactlyOnce(inside);
            // the driver went on with the first table after its commit: nothing changed there
            assertExactlyOnce(after);
            assertThat(dataFilesOnDisk(after)).isEqualTo(referencedDataFiles(after));
        }
    }

    private String tier(String table) {
        return (String) rows(testing.sql("CALL ls.system.tier(table => '%s.%s')".formatted(NS, table)))
                .getFirst()
                .getFirst();
    }

    /** An append-only table with 300 rows in the log, 100 of them tiered already. */
    private void create(String table) {
        testing.sql(
                "CREATE TABLE ls.%s.%s (id BIGINT NOT NULL, v BIGINT) TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='3')"
                        .formatted(NS, table));
        testing.sql("INSERT INTO ls.%s.%s SELECT id, id * 10 FROM range(0, 100)".formatted(NS, table));
        rows(testing.sql("CALL ls.system.tier(table => '%s.%s')".formatted(NS, table)));
        testing.sql("INSERT INTO ls.%s.%s SELECT id, id * 10 FROM range(100, 300)".formatted(NS, table));
    }

    /** {@code LakestreamSparkTiering --once} over the namespace in a child JVM, held at {@link DriverGate}s. */
    private record Driver(Process process, Path gates, Path log) implements AutoCloseable {
        static Driver start(Path warehouse, List<TieringStep> steps) throws IOException {
            Path gates = Files.createTempDirectory("lakestream-driver-gate");
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(List.of(
                    System.getProperty("lakestream.test.jvm.flags", "").trim().split("\\s+")));
            command.addAll(List.of(
                    "-Xmx1g",
                    // C1 only: the driver runs a few seconds of work, and its start (JIT included) is most of this
                    // class's time on a busy machine
                    "-XX:TieredStopAtLevel=1",
                    "-cp",
                    System.getProperty("java.class.path"),
                    "-Dspark.master=local[2]",
                    "-Dspark.ui.enabled=false",
                    "-Dspark.driver.host=localhost",
                    "-Dspark.sql.catalog.ls=" + LakestreamCatalog.class.getName(),
                    "-Dspark.sql.catalog.ls.warehouse=" + warehouse,
                    "-D" + SparkTieringHooks.DRIVER_HOOK + "=" + DriverGate.class.getName() + "#reached",
                    "-D" + DriverGate.STEPS_PROPERTY + "="
                            + steps.stream().map(TieringStep::name).collect(Collectors.joining(",")),
                    "-D" + DriverGate.DIRECTORY_PROPERTY + "=" + gates,
                    LakestreamSparkTiering.class.getName(),
                    "--catalog",
                    "ls",
                    "--namespace",
                    NS,
                    "--once"));
            command.removeIf(String::isEmpty);
            Path log = gates.resolve("driver.log");
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            return new Driver(process, gates, log);
        }

        /** Waits until the driver holds at gate {@code gate}; fails if it ends or takes too long. */
        void awaitGate(int gate) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + DRIVER_TIMEOUT.toNanos();
            while (!Files.exists(DriverGate.reached(gates, gate))) {
                assertThat(process.isAlive())
                        .as("the driver ended before gate %s; its output: %s", gate, Files.readString(log))
                        .isTrue();
                assertThat(System.nanoTime())
                        .as("the driver reached gate %s in time", gate)
                        .isLessThan(deadline);
                process.waitFor(20, TimeUnit.MILLISECONDS);
            }
        }

        void release(int gate) throws IOException {
            Files.writeString(DriverGate.release(gates, gate), "go");
        }

        /** {@code kill -9}: no shutdown hook, no cleanup. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor();
            assertThat(process.exitValue()).as("killed").isEqualTo(137);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    /** Every row written once in the union read and in the lake alone (the oracle: ids 0..299, v = id * 10). */
    private void assertExactlyOnce(String table) {
        List<List<Object>> expected = new ArrayList<>();
        for (long id = 0; id < 300; id++) {
            expected.add(List.of(id, id * 10));
        }
        assertThat(rows(testing.sql("SELECT id, v FROM ls.%s.`%s$lake` ORDER BY id".formatted(NS, table))))
                .isEqualTo(expected);
        assertThat(rows(testing.sql("SELECT id, v FROM ls.%s.%s ORDER BY id".formatted(NS, table))))
                .isEqualTo(expected);
    }

    private static OffsetMap lakeOffsets(String table) {
        return LakePosition.current(SparkTables.load(NS, table).lake()).offsets();
    }

    private static Set<String> referencedDataFiles(String table) {
        Table lake = SparkTables.load(NS, table).lake();
        Set<String> files = new HashSet<>();
        if (lake.currentSnapshot() == null) {
            return files;
        }
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                files.add(localPath(file.location()).toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    private static Set<String> dataFilesOnDisk(String table) {
        Path data = dataDirectory(table);
        if (!Files.exists(data)) {
            return Set.of();
        }
        try (Stream<Path> files = Files.walk(data)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".parquet"))
                    .map(Path::toString)
                    .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path dataDirectory(String table) {
        return localPath(SparkTables.load(NS, table).lake().location()).resolve("data");
    }

    private static Path localPath(String location) {
        return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    }

    private static String relative(Path directory, String file) {
        return directory.relativize(Path.of(file)).toString().replace(File.separatorChar, '/');
    }
}
