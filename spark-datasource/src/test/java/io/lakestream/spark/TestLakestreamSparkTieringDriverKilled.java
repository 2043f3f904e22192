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
import java.util.HashSet;
import java.util.List;
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
 * LakestreamSparkTiering} in a JVM of its own, {@code local[2]}, on this test's warehouse), held by {@link
 * DriverGate} inside its lake commit (after its tasks wrote their files, before the swap) or right after the
 * commit: every change ends in the lake exactly once after the next round (an append-only table, where a
 * second tiering would show as a duplicate row), and the files of the killed attempt are orphans that {@code
 * system.remove_orphans} removes once older than the lake orphan age, leaving exactly the referenced files.
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
    void killedBeforeTheCommit() throws Exception {
        create("before_commit");
        OffsetMap before = lakeOffsets("before_commit");
        Set<String> referenced = referencedDataFiles("before_commit");

        killDriverAt(TieringStep.COMMITTING);

        assertThat(lakeOffsets("before_commit")).as("nothing committed").isEqualTo(before);
        Set<String> orphans = new HashSet<>(dataFilesOnDisk("before_commit"));
        orphans.removeAll(referenced);
        assertThat(orphans).as("files the killed driver's tasks wrote").isNotEmpty();

        assertThat(rows(testing.sql("CALL ls.system.tier(table => '%s.before_commit')".formatted(NS)))
                        .getFirst()
                        .getFirst())
                .isEqualTo("TIERED");
        assertExactlyOnce("before_commit");

        // older than the lake orphan age (3 days): the sweep takes exactly the killed attempt's files
        Path data = dataDirectory("before_commit");
        for (String orphan : orphans) {
            Files.setLastModifiedTime(
                    data.resolve(relative(data, orphan)),
                    FileTime.from(Instant.now().minus(Duration.ofDays(4))));
        }
        rows(testing.sql("CALL ls.system.remove_orphans(table => '%s.before_commit')".formatted(NS)));
        assertThat(dataFilesOnDisk("before_commit")).isEqualTo(referencedDataFiles("before_commit"));
        assertExactlyOnce("before_commit");
    }

    @Test
    void killedAfterTheCommit() throws Exception {
        create("after_commit");

        killDriverAt(TieringStep.COMMITTED);

        assertThat(lakeOffsets("after_commit").offsets().values().stream()
                        .mapToLong(Long::longValue)
                        .sum())
                .as("the commit landed")
                .isEqualTo(300);
        assertThat(rows(testing.sql("CALL ls.system.tier(table => '%s.after_commit')".formatted(NS)))
                        .getFirst()
                        .getFirst())
                .isEqualTo("UP_TO_DATE");
        assertExactlyOnce("after_commit");
        assertThat(dataFilesOnDisk("after_commit")).isEqualTo(referencedDataFiles("after_commit"));
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

    /** Runs {@code LakestreamSparkTiering --once} over the namespace in a child JVM and kills it at {@code step}. */
    private void killDriverAt(TieringStep step) throws Exception {
        Path gate = Files.createTempDirectory("lakestream-driver-gate");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(
                System.getProperty("lakestream.test.jvm.flags", "").trim().split("\\s+")));
        command.addAll(List.of(
                "-Xmx1g",
                "-cp",
                System.getProperty("java.class.path"),
                "-Dspark.master=local[2]",
                "-Dspark.ui.enabled=false",
                "-Dspark.driver.host=localhost",
                "-Dspark.sql.catalog.ls=" + LakestreamCatalog.class.getName(),
                "-Dspark.sql.catalog.ls.warehouse=" + testing.warehouseDirectory(),
                "-D" + SparkTieringHooks.DRIVER_HOOK + "=" + DriverGate.class.getName() + "#reached",
                "-D" + DriverGate.STEP_PROPERTY + "=" + step.name(),
                "-D" + DriverGate.DIRECTORY_PROPERTY + "=" + gate,
                LakestreamSparkTiering.class.getName(),
                "--catalog",
                "ls",
                "--namespace",
                NS,
                "--once"));
        command.removeIf(String::isEmpty);
        Path log = gate.resolve("driver.log");
        Process driver = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            Path reached = gate.resolve(DriverGate.REACHED);
            long deadline = System.nanoTime() + DRIVER_TIMEOUT.toNanos();
            while (!Files.exists(reached)) {
                assertThat(driver.isAlive())
                        .as("the driver ended before %s; its output: %s", step, Files.readString(log))
                        .isTrue();
                assertThat(System.nanoTime())
                        .as("the driver reached %s in time", step)
                        .isLessThan(deadline);
                driver.waitFor(100, TimeUnit.MILLISECONDS);
            }
        } finally {
            driver.destroyForcibly(); // SIGKILL: no shutdown hook, no cleanup
            driver.waitFor();
        }
        assertThat(driver.exitValue()).as("killed").isEqualTo(137);
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
