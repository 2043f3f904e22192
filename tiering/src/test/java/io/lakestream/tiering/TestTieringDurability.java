package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.RecordingLocalSync;
import io.lakestream.testing.RecordingLocalSync.Event;
import io.lakestream.testing.RecordingLocalSync.Kind;
import io.lakestream.testing.RecordingLogFileSystem;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Acknowledged means durable, for the lake: every file a tiering or compaction commit references (data and
 * delete files, manifests, the manifest list, the metadata file) is forced and its directory synced before
 * the commit is published, through the real {@link LocalFileIO} of the embedded default with a recording
 * {@link RecordingLocalSync}; the log's retention commits are checked by a {@link RecordingLogFileSystem}.
 * Both of tiering's Parquet writers: its columnar one, and Iceberg's (chosen by a table property only
 * Iceberg's writer honours), which writes through Hadoop's local file system.
 */
class TestTieringDurability {
    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void tieringAndCompactionCommitOnlyDurableFiles(boolean icebergWriter) throws Exception {
        RecordingLocalSync sync = new RecordingLocalSync();
        RecordingLogFileSystem logFileSystem = new RecordingLogFileSystem(new LocalLogFileSystem());
        try (LakestreamCatalog catalog = TestingWarehouse.openCatalog(directory, sync, logFileSystem);
                BufferAllocator allocator = new RootAllocator()) {
            LakestreamTable table = catalog.createTable(
                    TableIdentifier.of(TestingWarehouse.NAMESPACE, "t"),
                    TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                            .primaryKey("id")
                            .bucketCount(3)
                            .build());
            if (icebergWriter) {
                table.lake()
                        .updateProperties()
                        .set("write.parquet.bloom-filter-enabled.column.name", "true")
                        .set("write.delete.parquet.compression-codec", "snappy")
                        .commit();
            }
            LakeOracle oracle = new LakeOracle(table);
            TieringHooks marks = (identifier, step, bucket) -> {
                if (step == TieringStep.COMMITTING
                        || step == TieringStep.COMMITTED
                        || step == TieringStep.COMPACTION_COMMITTING) {
                    sync.mark(step + (bucket >= 0 ? " " + bucket : ""));
                }
            };
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .retention(Duration.ZERO)
                    .compactionDeleteFiles(2)
                    .build();
            Table lake = table.lake();
            int compactions = 0;
            try (TieringService service = new TieringService(catalog, config, marks, Clock.systemUTC())) {
                for (int round = 0; round < 3; round++) {
                    oracle.commit(allocator, TieringTests.rows(ChangeType.UPSERT, round * 20L, 60, "r" + round));
                    oracle.commit(allocator, TieringTests.deletes(round * 20L, 5));
                    lake.refresh();
                    Snapshot before = lake.currentSnapshot();
                    assertThat(service.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                    lake.refresh();
                    compactions += checkRound(lake, before, sync.events());
                }
            }
            assertThat(compactions).as("compaction commits checked").isPositive();
            // retention removed tiered segments with log commits of its own
            logFileSystem.assertCommitsDurable(table.log().paths(), 7);
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
        }
    }

    /** Checks the snapshots one round added; returns how many were compactions. */
    private static int checkRound(Table lake, Snapshot before, List<Event> history) {
        List<Snapshot> added = new ArrayList<>();
        for (Snapshot snapshot = lake.currentSnapshot();
                snapshot != null && (before == null || snapshot.snapshotId() != before.snapshotId());
                snapshot = snapshot.parentId() == null ? null : lake.snapshot(snapshot.parentId())) {
            added.add(snapshot);
        }
        assertThat(added).isNotEmpty();
        int compactions = 0;
        int committed = lastMark(history, "COMMITTED", history.size());
        int committing = lastMark(history, "COMMITTING", committed);
        for (Snapshot snapshot : added) {
            List<ContentFile<?>> files = new ArrayList<>();
            snapshot.addedDataFiles(lake.io()).forEach(files::add);
            snapshot.addedDeleteFiles(lake.io()).forEach(files::add);
            assertThat(files).isNotEmpty();
            if (snapshot.summary().containsKey(LakeCommitter.SUMMARY_COMMIT_ID)) {
                // a tiering commit: its data and delete files durable before the commit began, its metadata
                // files before it was published
                for (ContentFile<?> file : files) {
                    RecordingLocalSync.assertDurableBefore(history, path(file.location()), committing, "lake file");
                }
                for (String metadata : metadataFiles(lake, snapshot)) {
                    RecordingLocalSync.assertDurableBefore(history, path(metadata), committed, "metadata file");
                }
            } else {
                assertThat(snapshot.operation()).isEqualTo(DataOperations.REPLACE);
                compactions++;
                int bucket = files.getFirst().partition().get(0, Integer.class);
                int compacting = lastMark(history, "COMPACTION_COMMITTING " + bucket, history.size());
                for (ContentFile<?> file : files) {
                    RecordingLocalSync.assertDurableBefore(
                            history, path(file.location()), compacting, "compacted file");
                }
            }
        }
        return compactions;
    }

    /** The manifests and manifest list a snapshot added, and the metadata file of the table's current version. */
    private static List<String> metadataFiles(Table lake, Snapshot snapshot) {
        List<String> files = new ArrayList<>();
        for (ManifestFile manifest : snapshot.allManifests(lake.io())) {
            if (manifest.snapshotId() != null && manifest.snapshotId() == snapshot.snapshotId()) {
                files.add(manifest.path());
            }
        }
        assertThat(files)
                .as("manifests added by snapshot %s", snapshot.snapshotId())
                .isNotEmpty();
        files.add(snapshot.manifestListLocation());
        if (snapshot.snapshotId() == lake.currentSnapshot().snapshotId()) {
            files.add(((HasTableOperations) lake).operations().current().metadataFileLocation());
        }
        return files;
    }

    private static int lastMark(List<Event> history, String name, int before) {
        OptionalInt index = IntStream.range(0, before)
                .map(i -> before - 1 - i)
                .filter(i -> history.get(i).kind() == Kind.MARK
                        && history.get(i).name().equals(name))
                .findFirst();
        if (index.isEmpty()) {
            throw new AssertionError("no mark %s before event %s: %s".formatted(name, before, history));
        }
        return index.getAsInt();
    }

    private static Path path(String location) {
        return LocalFileIO.path(location);
    }
}
