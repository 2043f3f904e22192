package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.FaultyLogFileSystem;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.MutableClock;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
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
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tiering service's orphan sweep on real files: a segment an aborted writer staged and never
 * committed, a temporary file of an interrupted publish and a lake file of a crashed tiering attempt are
 * removed once older than the orphan age, not before; published segments and every lake file a snapshot
 * references (current or older) stay, and the data read back stays correct.
 */
class TestOrphanSweeper {
    private static final Duration ORPHAN_AGE = Duration.ofHours(1);

    @TempDir
    Path directory;

    @Test
    void logOrphansGoAfterTheThresholdAndPublishedSegmentsStay() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("swept_log", 2);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 40, "v1"));

            // A writer (e.g. a Spark task) staged its segments, then its job died: nobody commits or discards them.
            List<StagedSegment> abandoned;
            LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator());
            for (long id = 100; id < 120; id++) {
                writer.upsert(Map.of("id", id, "name", "lost" + id, "score", 1));
            }
            abandoned = writer.prepare();
            writer.close();
            List<Path> staged = abandoned.stream()
                    .map(segment -> logFile(table, segment.path()))
                    .toList();
            assertThat(staged).isNotEmpty().allSatisfy(path -> assertThat(path).exists());
            // A publish interrupted between writing its temporary file and linking it.
            Path temporary = logFile(table, "_commits/.tmp-" + java.util.UUID.randomUUID());
            Files.write(temporary, new byte[] {1});
            // and a lease renewal interrupted the same way
            Path leaseTemporary = logFile(table, "_leases/.tmp-" + java.util.UUID.randomUUID());
            Files.createDirectories(leaseTemporary.getParent());
            Files.write(leaseTemporary, new byte[] {1});

            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 20, 40, "v2"));
            MutableClock clock = new MutableClock(Instant.now());
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .orphanAge(ORPHAN_AGE)
                    .orphanSweepInterval(Duration.ofMinutes(10))
                    .build();
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                TieringResult first = service.tierTable(table.identifier());
                assertThat(first.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                assertThat(first.orphansRemoved()).isZero();

                // Younger than the orphan age: the writer might still commit them.
                clock.advance(Duration.ofMinutes(30));
                oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 50, 10, "v3"));
                assertThat(service.tierTable(table.identifier()).orphansRemoved())
                        .isZero();
                assertThat(staged).allSatisfy(path -> assertThat(path).exists());
                assertThat(temporary).exists();
                assertThat(leaseTemporary).exists();

                clock.advance(Duration.ofHours(2));
                TieringResult swept = service.tierTable(table.identifier());
                assertThat(swept.error()).isEmpty();
                assertThat(swept.orphansRemoved()).isEqualTo(staged.size() + 2);
                assertThat(staged).allSatisfy(path -> assertThat(path).doesNotExist());
                assertThat(temporary).doesNotExist();
                assertThat(leaseTemporary).doesNotExist();

                // Not due again until the sweep interval passed.
                assertThat(service.tierTable(table.identifier()).orphansRemoved())
                        .isZero();
            }

            // Every published segment is still there (retention, 24 h by default, removed none) and the log
            // and the lake still hold exactly the committed changes.
            LogSnapshot log = table.log().latestSnapshot();
            List<Path> published = new ArrayList<>();
            for (int bucket = 0; bucket < log.bucketCount(); bucket++) {
                for (SegmentFile segment : log.bucket(bucket).segments()) {
                    published.add(logFile(table, segment.path()));
                }
            }
            assertThat(published).hasSize(6).allSatisfy(path -> assertThat(path).exists());
            Table lake = warehouse.load("swept_log").lake();
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(oracle.ends());
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
        }
    }

    /**
     * The same under the partition directories of a table whose log is kept per (partition, bucket): an abandoned
     * writer's segments and an interrupted publish's temporary file there go, every published segment stays.
     */
    @Test
    void orphansOfAPartitionedLogGoAndItsPublishedSegmentsStay() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "swept_partitions", 2);
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                PartitionedScores.writeRandomChanges(writer, new Random(5), 60, 30, new HashMap<>());
                writer.commit();
            }
            List<StagedSegment> abandoned;
            LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator());
            writer.upsert(Map.of("id", 100L, "region", "eu", "score", 1));
            writer.upsert(Map.of("id", 101L, "region", "us", "score", 1));
            abandoned = writer.prepare();
            writer.close();
            assertThat(abandoned)
                    .allSatisfy(segment -> assertThat(segment.path()).startsWith("p/region="));
            List<Path> staged = abandoned.stream()
                    .map(segment -> logFile(table, segment.path()))
                    .toList();
            Path temporary = logFile(table, "p/region=eu/bucket-0000/.tmp-" + java.util.UUID.randomUUID());
            Files.createDirectories(temporary.getParent());
            Files.write(temporary, new byte[] {1});
            List<Path> published = table.log().latestSnapshot().liveSegments().stream()
                    .map(segment -> logFile(table, segment.path()))
                    .toList();
            assertThat(published)
                    .isNotEmpty()
                    .allSatisfy(path -> assertThat(path.toString()).contains("/p/region="));

            MutableClock clock = new MutableClock(Instant.now());
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .orphanAge(ORPHAN_AGE)
                    .orphanSweepInterval(Duration.ofMinutes(10))
                    .build();
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                assertThat(service.tierTable(table.identifier()).orphansRemoved())
                        .isZero();
                assertThat(staged).allSatisfy(path -> assertThat(path).exists());

                clock.advance(Duration.ofHours(2));
                TieringResult swept = service.tierTable(table.identifier());
                assertThat(swept.error()).isEmpty();
                assertThat(swept.orphansRemoved()).isEqualTo(staged.size() + 1);
                assertThat(staged).allSatisfy(path -> assertThat(path).doesNotExist());
                assertThat(temporary).doesNotExist();
            }
            // retention (24 h by default) removed none of them, and the sweep neither
            assertThat(published).allSatisfy(path -> assertThat(path).exists());
        }
    }

    /**
     * A write whose staged segments the sweep took for orphans (here: staged by a writer that let them
     * go unprotected, then committed them late) is refused, and nothing of it is published: before, the
     * commit was acknowledged and every read of those buckets failed with {@code LOG_CORRUPT}.
     */
    @Test
    void aLateCommitOfSweptSegmentsIsRefusedAndTheTableStaysReadable() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("late_commit", 2);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 40, "v1"));
            List<StagedSegment> staged;
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                for (long id = 100; id < 120; id++) {
                    writer.upsert(Map.of("id", id, "name", "late" + id, "score", 1));
                }
                staged = writer.prepare();
            }
            long before = table.log().latestSnapshot().version();

            // A service started two hours later sweeps at its first round: the staged files look abandoned.
            MutableClock clock = new MutableClock(Instant.now().plus(Duration.ofHours(2)));
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .orphanAge(ORPHAN_AGE)
                    .build();
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                TieringResult swept = service.tierTable(table.identifier());
                assertThat(swept.error()).isEmpty();
                assertThat(swept.orphansRemoved()).isEqualTo(staged.size());
            }

            assertThatThrownBy(() -> table.log().commit(staged, Optional.of("late-write")))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.STAGED_SEGMENT_MISSING))
                    .hasMessageContaining("was removed as an orphan")
                    .hasMessageContaining("Nothing was committed");
            LogSnapshot after = warehouse.load("late_commit").log().latestSnapshot();
            assertThat(after.idempotencyKeys()).doesNotContainKey("late-write");
            assertThat(after.endOffsets()).isEqualTo(oracle.ends());
            assertThat(after.version()).isEqualTo(before + 1); // the sweep's own commit, which adds no data

            // Tiering goes on and the lake holds exactly the acknowledged changes.
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                TieringResult tiered = service.tierTable(table.identifier());
                assertThat(tiered.error()).isEmpty();
            }
            Table lake = warehouse.load("late_commit").lake();
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
        }
    }

    @Test
    void lakeFilesOfACrashedAttemptGoAndReferencedFilesStay() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("swept_lake", 2);
            LakeOracle oracle = new LakeOracle(table);
            TieringConfig config = TieringTests.eagerCompaction(ORPHAN_AGE);
            MutableClock clock = new MutableClock(Instant.now());
            long firstSnapshot;
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                firstSnapshot = TieringTests.tierTwiceWithCompaction(warehouse, table, oracle, service);
            }
            Table lake = warehouse.load("swept_lake").lake();
            List<Path> lakeFiles = parquetFiles(lake);
            // A tiering attempt that crashed after writing a data file, before its commit.
            Path crashed = lakeFiles.getFirst().resolveSibling("00000-0-crashed-attempt-00001.parquet");
            Files.copy(lakeFiles.getFirst(), crashed);

            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                // A new service sweeps at its first round; the crashed file is too young yet.
                assertThat(service.tierTable(table.identifier()).orphansRemoved())
                        .isZero();
                assertThat(crashed).exists();
            }
            // Older than the log's orphan age, younger than the lake's: a lake commit may still name it.
            clock.advance(Duration.ofHours(2));
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                assertThat(service.tierTable(table.identifier()).orphansRemoved())
                        .isZero();
                assertThat(crashed).exists();
            }
            clock.advance(TieringConfig.DEFAULT_LAKE_ORPHAN_AGE);
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                TieringResult swept = service.tierTable(table.identifier());
                assertThat(swept.error()).isEmpty();
                assertThat(swept.orphansRemoved()).isEqualTo(1);
            }
            assertThat(crashed).doesNotExist();
            assertThat(lakeFiles).allSatisfy(path -> assertThat(path).exists());

            lake = warehouse.load("swept_lake").lake();
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
            // Time travel to the snapshot before compaction still finds all its files.
            try (CloseableIterable<FileScanTask> tasks =
                    lake.newScan().useSnapshot(firstSnapshot).planFiles()) {
                List<FileScanTask> before = new ArrayList<>();
                tasks.forEach(before::add);
                assertThat(before).as("files of the snapshot before compaction").isNotEmpty();
                for (FileScanTask task : before) {
                    assertThat(LocalLogFileSystem.toPath(task.file().location()))
                            .exists();
                }
            }
        }
    }

    /**
     * Where this process cannot publish log commits (the log on {@code s3a:} through Hadoop, written by
     * Trino), deleting a staged segment safely is impossible, so the log is not swept; the lake is, with
     * the lake's age.
     */
    @Test
    void aLogThisProcessCannotPublishIsNotSweptButItsLakeIs() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("read_only_log", 2);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 40, "v1"));
            List<StagedSegment> staged;
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                writer.upsert(Map.of("id", 500L, "name", "staged", "score", 1));
                staged = writer.prepare();
            }
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .orphanAge(ORPHAN_AGE)
                    .retention(Duration.ofDays(30))
                    .build();
            MutableClock clock = new MutableClock(Instant.now());
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                assertThat(service.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            }
            Table lake = warehouse.load("read_only_log").lake();
            Path lakeFile = parquetFiles(lake).getFirst();
            Path crashed = lakeFile.resolveSibling("00000-0-crashed-attempt-00002.parquet");
            Files.copy(lakeFile, crashed);

            FaultyLogFileSystem readOnly = new FaultyLogFileSystem();
            readOnly.readOnly();
            LakestreamCatalog readOnlyLog =
                    new LakestreamCatalog(warehouse.catalog().icebergCatalog(), location -> readOnly);
            clock.advance(TieringConfig.DEFAULT_LAKE_ORPHAN_AGE.plusHours(1));
            try (TieringService service = new TieringService(readOnlyLog, config, TieringHooks.NONE, clock)) {
                TieringResult result = service.tierTable(table.identifier());
                assertThat(result.error()).isEmpty();
                assertThat(result.orphansRemoved()).isEqualTo(1);
            }
            assertThat(crashed).doesNotExist();
            assertThat(staged)
                    .allSatisfy(segment ->
                            assertThat(logFile(table, segment.path())).exists());
        }
    }

    private static Path logFile(LakestreamTable table, String relativePath) {
        return LocalLogFileSystem.toPath(table.log().paths().resolve(relativePath));
    }

    private static List<Path> parquetFiles(Table lake) throws IOException {
        try (Stream<Path> files =
                Files.walk(LocalLogFileSystem.toPath(lake.location()).resolve("data"))) {
            return files.filter(path -> path.toString().endsWith(".parquet"))
                    .sorted()
                    .toList();
        }
    }
}
