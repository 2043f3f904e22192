package io.lakestream.catalog;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static io.lakestream.testing.TestingWarehouse.NAMESPACE;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogPaths;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.LogFiles;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Java writer that loaded a table which is then dropped (and perhaps re-created at the same
 * location, so at the same log path) must not publish: its commit fails with {@code TABLE_DROPPED},
 * and the new table's log holds exactly what was written to the new table.
 */
class TestDroppedTableWriter {
    private static final TableIdentifier ORDERS = TableIdentifier.of(NAMESPACE, "orders");

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void writerOfReCreatedTableIsRefusedAndNewTableIsIntact() {
        warehouse.createPrimaryKeyTable("orders", 2);
        LakestreamTable old = warehouse.load("orders");
        try (LakestreamWriter late = new LakestreamWriter(old, warehouse.allocator())) {
            late.upsert(Map.of("id", 1L, "name", "old"));
            late.upsert(Map.of("id", 2L, "name", "old"));
            // the old writer staged its segments; meanwhile the table is dropped and re-created
            warehouse.catalog().dropTable(ORDERS);
            LakestreamTable recreated = warehouse.createPrimaryKeyTable("orders", 2);
            assertThat(recreated.log().paths()).isEqualTo(old.log().paths());
            try (LakestreamWriter writer = new LakestreamWriter(recreated, warehouse.allocator())) {
                writer.upsert(Map.of("id", 7L, "name", "new"));
                writer.commit();
            }

            assertLakestreamError(late::commit, LakestreamError.TABLE_DROPPED)
                    .hasMessageContaining("orders")
                    .hasMessageContaining("dropped and re-created")
                    .hasMessageContaining("re-run");
        }

        LogSnapshot snapshot = warehouse.load("orders").log().latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(1);
        assertThat(snapshot.bucket(0).endOffset() + snapshot.bucket(1).endOffset())
                .isEqualTo(1);
        // the new table can still be written and read
        try (LakestreamWriter writer = new LakestreamWriter(warehouse.load("orders"), warehouse.allocator())) {
            writer.upsert(Map.of("id", 8L, "name", "new"));
            writer.commit();
        }
        assertThat(warehouse.load("orders").log().latestSnapshot().version()).isEqualTo(2);
    }

    @Test
    void writerOfDroppedTableDoesNotBringItsLogBack() {
        LakestreamTable old = warehouse.createPrimaryKeyTable("orders", 2);
        Path logDirectory = LocalLogFileSystem.toPath(old.log().paths().root());
        try (LakestreamWriter late = new LakestreamWriter(old, warehouse.allocator())) {
            late.upsert(Map.of("id", 1L, "name", "old"));
            warehouse.catalog().dropTable(ORDERS);

            assertLakestreamError(late::commit, LakestreamError.TABLE_DROPPED)
                    .hasMessageContaining("was dropped")
                    .hasMessageContaining("Nothing was committed");
        }
        // no commit (and no identity) was written where the dropped table's log was
        assertThat(logDirectory.resolve(LogPaths.COMMITS_DIRECTORY)).doesNotExist();
        assertThat(logDirectory.resolve(LogPaths.IDENTITY)).doesNotExist();
    }

    @Test
    void tableCreatedBeforeLogIdentityGetsOneWhenLoaded() throws Exception {
        LakestreamTable created = warehouse.createPrimaryKeyTable("orders", 2);
        try (LakestreamWriter writer = new LakestreamWriter(created, warehouse.allocator())) {
            writer.upsert(Map.of("id", 1L, "name", "a"));
            writer.commit();
        }
        LogSnapshot written = created.log().latestSnapshot();
        SegmentFile segment = written.bucket(0).segments().isEmpty()
                ? written.bucket(1).segments().getFirst()
                : written.bucket(0).segments().getFirst();
        // as the table would be if created and written by an earlier version: no identity record, and
        // commits that name no table
        Path logDirectory = LocalLogFileSystem.toPath(created.log().paths().root());
        Files.delete(logDirectory.resolve(LogPaths.IDENTITY));
        Files.delete(LocalLogFileSystem.toPath(created.log().paths().commit(1)));
        new FileStreamLog(created.log().paths().root(), new LocalLogFileSystem(), 2, Clock.systemUTC())
                .commit(
                        List.of(new StagedSegment(
                                segment.bucket(),
                                segment.path(),
                                segment.rowCount(),
                                segment.sizeBytes(),
                                segment.minTimestampMicros(),
                                segment.maxTimestampMicros(),
                                Optional.empty())),
                        Optional.empty());
        assertThat(Files.readString(
                        LocalLogFileSystem.toPath(created.log().paths().commit(1))))
                .doesNotContain(created.lake().uuid().toString());

        // loading it writes the identity record; writes and reads go on
        LakestreamTable loaded = warehouse.load("orders");
        assertThat(logDirectory.resolve(LogPaths.IDENTITY)).exists();
        assertThat(loaded.log().identity())
                .hasValueSatisfying(identity ->
                        assertThat(identity.tableUuid()).isEqualTo(loaded.lake().uuid()));
        try (LakestreamWriter writer = new LakestreamWriter(loaded, warehouse.allocator())) {
            writer.upsert(Map.of("id", 2L, "name", "b"));
            writer.commit();
        }
        LogSnapshot snapshot = warehouse.load("orders").log().latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(2);
        assertThat(snapshot.bucket(0).endOffset() + snapshot.bucket(1).endOffset())
                .isEqualTo(2);

        // and from now on it is bound: a writer of it is refused once it is dropped and re-created
        try (LakestreamWriter late = new LakestreamWriter(warehouse.load("orders"), warehouse.allocator())) {
            late.upsert(Map.of("id", 3L, "name", "c"));
            warehouse.catalog().dropTable(ORDERS);
            warehouse.createPrimaryKeyTable("orders", 2);
            assertLakestreamError(late::commit, LakestreamError.TABLE_DROPPED);
        }
        assertThat(warehouse.load("orders").log().latestSnapshot().version()).isZero();
    }

    @Test
    void createRefusesALocationHoldingAnUnboundLog() throws Exception {
        LakestreamTable created = warehouse.createPrimaryKeyTable("orders", 2);
        String logRoot = created.log().paths().root();
        // an earlier version's table dropped with its log left behind: commits that name no table
        warehouse.catalog().icebergCatalog().dropTable(ORDERS, true);
        Files.deleteIfExists(LocalLogFileSystem.toPath(logRoot).resolve(LogPaths.IDENTITY));
        new FileStreamLog(logRoot, new LocalLogFileSystem(), 2, Clock.systemUTC())
                .commit(List.of(LogFiles.stagedStandIn(LocalLogFileSystem.toPath(logRoot), 0, 5)), Optional.empty());

        assertLakestreamError(() -> warehouse.createPrimaryKeyTable("orders", 2), LakestreamError.TABLE_ALREADY_EXISTS)
                .hasMessageContaining(logRoot)
                .hasMessageContaining("delete the directory");
        // nothing was created: the catalog has no table of that name
        assertThat(warehouse.catalog().listTables(NAMESPACE)).isEmpty();
    }
}
