package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static io.lakestream.testing.TestingWarehouse.NAMESPACE;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.catalog.LakestreamTableCache;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.catalog.PinnedTable;
import io.lakestream.common.LakestreamError;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.FaultyLogFileSystem;
import io.lakestream.plan.BucketFreshness;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read whose handle on the lake is out of date: the table (its Iceberg table) was loaded before another
 * process tiered the log and retention then removed the tiered range. Lake plus log tail of that handle
 * misses the range; the read must pin the newer lake that holds it and return every row, and report the
 * range as removed before tiering only when the newest lake really lacks it. The oracle is what the test
 * wrote.
 */
class TestUnionReadStaleLake {
    private static final List<String> ALL = List.of("id", "name", "score");

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private ExecutorService threads;
    // id -> row, as written
    private final Map<Long, List<Object>> oracle = new TreeMap<>();

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        threads = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        warehouse.close();
    }

    @Test
    void handleLoadedBeforeTieringAndRetentionReadsTheNewerLake() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("t", 2);
        upsert(table, 1, 6, "a");
        tier(table);
        LakestreamTable stale = warehouse.load("t");
        upsert(table, 5, 10, "b");
        delete(table, 2);

        // another process: tiering, then retention of everything tiered
        tierAndRetain(warehouse.load("t"));
        assertThat(LakePosition.current(stale.lake()).offsets().offset(0))
                .as("the handle's lake is behind the log's start")
                .isLessThan(stale.log().latestSnapshot().bucket(0).startOffset());

        assertThat(read(stale, ReadOptions.UNION)).containsExactlyInAnyOrderElementsOf(oracle.values());
        // t$offsets and the CLI's status pin the same way: the lake they report holds what the log lost
        List<BucketFreshness> freshness = UnionReadPlanner.freshness(stale, ReadOptions.UNION);
        assertThat(freshness).hasSize(stale.definition().bucketCount());
        for (BucketFreshness bucket : freshness) {
            assertThat(bucket.lakeOffset())
                    .isEqualTo(
                            stale.log().latestSnapshot().bucket(bucket.bucket()).startOffset());
        }
    }

    @Test
    void appendOnlyHandleLoadedBeforeTieringAndRetentionReadsTheNewerLake() {
        LakestreamTable table = warehouse.createAppendOnlyTable("events", 2);
        LakestreamTable stale = warehouse.load("events");
        append(table, 1, 4, "a");
        append(table, 5, 8, "b");
        tierAndRetain(warehouse.load("events"));
        append(table, 9, 9, "c");

        assertThat(read(stale, ReadOptions.UNION)).containsExactlyInAnyOrderElementsOf(oracle.values());
    }

    /** A time-travel read through the stale handle, to a version the newer lake holds. */
    @Test
    void timeTravelThroughAStaleHandleReadsTheNewerLake() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("t", 2);
        upsert(table, 1, 4, "a");
        tier(table);
        LakestreamTable stale = warehouse.load("t");
        upsert(table, 3, 8, "b");
        tierAndRetain(warehouse.load("t"));
        long version = table.log().latestSnapshot().version();
        List<List<Object>> atVersion = new ArrayList<>(oracle.values());
        upsert(table, 1, 2, "later");

        assertThat(read(stale, ReadOptions.UNION.atLogVersion(version))).containsExactlyInAnyOrderElementsOf(atVersion);
        assertThat(read(stale, ReadOptions.UNION)).containsExactlyInAnyOrderElementsOf(oracle.values());
    }

    /**
     * A version whose changes retention removed, and whose lake snapshot lake maintenance expired: nothing
     * can serve it, and the error says to read a newer version (not that retention ran ahead of tiering).
     */
    @Test
    void timeTravelToAVersionNoLakeSnapshotHoldsSaysReadANewerVersion() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("t", 1);
        upsert(table, 1, 2, "a");
        tierAndRetain(table);
        long tieredSnapshot = table.lake().currentSnapshot().snapshotId();
        long version = table.log().latestSnapshot().version();
        upsert(table, 3, 3, "b");
        tier(table);
        table.lake().expireSnapshots().expireSnapshotId(tieredSnapshot).commit();

        assertLakestreamError(
                        () -> read(warehouse.load("t"), ReadOptions.UNION.atLogVersion(version)),
                        LakestreamError.LOG_RANGE_REMOVED)
                .hasMessageContaining("as of log version %s cannot be read".formatted(version))
                .hasMessageContaining("Read a newer version")
                .hasMessageNotContaining("before tiering");
        assertThat(read(warehouse.load("t"), ReadOptions.UNION)).containsExactlyInAnyOrderElementsOf(oracle.values());
    }

    /**
     * The engines' table cache pins the lake, then the log: tiering and retention by another process in
     * between leave the lake it read behind the log it reads next. The pin reads the lake again.
     */
    @Test
    void cachedPinReadsTheLakeAgainWhenTieringAndRetentionRunBetweenItsReads() throws Exception {
        LakestreamTable table = warehouse.createPrimaryKeyTable("t", 2);
        FaultyLogFileSystem logFileSystem = new FaultyLogFileSystem();
        try (LakestreamCatalog catalog = LakestreamCatalog.open(
                CatalogConfig.embedded(directory),
                properties -> {
                    LocalFileIO io = new LocalFileIO();
                    io.initialize(properties);
                    return io;
                },
                location -> logFileSystem)) {
            LakestreamTableCache cache = new LakestreamTableCache(catalog, 10);
            TableIdentifier identifier = TableIdentifier.of(NAMESPACE, "t");
            upsert(table, 1, 6, "a");
            tier(table);
            cache.pinCurrent(identifier);
            upsert(table, 4, 9, "b");
            delete(table, 1);

            AtomicBoolean ran = new AtomicBoolean();
            // right after the cache read the lake, before it reads the log
            logFileSystem.beforeNextRead(() -> {
                tierAndRetain(warehouse.load("t"));
                ran.set(true);
            });
            PinnedTable pinned = cache.pinCurrent(identifier);
            assertThat(ran).isTrue();

            assertThat(read(pinned.table(), ReadOptions.UNION)).containsExactlyInAnyOrderElementsOf(oracle.values());
            assertThat(pinned.logVersion())
                    .isEqualTo(warehouse.load("t").log().latestSnapshot().version());
        }
    }

    /** Retention that ran ahead of tiering is still reported as such, with the newest lake consulted. */
    @Test
    void rangeRemovedBeforeTieringIsStillAnError() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("t", 2);
        upsert(table, 1, 4, "a");
        tier(table);
        LakestreamTable stale = warehouse.load("t");
        upsert(table, 5, 8, "b");
        // retention misconfigured to run ahead of tiering (through another handle)
        LakestreamTable other = warehouse.load("t");
        assertThat(other.log().removeSegments(other.log().latestSnapshot().endOffsets(), Long.MAX_VALUE))
                .isPositive();

        assertLakestreamError(
                () -> read(stale, ReadOptions.UNION),
                LakestreamError.LOG_RANGE_REMOVED,
                "were removed by retention before tiering put them in the lake");
    }

    private void upsert(LakestreamTable table, long fromId, long toId, String name) {
        write(table, writer -> {
            for (long id = fromId; id <= toId; id++) {
                writer.upsert(row(id, name, (int) id));
                oracle.put(id, List.of(id, name, (int) id));
            }
        });
    }

    private void append(LakestreamTable table, long fromId, long toId, String name) {
        write(table, writer -> {
            for (long id = fromId; id <= toId; id++) {
                writer.append(row(id, name, (int) id));
                oracle.put(id, List.of(id, name, (int) id));
            }
        });
    }

    private void delete(LakestreamTable table, long id) {
        write(table, writer -> writer.delete(Map.of("id", id)));
        oracle.remove(id);
    }

    private void write(LakestreamTable table, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }

    private void tier(LakestreamTable table) {
        TieringConfig config =
                TieringConfig.builder().retention(Duration.ofDays(1)).build();
        TieringResult result = new TableTiering(
                        config, warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC())
                .tier(table);
        assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
    }

    /** Tiers the table, then removes every log segment the lake holds, as the tiering service's retention does. */
    private void tierAndRetain(LakestreamTable table) {
        tier(table);
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();
    }

    private List<List<Object>> read(LakestreamTable table, ReadOptions options) {
        return UnionReads.read(table, options, ALL, warehouse.allocator());
    }
}
