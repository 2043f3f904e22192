package io.lakestream.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several writers commit to one table at once, as threads and as separate JVM processes: every row
 * appears exactly once, every bucket's offsets are dense, and every commit is visible whole at
 * exactly one version.
 */
class TestConcurrentWriters {
    private static final int BUCKETS = 4;
    private static final int COMMITS = 12;
    private static final int ROWS_PER_COMMIT = 37;

    @TempDir
    Path directory;

    @Test
    void threads() throws Exception {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            warehouse.createAppendOnlyTable("events", BUCKETS);
            int writers = 4;
            ExecutorService executor = Executors.newFixedThreadPool(writers);
            List<Future<?>> futures = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                int writerId = writer;
                LakestreamTable table = warehouse.load("events");
                futures.add(executor.submit(() ->
                        WriterProcess.writeCommits(table, warehouse.allocator(), writerId, COMMITS, ROWS_PER_COMMIT)));
            }
            for (Future<?> future : futures) {
                future.get(2, TimeUnit.MINUTES);
            }
            executor.shutdown();
            verify(warehouse, writers);
        }
    }

    @Test
    void processes() throws Exception {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            warehouse.createAppendOnlyTable("events", BUCKETS);
            int writers = 3;
            List<Process> processes = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                processes.add(startWriterProcess(writer));
            }
            for (Process process : processes) {
                assertThat(process.waitFor(3, TimeUnit.MINUTES))
                        .as("writer process finished")
                        .isTrue();
                assertThat(process.exitValue()).as("writer process exit code").isZero();
            }
            verify(warehouse, writers);
        }
    }

    private Process startWriterProcess(int writerId) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xmx256m");
        command.addAll(Arrays.asList(
                System.getProperty("lakestream.test.jvm.flags", "").trim().split("\\s+")));
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                WriterProcess.class.getName(),
                directory.toString(),
                "events",
                Integer.toString(writerId),
                Integer.toString(COMMITS),
                Integer.toString(ROWS_PER_COMMIT)));
        command.removeIf(String::isEmpty);
        File logFile = directory.resolve("writer-" + writerId + ".log").toFile();
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logFile)
                .start();
    }

    private static void verify(TestingWarehouse warehouse, int writers) {
        LakestreamTable table = warehouse.load("events");
        LogSnapshot snapshot = table.log().latestSnapshot();
        assertThat(snapshot.version()).isEqualTo((long) writers * COMMITS);

        List<ChangeRecord> changes = TestTypeRoundTrip.readAll(table, warehouse);
        assertThat(changes).hasSize(writers * COMMITS * ROWS_PER_COMMIT);
        assertThat(changes.stream().map(change -> change.row().getField("id"))).doesNotHaveDuplicates();

        Map<String, Integer> rowsPerTag = new HashMap<>();
        Map<String, Set<Long>> versionsPerTag = new HashMap<>();
        Map<Integer, List<Long>> offsetsPerBucket = new HashMap<>();
        for (ChangeRecord change : changes) {
            String tag = (String) change.row().getField("name");
            rowsPerTag.merge(tag, 1, Integer::sum);
            versionsPerTag.computeIfAbsent(tag, ignored -> new HashSet<>()).add(versionOf(snapshot, change));
            offsetsPerBucket
                    .computeIfAbsent(change.bucket(), ignored -> new ArrayList<>())
                    .add(change.offset());
        }
        assertThat(rowsPerTag).hasSize(writers * COMMITS);
        assertThat(rowsPerTag.values()).allMatch(count -> count == ROWS_PER_COMMIT);
        assertThat(versionsPerTag.values()).allMatch(versions -> versions.size() == 1);
        assertThat(versionsPerTag.values().stream().flatMap(Set::stream)).doesNotHaveDuplicates();
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            List<Long> offsets = offsetsPerBucket.get(bucket);
            for (int i = 0; i < offsets.size(); i++) {
                assertThat(offsets.get(i)).isEqualTo(i);
            }
            assertThat((long) offsets.size()).isEqualTo(snapshot.bucket(bucket).endOffset());
        }
    }

    private static long versionOf(LogSnapshot snapshot, ChangeRecord change) {
        for (SegmentFile segment : snapshot.bucket(change.bucket()).segments()) {
            if (segment.baseOffset() <= change.offset() && change.offset() < segment.endOffset()) {
                return segment.version();
            }
        }
        throw new AssertionError("no segment holds " + change);
    }
}
