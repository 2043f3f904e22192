package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.MutableClock;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.orphan.LakeReferences;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The orphan sweep of lake metadata: the manifests, manifest list and metadata file of a tiering commit
 * that crashed after writing them are removed once older than the orphan age, not before; every metadata
 * file a retained snapshot or the metadata log references (manifest lists, manifests shared across
 * snapshots and replaced by compaction, metadata files, statistics files) stays, and stock Iceberg still
 * reads every snapshot.
 */
class TestLakeMetadataSweep {
    private static final Duration ORPHAN_AGE = Duration.ofHours(1);

    @TempDir
    Path directory;

    /**
     * Stops a round the way a crash of the process would: Iceberg removes the files of a failed commit when it
     * catches an exception, and nothing catches an error.
     */
    private static final class SimulatedCrash extends Error {
        SimulatedCrash() {
            super("simulated crash inside the lake commit");
        }
    }

    @Test
    void metadataOfACrashedCommitGoesAndReferencedMetadataStays() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("meta", 2);
            LakeOracle oracle = new LakeOracle(table);
            TieringConfig config = TieringTests.eagerCompaction(ORPHAN_AGE);
            MutableClock clock = new MutableClock(Instant.now());
            // Rounds with compaction: manifests shared by snapshots, and replaced ones only older snapshots reference.
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                TieringTests.tierTwiceWithCompaction(warehouse, table, oracle, service);
            }
            Table lake = warehouse.load("meta").lake();
            Path metadata = LocalLogFileSystem.toPath(lake.location()).resolve("metadata");
            // A statistics file the current snapshot references, and one a crashed statistics job left.
            Path statistics = writeStatistics(lake, metadata, true);
            Path orphanStatistics = writeStatistics(lake, metadata, false);
            Set<String> committed = fileNames(metadata);
            committed.remove(orphanStatistics.getFileName().toString());

            // A round whose commit dies after writing its manifests and metadata file: another writer commits
            // first, so Iceberg's first attempt fails at the catalog swap, and the process crashes in the retry.
            AtomicInteger attempts = new AtomicInteger();
            TieringHooks crash = (identifier, step, bucket) -> {
                if (step == TieringStep.COMMITTING) {
                    if (attempts.incrementAndGet() == 1) {
                        warehouse
                                .catalog()
                                .icebergCatalog()
                                .loadTable(identifier)
                                .updateProperties()
                                .set("another.writer", "committed first")
                                .commit();
                    } else {
                        throw new SimulatedCrash();
                    }
                }
            };
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 50, 20, "v3"));
            ExecutorService writers = Executors.newFixedThreadPool(2);
            try {
                TableTiering crashing = new TableTiering(config, warehouse.allocator(), writers, crash, clock);
                assertThatThrownBy(() -> crashing.tier(warehouse.load("meta"))).isInstanceOf(SimulatedCrash.class);
            } finally {
                writers.shutdownNow();
            }
            assertThat(attempts).hasValue(2);
            lake = warehouse.load("meta").lake();
            String concurrentMetadata = LakeReferences.fileName(((org.apache.iceberg.HasTableOperations) lake)
                    .operations()
                    .current()
                    .metadataFileLocation());
            Set<String> leftByTheCrash = fileNames(metadata);
            leftByTheCrash.removeAll(committed);
            leftByTheCrash.remove(concurrentMetadata);
            leftByTheCrash.remove(orphanStatistics.getFileName().toString());
            // what the crashed commit wrote: its manifest list, its manifests and its metadata file
            assertThat(leftByTheCrash)
                    .anyMatch(name -> name.startsWith("snap-") && name.endsWith(".avro"))
                    .anyMatch(name -> name.matches(".*-m\\d+\\.avro"))
                    .anyMatch(name -> name.endsWith(".metadata.json"));
            assertThat(lake.properties()).containsKey("another.writer");

            // Older than the log's orphan age but younger than the lake's: the sweep of a new service keeps
            // them (a lake commit may be in progress, and only their age can tell).
            clock.advance(Duration.ofHours(2));
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                TieringResult result = service.tierTable(table.identifier());
                assertThat(result.error()).isEmpty();
                assertThat(result.orphansRemoved()).isZero();
            }
            assertThat(fileNames(metadata))
                    .containsAll(leftByTheCrash)
                    .contains(orphanStatistics.getFileName().toString());

            clock.advance(TieringConfig.DEFAULT_LAKE_ORPHAN_AGE);
            Set<String> beforeSweep = fileNames(metadata);
            try (TieringService service = new TieringService(warehouse.catalog(), config, TieringHooks.NONE, clock)) {
                TieringResult swept = service.tierTable(table.identifier());
                assertThat(swept.error()).isEmpty();
                assertThat(swept.orphansRemoved()).isGreaterThanOrEqualTo(leftByTheCrash.size() + 1);
            }
            Set<String> afterSweep = fileNames(metadata);
            Set<String> removed = new HashSet<>(beforeSweep);
            removed.removeAll(afterSweep);
            Set<String> expectedRemoved = new HashSet<>(leftByTheCrash);
            expectedRemoved.add(orphanStatistics.getFileName().toString());
            assertThat(removed).isEqualTo(expectedRemoved);
            assertThat(afterSweep).containsAll(committed).contains(concurrentMetadata);
            assertThat(statistics).exists();

            // Stock Iceberg reads every snapshot, each equal to the oracle at its offsets.
            lake = warehouse.load("meta").lake();
            assertThat(lake.snapshots()).hasSizeGreaterThan(3);
            for (Snapshot snapshot : lake.snapshots()) {
                LakePosition position = LakePosition.fromAncestry(
                        snapshot.snapshotId(),
                        org.apache.iceberg.util.SnapshotUtil.ancestorsOf(snapshot.snapshotId(), lake::snapshot));
                assertThat(LakeOracle.readLake(lake, table.definition().schema(), snapshot.snapshotId()))
                        .as("snapshot %s", snapshot.snapshotId())
                        .isEqualTo(oracle.stateAt(position.offsets()));
            }
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(oracle.ends());
            assertThat(TieringTests.orphanDataFiles(lake)).isEmpty();
        }
    }

    /** An (empty) Puffin statistics file of the current snapshot, referenced by the table or not. */
    private static Path writeStatistics(Table lake, Path metadata, boolean referenced) throws IOException {
        long snapshotId = lake.currentSnapshot().snapshotId();
        Path path = metadata.resolve("%s-%s.stats".formatted(snapshotId, UUID.randomUUID()));
        OutputFile file = lake.io().newOutputFile(path.toUri().toString());
        long fileSize;
        long footerSize;
        try (PuffinWriter writer = Puffin.write(file).build()) {
            writer.finish();
            fileSize = writer.fileSize();
            footerSize = writer.footerSize();
        }
        if (referenced) {
            lake.updateStatistics()
                    .setStatistics(new GenericStatisticsFile(
                            snapshotId, path.toUri().toString(), fileSize, footerSize, List.of()))
                    .commit();
        }
        return path;
    }

    private static Set<String> fileNames(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Files::isRegularFile)
                    .map(path -> path.getFileName().toString())
                    .collect(Collectors.toCollection(HashSet::new));
        }
    }
}
