package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.log.HeldLease;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.WriterLease;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.LogFiles;
import io.lakestream.testing.MutableClock;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orphan sweep honours writer leases: a write whose staged segments are far older than the orphan age
 * keeps them while its lease is live and commits correctly; a lease whose file stops changing expires
 * after its timeout by the sweeper's own clock, and then its write is refused cleanly.
 */
class TestWriterLeaseSweep {
    private static final TieringConfig CONFIG = TieringConfig.builder()
            .writerThreads(2)
            .orphanAge(Duration.ofHours(1))
            .orphanSweepInterval(Duration.ofMinutes(10))
            .build();

    @TempDir
    Path directory;

    /**
     * A Java transaction that has written segments (the writer flushes a segment every 1,024 rows) runs
     * into the first sweep of a service started two hours later: before writer leases, the sweep deleted
     * the files the writer was still writing, the commit was acknowledged and tiering failed on the
     * missing segments.
     */
    @Test
    void aLongJavaTransactionKeepsItsSegmentsAndCommits() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("long_write", 2);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 40, "v1"));
            List<LakeOracle.Change> changes = TieringTests.rows(ChangeType.UPSERT, 1_000, 3_000, "long");
            MutableClock clock = new MutableClock(Instant.now().plus(Duration.ofHours(2)));
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                for (LakeOracle.Change change : changes.subList(0, 2_500)) {
                    writer.upsert(oracle.toMap(change.row()));
                }
                List<Path> staged = LogFiles.stagedSegments(table);
                assertThat(staged).isNotEmpty();

                try (TieringService service =
                        new TieringService(warehouse.catalog(), CONFIG, TieringHooks.NONE, clock)) {
                    TieringResult round = service.tierTable(table.identifier());
                    assertThat(round.error()).isEmpty();
                    assertThat(round.orphansRemoved()).isZero();
                }
                assertThat(staged).allSatisfy(path -> assertThat(path).exists());

                for (LakeOracle.Change change : changes.subList(2_500, changes.size())) {
                    writer.upsert(oracle.toMap(change.row()));
                }
                writer.commit();
            }
            oracle.record(changes);

            try (TieringService service = new TieringService(warehouse.catalog(), CONFIG, TieringHooks.NONE, clock)) {
                TieringResult round = service.tierTable(table.identifier());
                assertThat(round.error()).isEmpty();
                assertThat(round.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            }
            Table lake = warehouse.load("long_write").lake();
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
        }
    }

    @Test
    void aLeaseThatStopsChangingExpiresAfterItsTimeoutByTheSweepersClock() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("expiring", 2);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 10, "v1"));
            // a coordinator (say a Spark driver) holds the lease; a task staged segments under it
            HeldLease lease = HeldLease.acquire(table.log(), "driver", Clock.systemUTC());
            List<StagedSegment> staged;
            try (LakestreamWriter task = new LakestreamWriter(table, warehouse.allocator(), lease.id())) {
                for (long id = 100; id < 110; id++) {
                    task.upsert(Map.of("id", id, "name", "late" + id, "score", 1));
                }
                staged = task.prepare();
            }
            Path leaseFile = LocalLogFileSystem.toPath(table.log().paths().lease(lease.id()));
            MutableClock clock = new MutableClock(Instant.now().plus(Duration.ofHours(2)));
            try (TieringService service = new TieringService(warehouse.catalog(), CONFIG, TieringHooks.NONE, clock)) {
                // first seen: live, however old its files
                assertThat(service.tierTable(table.identifier()).orphansRemoved())
                        .isZero();

                // renewed (a heartbeat) within the timeout: still live at the next sweep
                lease.renew();
                clock.advance(WriterLease.DEFAULT_TIMEOUT.plusMinutes(1));
                assertThat(service.tierTable(table.identifier()).orphansRemoved())
                        .isZero();
                assertThat(staged)
                        .allSatisfy(segment -> assertThat(file(table, segment)).exists());

                // unchanged for a whole timeout since the sweeper saw it last: the holder died
                clock.advance(WriterLease.DEFAULT_TIMEOUT.plusMinutes(1));
                TieringResult swept = service.tierTable(table.identifier());
                assertThat(swept.error()).isEmpty();
                assertThat(swept.orphansRemoved()).isEqualTo(staged.size() + 1);
            }
            assertThat(staged)
                    .allSatisfy(segment -> assertThat(file(table, segment)).doesNotExist());
            assertThat(leaseFile).doesNotExist();

            // the holder was only stalled and commits now: refused, nothing published
            long before = table.log().latestSnapshot().version();
            assertThatThrownBy(() -> table.log().commit(staged, Optional.of("stalled-driver")))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.STAGED_SEGMENT_MISSING));
            LogSnapshot after = table.log().latestSnapshot();
            assertThat(after.version()).isEqualTo(before);
            assertThat(after.endOffsets()).isEqualTo(oracle.ends());
            lease.close();
        }
    }

    private static Path file(LakestreamTable table, StagedSegment segment) {
        return LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path()));
    }
}
