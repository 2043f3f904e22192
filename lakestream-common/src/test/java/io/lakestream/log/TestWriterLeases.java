package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writer leases on the holder's side: the file, its renewals, its release, and the segments named after it. */
class TestWriterLeases {
    @TempDir
    Path directory;

    @Test
    void aHeldLeaseIsWrittenRenewedAndReleased() throws IOException {
        FileStreamLog log = new FileStreamLog(directory.resolve("log").toString(), new LocalLogFileSystem(), 2);
        HeldLease lease = HeldLease.acquire(log, "test writer", Clock.systemUTC());
        Path file = LocalLogFileSystem.toPath(log.paths().lease(lease.id()));
        WriterLease written = read(file);
        assertThat(written.id()).isEqualTo(lease.id());
        assertThat(written.holder()).isEqualTo("test writer");
        assertThat(written.timeoutMillis()).isEqualTo(WriterLease.DEFAULT_TIMEOUT.toMillis());
        assertThat(written.heartbeatInterval()).isEqualTo(Duration.ofMinutes(2));
        long before = written.renewals();

        lease.renew();
        assertThat(read(file).renewals()).isEqualTo(before + 1);

        lease.close();
        assertThat(file).doesNotExist();
        lease.renew(); // a heartbeat that fires after the release does not bring the file back
        assertThat(file).doesNotExist();
        lease.close();
    }

    @Test
    void theHeartbeatRenewsOnItsOwn() throws Exception {
        FileStreamLog log = new FileStreamLog(directory.resolve("log").toString(), new LocalLogFileSystem(), 2);
        // a timeout of 500 ms: a beat every 100 ms
        try (HeldLease lease = HeldLease.acquire(log, "test writer", Clock.systemUTC(), Duration.ofMillis(500))) {
            Path file = LocalLogFileSystem.toPath(log.paths().lease(lease.id()));
            // waits for an event (a renewal), however slow the machine: 60 s is only a bound
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read(file).renewals() < 2 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(read(file).renewals()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void segmentNamesCarryTheLease() {
        String id = WriterLease.newId();
        String leased = LogPaths.newSegmentPath(3, Optional.of(id));
        assertThat(leased).startsWith("bucket-0003/lease-" + id + "-").endsWith(".arrow");
        assertThat(LogPaths.leaseOfSegment(leased)).contains(id);
        assertThat(LogPaths.leaseOfSegment("/some/log/" + leased)).contains(id);
        assertThat(LogPaths.leaseOfSegment(LogPaths.newSegmentPath(3))).isEmpty();
        assertThat(LogPaths.leaseOfSegment("bucket-0003/lease-xyz-1.arrow")).isEmpty();
    }

    @Test
    void aWriterHoldsItsOwnLeaseFromItsFirstSegmentUntilItCommits() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("leased", 2);
            Path leases = LocalLogFileSystem.toPath(table.log().paths().leasesDirectory());
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), Clock.systemUTC(), 16)) {
                writer.upsert(Map.of("id", 1L, "name", "a", "score", 1));
                assertThat(files(leases)).isEmpty(); // no segment yet: nothing to protect
                for (long id = 2; id <= 2_000; id++) {
                    writer.upsert(Map.of("id", id, "name", "a", "score", 1));
                }
                List<Path> held = files(leases);
                assertThat(held).hasSize(1);
                String lease = held.getFirst().getFileName().toString().replace(".json", "");
                writer.commit();
                assertThat(files(leases)).isEmpty();
                LogSnapshot snapshot = table.log().latestSnapshot();
                for (int bucket = 0; bucket < 2; bucket++) {
                    assertThat(snapshot.bucket(bucket).segments())
                            .isNotEmpty()
                            .allSatisfy(segment -> assertThat(LogPaths.leaseOfSegment(segment.path()))
                                    .contains(lease));
                }
            }
            // an aborted writer releases its lease too
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), Clock.systemUTC(), 16)) {
                for (long id = 1; id <= 2_000; id++) {
                    writer.upsert(Map.of("id", id, "name", "b", "score", 2));
                }
                assertThat(files(leases)).hasSize(1);
                writer.abort();
                assertThat(files(leases)).isEmpty();
            }
        }
    }

    @Test
    void aTaskWriterStagesUnderItsCoordinatorsLease() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("task", 2);
            try (HeldLease coordinator = HeldLease.acquire(table.log(), "coordinator", Clock.systemUTC())) {
                List<StagedSegment> staged;
                try (LakestreamWriter task = new LakestreamWriter(table, warehouse.allocator(), coordinator.id())) {
                    task.upsert(Map.of("id", 7L, "name", "t", "score", 1));
                    staged = task.prepare();
                }
                assertThat(staged)
                        .isNotEmpty()
                        .allSatisfy(segment -> assertThat(LogPaths.leaseOfSegment(segment.path()))
                                .contains(coordinator.id()));
                // the task's close() does not touch the coordinator's lease
                assertThat(files(LocalLogFileSystem.toPath(table.log().paths().leasesDirectory())))
                        .containsExactly(
                                LocalLogFileSystem.toPath(table.log().paths().lease(coordinator.id())));
                table.log().commit(staged, Optional.empty());
            }
        }
    }

    private static WriterLease read(Path file) throws IOException {
        return LogJson.read(Files.readAllBytes(file), WriterLease.class);
    }

    private static List<Path> files(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(path -> !path.getFileName().toString().startsWith("."))
                    .toList();
        }
    }
}
