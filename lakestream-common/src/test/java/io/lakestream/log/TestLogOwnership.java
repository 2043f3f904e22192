package io.lakestream.log;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.table.TableDefinition;
import io.lakestream.testing.LogFiles;
import io.lakestream.testing.TestingWarehouse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log handle bound to a table publishes only while the log's identity record names that table, and
 * the log of a table re-created at the same location ignores what a writer of the old table published
 * in a race with the drop.
 */
class TestLogOwnership {
    private static final TableDefinition DEFINITION =
            new TableDefinition(TestingWarehouse.SIMPLE_SCHEMA, List.of("id"), List.of("id"), 2);

    @TempDir
    Path directory;

    private final LocalLogFileSystem fileSystem = new LocalLogFileSystem();

    private String root() {
        return directory.resolve("log").toString();
    }

    private FileStreamLog log(UUID table, LogFileSystem files) {
        return new FileStreamLog(
                root(), files, 2, Clock.systemUTC(), LogIdentity.of(table, DEFINITION), "db.t-" + table);
    }

    private FileStreamLog createdLog(UUID table) {
        FileStreamLog log = log(table, fileSystem);
        log.createIdentity();
        return log;
    }

    @Test
    void identityRecordRoundTrips() throws IOException {
        UUID table = UUID.randomUUID();
        createdLog(table);
        LogIdentity read = LogJson.read(Files.readAllBytes(Path.of(root(), LogPaths.IDENTITY)), LogIdentity.class);
        assertThat(read).isEqualTo(LogIdentity.of(table, DEFINITION));
        assertThat(read.icebergSchema().asStruct())
                .isEqualTo(DEFINITION.schema().asStruct());
        assertThat(read.icebergSchema().identifierFieldIds())
                .isEqualTo(DEFINITION.schema().identifierFieldIds());
    }

    @Test
    void commitOfReplacedTableIsRefusedBeforePublishing() throws IOException {
        UUID oldTable = UUID.randomUUID();
        FileStreamLog old = createdLog(oldTable);
        old.commit(List.of(staged(0, 3)), Optional.empty());
        // dropped and re-created at the same location
        fileSystem.deleteRecursively(root());
        UUID newTable = UUID.randomUUID();
        createdLog(newTable).commit(List.of(staged(1, 1)), Optional.empty());

        assertLakestreamError(() -> old.commit(List.of(staged(0, 2)), Optional.empty()), LakestreamError.TABLE_DROPPED)
                .hasMessageContaining(newTable.toString())
                .hasMessageContaining("Nothing was committed");
        assertThat(Files.exists(Path.of(old.paths().commit(2)))).isFalse();
        assertThat(log(newTable, fileSystem).latestSnapshot().version()).isEqualTo(1);
    }

    /** The table is dropped and re-created between the writer's check and its publish. */
    @Test
    void commitThatRacedADropIsReportedAndSkippedByTheNewTable() {
        UUID oldTable = UUID.randomUUID();
        UUID newTable = UUID.randomUUID();
        createdLog(oldTable);
        FileStreamLog old = log(oldTable, new DropBeforePublish(fileSystem, () -> {
            fileSystem.deleteRecursively(root());
            createdLog(newTable);
        }));

        assertLakestreamError(
                        () -> old.commit(List.of(staged(0, 5)), Optional.of("late")), LakestreamError.TABLE_DROPPED)
                .hasMessageContaining("Log version 1 was published")
                .hasMessageContaining("nothing of this write is visible");

        // the new table's log: version 1 is the old writer's commit, which changes nothing
        FileStreamLog reader = log(newTable, fileSystem);
        LogSnapshot snapshot = reader.latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(1);
        assertThat(snapshot.endOffsets().offset(0)).isZero();
        assertThat(snapshot.idempotencyKeys()).doesNotContainKey("late");
        // and writing goes on after it
        assertThat(reader.commit(List.of(staged(0, 2)), Optional.of("late")).version())
                .isEqualTo(2);
        assertThat(log(newTable, fileSystem).latestSnapshot().endOffsets().offset(0))
                .isEqualTo(2);
        // a handle of the old table that reads the new log learns that its table is gone
        assertLakestreamError(() -> log(oldTable, fileSystem).latestSnapshot(), LakestreamError.TABLE_DROPPED);
    }

    @Test
    void checkpointOfAnotherTableIsIgnored() throws IOException {
        UUID oldTable = UUID.randomUUID();
        FileStreamLog old = createdLog(oldTable);
        for (int i = 0; i < FileStreamLog.CHECKPOINT_INTERVAL; i++) {
            old.commit(List.of(staged(0, 1)), Optional.empty());
        }
        assertThat(Files.exists(Path.of(old.paths().checkpoint(FileStreamLog.CHECKPOINT_INTERVAL))))
                .isTrue();
        // the new table finds the old table's checkpoint and hint (e.g. its drop could not delete them)
        // and commits that name the old table: it skips them all
        Files.delete(Path.of(root(), LogPaths.IDENTITY));
        UUID newTable = UUID.randomUUID();
        createdLog(newTable);
        LogSnapshot snapshot = log(newTable, fileSystem).latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(FileStreamLog.CHECKPOINT_INTERVAL);
        assertThat(snapshot.endOffsets().offset(0)).isZero();
    }

    @Test
    void bucketCountChangedOutsideLakestreamIsRefused() {
        UUID table = UUID.randomUUID();
        createdLog(table);
        FileStreamLog wrongCount = new FileStreamLog(
                root(),
                fileSystem,
                4,
                Clock.systemUTC(),
                LogIdentity.of(table, new TableDefinition(DEFINITION.schema(), List.of("id"), List.of("id"), 4)),
                "db.t");
        assertLakestreamError(
                        () -> wrongCount.commit(List.of(staged(3, 1)), Optional.empty()),
                        LakestreamError.LAKE_LAYOUT_MISMATCH)
                .hasMessageContaining("lakestream.bucket.num = 4")
                .hasMessageContaining("created with 2 buckets");
    }

    @Test
    void legacyCommitsWithoutTableAreRead() throws IOException {
        new FileStreamLog(root(), fileSystem, 2).commit(List.of(staged(1, 4)), Optional.empty());
        UUID table = UUID.randomUUID();
        FileStreamLog bound = log(table, fileSystem);
        assertThat(bound.identity()).isEmpty();
        bound.adoptIdentity();
        assertThat(bound.identity())
                .hasValueSatisfying(identity -> assertThat(identity.tableUuid()).isEqualTo(table));
        assertThat(bound.commit(List.of(staged(1, 1)), Optional.empty()).version())
                .isEqualTo(2);
        assertThat(log(table, fileSystem).latestSnapshot().endOffsets().offset(1))
                .isEqualTo(5);
    }

    /** A staged segment file (its content is not read here) in the log directory as it is now. */
    private StagedSegment staged(int bucket, long rows) {
        return LogFiles.stagedStandIn(Path.of(root()), bucket, rows);
    }

    private interface IoAction {
        void run() throws IOException;
    }

    /** Runs an action (a drop and re-create) right before the first commit file is published. */
    private static final class DropBeforePublish extends RequiredOnlyForwardingLogFileSystem {
        private IoAction beforePublish;

        DropBeforePublish(LogFileSystem delegate, IoAction beforePublish) {
            super(delegate);
            this.beforePublish = beforePublish;
        }

        @Override
        public boolean createExclusive(String location, byte[] content) throws IOException {
            if (beforePublish != null && location.contains(LogPaths.COMMITS_DIRECTORY + "/0")) {
                IoAction action = beforePublish;
                beforePublish = null;
                action.run();
            }
            return super.createExclusive(location, content);
        }
    }
}
