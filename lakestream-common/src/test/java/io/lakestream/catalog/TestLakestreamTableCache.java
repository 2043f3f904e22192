package io.lakestream.catalog;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static io.lakestream.testing.TestingWarehouse.NAMESPACE;
import static io.lakestream.testing.TestingWarehouse.SIMPLE_SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.io.LocalSync;
import io.lakestream.log.CommitMarkers;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.ForwardingLogFileSystem;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPaths;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cache must never serve a state older than the catalog's and the log's when asked for the current one. */
class TestLakestreamTableCache {
    private static final TableIdentifier ORDERS = TableIdentifier.of(NAMESPACE, "orders");

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTableCache cache;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        cache = new LakestreamTableCache(warehouse.catalog(), 10);
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void pinSeesEveryCommitThatReturnedBefore() {
        warehouse.createPrimaryKeyTable("orders", 2);
        PinnedTable empty = cache.pinCurrent(ORDERS);
        assertThat(empty.logVersion()).isZero();

        // commits through another handle on the same log, as another writer would
        long first = upsert(1);
        PinnedTable afterFirst = cache.pinCurrent(ORDERS);
        assertThat(afterFirst.logVersion()).isEqualTo(first);
        long second = upsert(2);
        assertThat(cache.pinCurrent(ORDERS).logVersion()).isEqualTo(second);
        assertThat(cache.current(ORDERS).log().latestSnapshot().version()).isEqualTo(second);

        // a pinned table stays where it was pinned, however many commits follow
        assertThat(afterFirst.table().log().latestSnapshot().version()).isEqualTo(first);
        LakestreamTable again = cache.pinned(ORDERS, afterFirst.lakeMetadataLocation(), afterFirst.logVersion());
        assertThat(again.log().latestSnapshot().endOffsets())
                .isEqualTo(warehouse.load("orders").log().snapshot(first).endOffsets());
        assertLakestreamError(
                () -> again.log().snapshot(second),
                LakestreamError.LOG_RANGE_INVALID,
                "the newest version is " + first);
        assertThatThrownBy(() -> again.log().commit(List.of(), Optional.empty()))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("read-only");
    }

    @Test
    void pinSeesTheNewLakeMetadata() {
        warehouse.createPrimaryKeyTable("orders", 2);
        PinnedTable before = cache.pinCurrent(ORDERS);
        // a lake commit outside the cache (tiering commits the same way): a new metadata file
        warehouse
                .load("orders")
                .lake()
                .updateProperties()
                .set("test.marker", "1")
                .commit();
        PinnedTable after = cache.pinCurrent(ORDERS);
        assertThat(after.lakeMetadataLocation()).isNotEqualTo(before.lakeMetadataLocation());
        assertThat(after.table().lake().properties()).containsEntry("test.marker", "1");
        // the old version is still what a query that pinned it reads
        assertThat(cache.pinned(ORDERS, before.lakeMetadataLocation(), 0).lake().properties())
                .doesNotContainKey("test.marker");
        // a fresh cache (another node) reads a pinned version from its metadata file
        LakestreamTableCache other = new LakestreamTableCache(warehouse.catalog(), 10);
        assertThat(other.pinned(ORDERS, before.lakeMetadataLocation(), 0).lake().properties())
                .doesNotContainKey("test.marker");
        assertLakestreamError(
                () -> other.pinned(ORDERS, before.lakeMetadataLocation() + ".gone", 0),
                LakestreamError.TABLE_NOT_FOUND,
                "was dropped or its metadata expired");
    }

    @Test
    void droppedAndRecreatedTableIsANewTable() {
        warehouse.createPrimaryKeyTable("orders", 2);
        upsert(1);
        upsert(2);
        PinnedTable old = cache.pinCurrent(ORDERS);
        assertThat(old.logVersion()).isEqualTo(2);

        warehouse.catalog().dropTable(ORDERS);
        assertLakestreamError(() -> cache.pinCurrent(ORDERS), LakestreamError.TABLE_NOT_FOUND, "does not exist");

        // the same name and location, another bucket count and a log that starts over
        warehouse.create(
                "orders",
                TableSpec.builder(SIMPLE_SCHEMA).primaryKey("id").bucketCount(3).build());
        PinnedTable recreated = cache.pinCurrent(ORDERS);
        assertThat(recreated.logVersion()).isZero();
        assertThat(recreated.table().definition().bucketCount()).isEqualTo(3);
        assertThat(recreated.table().lake().uuid())
                .isNotEqualTo(old.table().lake().uuid());
        long first = upsert(1);
        assertThat(first).isEqualTo(1);
        PinnedTable afterWrite = cache.pinCurrent(ORDERS);
        assertThat(afterWrite.logVersion()).isEqualTo(1);
        assertThat(afterWrite.table().log().latestSnapshot().bucketCount()).isEqualTo(3);
    }

    @Test
    void sharedLogServesEveryVersionAsAFreshLogDoes() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("orders", 2);
        StreamLog shared = cache.current(ORDERS).log();
        // past a checkpoint, so versions come from checkpoints, from recent snapshots and from commits
        int commits = FileStreamLog.CHECKPOINT_INTERVAL + 20;
        for (int i = 0; i < commits; i++) {
            upsert(i);
            shared.latestSnapshot();
        }
        StreamLog fresh = warehouse.load("orders").log();
        for (long version = commits; version >= 0; version--) {
            LogSnapshot expected = fresh.snapshot(version);
            LogSnapshot actual = shared.snapshot(version);
            assertThat(actual.version()).isEqualTo(version);
            assertThat(actual.buckets()).isEqualTo(expected.buckets());
        }
        assertThat(table.log().latestSnapshot().version()).isEqualTo(commits);
    }

    @Test
    void recentLakeIsReusedWithoutTheCatalogAndTheLogStaysCurrent() {
        warehouse.createPrimaryKeyTable("orders", 2);
        CountingClock clock = new CountingClock(Instant.parse("2026-12-01T00:00:00Z"));
        List<Runnable> refreshes = new ArrayList<>();
        List<LakestreamTable> prepared = new ArrayList<>();
        LakestreamTableCache reusing = new LakestreamTableCache(
                warehouse.catalog(),
                10,
                new LakeReuse(Duration.ofSeconds(1), Duration.ofSeconds(10)),
                clock,
                refreshes::add,
                prepared::add);
        PinnedTable first = reusing.pinRecent(ORDERS);
        long reads = reusing.catalogReads();
        assertThat(reads).isEqualTo(1);

        // the lake moves (as a tiering commit moves it) and the log gets a commit: within the refresh interval
        // the read pins the lake it has, without the catalog, and the log's newest version
        markLake("1");
        long version = upsert(1);
        clock.advance(Duration.ofMillis(999));
        PinnedTable reused = reusing.pinRecent(ORDERS);
        assertThat(reusing.catalogReads()).isEqualTo(reads);
        assertThat(reused.lakeMetadataLocation()).isEqualTo(first.lakeMetadataLocation());
        assertThat(reused.logVersion()).isEqualTo(version);
        assertThat(refreshes).isEmpty();

        // past the refresh interval: still no catalog read on the read's path, one refresh queued (only one)
        clock.advance(Duration.ofMillis(1));
        assertThat(reusing.pinRecent(ORDERS).lakeMetadataLocation()).isEqualTo(first.lakeMetadataLocation());
        assertThat(reusing.pinRecent(ORDERS).lakeMetadataLocation()).isEqualTo(first.lakeMetadataLocation());
        assertThat(reusing.catalogReads()).isEqualTo(reads);
        assertThat(refreshes).hasSize(1);

        // the refresh reads the catalog, prepares the new lake, and only then do reads pin it
        assertThat(reusing.backgroundCatalogReads()).isZero();
        refreshes.removeFirst().run();
        assertThat(reusing.catalogReads()).isEqualTo(reads + 1);
        assertThat(reusing.backgroundCatalogReads()).isEqualTo(1);
        assertThat(prepared)
                .singleElement()
                .satisfies(table -> assertThat(table.lake().properties()).containsEntry("test.marker", "1"));
        PinnedTable refreshed = reusing.pinRecent(ORDERS);
        assertThat(refreshed.table().lake().properties()).containsEntry("test.marker", "1");
        assertThat(refreshed.logVersion()).isEqualTo(version);
        assertThat(reusing.catalogReads()).isEqualTo(reads + 1);

        // a lake older than the maximum staleness is never pinned: the read reads the catalog itself
        markLake("2");
        clock.advance(Duration.ofSeconds(10));
        assertThat(reusing.pinRecent(ORDERS).table().lake().properties()).containsEntry("test.marker", "2");
        assertThat(reusing.catalogReads()).isEqualTo(reads + 2);
        assertThat(reusing.backgroundCatalogReads()).isEqualTo(1);

        // invalidated (DDL through the engine): the next read reads the catalog
        markLake("3");
        reusing.invalidate(ORDERS);
        assertThat(reusing.pinRecent(ORDERS).table().lake().properties()).containsEntry("test.marker", "3");
        assertThat(reusing.catalogReads()).isEqualTo(reads + 3);
    }

    /**
     * A background refresh that read the catalog before a DDL through the engine (which invalidates the table) and
     * finishes after it is not remembered: the next read reads the catalog. Before, it pinned the lake from before the
     * DDL until that lake was stale (an INSERT after ALTER TABLE ... DROP COLUMN saw the dropped column).
     */
    @Test
    void refreshThatReadTheCatalogBeforeAnInvalidationIsNotRemembered() {
        warehouse.createPrimaryKeyTable("orders", 2);
        CountingClock clock = new CountingClock(Instant.parse("2026-12-01T00:00:00Z"));
        List<Runnable> refreshes = new ArrayList<>();
        List<LakestreamTableCache> cache = new ArrayList<>();
        LakestreamTableCache reusing = new LakestreamTableCache(
                warehouse.catalog(),
                10,
                new LakeReuse(Duration.ofSeconds(1), Duration.ofSeconds(10)),
                clock,
                refreshes::add,
                // between the refresh's catalog read and its remembering: the DDL commits and invalidates
                table -> {
                    markLake("ddl");
                    clock.advance(Duration.ofMillis(1));
                    cache.getFirst().invalidate(ORDERS);
                });
        cache.add(reusing);
        reusing.pinRecent(ORDERS);
        markLake("before");
        clock.advance(Duration.ofSeconds(1));
        reusing.pinRecent(ORDERS);
        refreshes.removeFirst().run();

        assertThat(reusing.pinRecent(ORDERS).table().lake().properties()).containsEntry("test.marker", "ddl");
    }

    /**
     * A partition delete is a lake commit: a recent lake from before it would read the deleted rows. Its marker in the
     * log, above the recent lake's log version, makes every pin read the catalog until a lake that holds the delete is
     * pinned; an abandoned marker does not. Before, the recent lake was pinned for up to the maximum staleness.
     */
    @Test
    void aPartitionDeleteMarkerAboveTheRecentLakeMakesThePinReadTheCatalogUntilALakeHoldsTheDelete() {
        warehouse.createPrimaryKeyTable("orders", 2);
        upsert(1);
        LakestreamTableCache reusing = new LakestreamTableCache(
                warehouse.catalog(),
                10,
                new LakeReuse(Duration.ofSeconds(1), Duration.ofSeconds(10)),
                new CountingClock(Instant.parse("2026-12-01T00:00:00Z")),
                refresh -> {},
                table -> {});
        reusing.pinRecent(ORDERS);
        long reads = reusing.catalogReads();
        LakestreamTable table = warehouse.load("orders");

        // a delete that gave up: its marker conflicts with nothing, the recent lake is pinned
        table.log().commit(List.of(), Optional.of(CommitMarkers.partitionDelete("gave-up", 0, Optional.empty())));
        table.log().commit(List.of(), Optional.of(CommitMarkers.partitionDeleteAbandoned("gave-up")));
        reusing.pinRecent(ORDERS);
        assertThat(reusing.catalogReads()).isEqualTo(reads);

        // a delete that may land at any time: every pin reads the catalog
        table.log().commit(List.of(), Optional.of(CommitMarkers.partitionDelete("landing", 0, Optional.empty())));
        reusing.pinRecent(ORDERS);
        reusing.pinRecent(ORDERS);
        assertThat(reusing.catalogReads()).isEqualTo(reads + 2);

        // it lands (a lake snapshot that carries its id): the next pin reads the catalog and gets that lake, which
        // later pins reuse
        table.lake()
                .newFastAppend()
                .set(LakestreamProperties.SUMMARY_PARTITION_DELETE_ID, "landing")
                .commit();
        PinnedTable holding = reusing.pinRecent(ORDERS);
        assertThat(reusing.catalogReads()).isEqualTo(reads + 3);
        assertThat(holding.table().lake().currentSnapshot().summary())
                .containsEntry(LakestreamProperties.SUMMARY_PARTITION_DELETE_ID, "landing");
        assertThat(reusing.pinRecent(ORDERS).lakeMetadataLocation()).isEqualTo(holding.lakeMetadataLocation());
        assertThat(reusing.catalogReads()).isEqualTo(reads + 3);
    }

    @Test
    void recentLakeOfADroppedOrRecreatedTableIsNeverPinned() {
        warehouse.createPrimaryKeyTable("orders", 2);
        upsert(1);
        CountingClock clock = new CountingClock(Instant.parse("2026-12-01T00:00:00Z"));
        LakestreamTableCache reusing = new LakestreamTableCache(
                warehouse.catalog(),
                10,
                new LakeReuse(Duration.ofHours(1), Duration.ofHours(1)),
                clock,
                Runnable::run,
                table -> {});
        PinnedTable old = reusing.pinRecent(ORDERS);
        assertThat(old.logVersion()).isEqualTo(1);

        // dropped by another process: the log's identity record is gone, so the catalog is asked
        warehouse.catalog().dropTable(ORDERS);
        assertLakestreamError(() -> reusing.pinRecent(ORDERS), LakestreamError.TABLE_NOT_FOUND, "does not exist");

        // re-created at the same location: the identity record names another table
        warehouse.create(
                "orders",
                TableSpec.builder(SIMPLE_SCHEMA).primaryKey("id").bucketCount(3).build());
        PinnedTable recreated = reusing.pinRecent(ORDERS);
        assertThat(recreated.table().lake().uuid())
                .isNotEqualTo(old.table().lake().uuid());
        assertThat(recreated.table().definition().bucketCount()).isEqualTo(3);
        assertThat(recreated.logVersion()).isZero();
    }

    /**
     * What a union read's pin reads from the log, counted (never timed): after a commit, the new commit and the next
     * version looked for, and no identity record, since the commit names the table and a dropped table's commits are
     * deleted with its log; with no commit, the version looked for and the identity record. A drop or a re-creation
     * by another process is noticed by the very next pin all the same, also when the new table's log has passed the
     * old handle's version (its commits name another table).
     */
    @Test
    void aRecentPinReadsTheNewCommitAndTheNextVersionAndNoticesADropAtOnce() throws IOException {
        Path shared = Files.createDirectory(directory.resolve("recorded"));
        List<String> reads = new CopyOnWriteArrayList<>();
        LogFileSystem recording = new ForwardingLogFileSystem(new LocalLogFileSystem()) {
            @Override
            public Optional<byte[]> readIfExists(String location) throws IOException {
                reads.add(location.substring(location.lastIndexOf('/') + 1));
                return super.readIfExists(location);
            }
        };
        try (LakestreamCatalog recorded = TestingWarehouse.openCatalog(shared, LocalSync.FSYNC, recording);
                TestingWarehouse writers = new TestingWarehouse(shared)) {
            writers.createPrimaryKeyTable("orders", 2);
            LakestreamTableCache reusing = new LakestreamTableCache(
                    recorded,
                    10,
                    new LakeReuse(Duration.ofHours(1), Duration.ofHours(1)),
                    new CountingClock(Instant.parse("2026-12-01T00:00:00Z")),
                    Runnable::run,
                    table -> {});
            PinnedTable old = reusing.pinRecent(ORDERS);
            long catalogReads = reusing.catalogReads();

            long version = upsert(writers, 1);
            reads.clear();
            assertThat(reusing.pinRecent(ORDERS).logVersion()).isEqualTo(version);
            assertThat(reads).containsExactly(commitFile(version), commitFile(version + 1));

            reads.clear();
            assertThat(reusing.pinRecent(ORDERS).logVersion()).isEqualTo(version);
            assertThat(reads).containsExactly(commitFile(version + 1), LogPaths.IDENTITY);

            // two commits at once: each read once, then the next version looked for
            upsert(writers, 2);
            long newest = upsert(writers, 3);
            reads.clear();
            assertThat(reusing.pinRecent(ORDERS).logVersion()).isEqualTo(newest);
            assertThat(reads).containsExactly(commitFile(newest - 1), commitFile(newest), commitFile(newest + 1));
            assertThat(reusing.catalogReads()).isEqualTo(catalogReads);

            // dropped by another process and re-created at the same location, whose log then passes the old
            // handle's version: its commits name the new table, so the old lake is not pinned
            writers.catalog().dropTable(ORDERS);
            writers.create(
                    "orders",
                    TableSpec.builder(SIMPLE_SCHEMA)
                            .primaryKey("id")
                            .bucketCount(2)
                            .build());
            for (long id = 0; id <= newest; id++) {
                upsert(writers, id);
            }
            PinnedTable recreated = reusing.pinRecent(ORDERS);
            assertThat(recreated.table().lake().uuid())
                    .isNotEqualTo(old.table().lake().uuid());
            assertThat(recreated.logVersion()).isEqualTo(newest + 1);

            // dropped by another process: the next pin finds no commit and no identity record
            writers.catalog().dropTable(ORDERS);
            assertLakestreamError(() -> reusing.pinRecent(ORDERS), LakestreamError.TABLE_NOT_FOUND, "does not exist");
        }
    }

    private static String commitFile(long version) {
        String path = new LogPaths("log").commit(version);
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** A lake commit outside the cache (tiering commits the same way): a new metadata file. */
    private void markLake(String marker) {
        warehouse
                .load("orders")
                .lake()
                .updateProperties()
                .set("test.marker", marker)
                .commit();
    }

    /** Upserts a row through a freshly loaded table (not through the cache); returns the log version. */
    private long upsert(long id) {
        return upsert(warehouse, id);
    }

    private static long upsert(TestingWarehouse warehouse, long id) {
        try (LakestreamWriter writer = new LakestreamWriter(warehouse.load("orders"), warehouse.allocator())) {
            writer.upsert(Map.of("id", id, "name", "n" + id));
            return writer.commit().version();
        }
    }
}
