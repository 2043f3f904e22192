package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.lakestream.log.StagedSegment;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenarios every store the lake and the log can live on must pass, with the catalog in a local SQLite
 * file: the Java writer publishes log commits with the store's create-if-absent, the tiering service writes
 * the lake through the store's Iceberg file IO with compaction and retention, and the union read equals an
 * oracle built from what the test wrote; stock Iceberg reads the lake from the store; writers of several
 * processes' worth of catalogs racing for the same versions lose nothing. A subclass only starts and stops its
 * store, and adds what only its store can show (how files age for the orphan sweep, for one).
 */
@ExtendWith(Seeds.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class UnionReadOnStoreScenarios {
    static final List<String> COLUMNS = List.of("id", "name", "score");

    @TempDir
    static Path catalogDirectory;

    CatalogConfig config;
    LakestreamCatalog catalog;
    BufferAllocator allocator;

    /**
     * Where a started store holds the warehouse.
     *
     * @param warehouse the warehouse location on the store
     * @param catalogProperties what the catalog needs to reach the store (endpoint, credentials)
     */
    record Store(String warehouse, Map<String, String> catalogProperties) {}

    /** Starts the store (once for the test class). */
    abstract Store startStore() throws IOException;

    /** Stops the store; called even if {@link #startStore} failed part way. */
    abstract void stopStore() throws IOException;

    /** Checks that the table's lake and log are on the store, through its file IO and log file system. */
    abstract void assertOnStore(LakestreamTable table);

    @BeforeAll
    void openCatalog() throws IOException {
        Store store = startStore();
        config = new CatalogConfig(
                "jdbc",
                store.warehouse(),
                Optional.of("jdbc:sqlite:" + catalogDirectory.resolve("catalog.db")),
                store.catalogProperties());
        catalog = LakestreamCatalog.open(config);
        catalog.createNamespace(TestingWarehouse.NAMESPACE);
        allocator = new RootAllocator();
    }

    @AfterAll
    void closeCatalog() throws IOException {
        if (allocator != null) {
            allocator.close();
        }
        if (catalog != null) {
            catalog.close();
        }
        stopStore();
    }

    @Test
    void primaryKeyTableWrittenTieredAndRead() throws IOException {
        LakestreamTable table = createTable("pk", true, 3);
        assertOnStore(table);

        TieringConfig tieringConfig = TieringConfig.builder()
                .writerThreads(2)
                .retention(Duration.ZERO)
                .compactionDeleteFiles(2)
                .build();
        Random random = Seeds.random(20261201L);
        Map<Long, List<Object>> oracle = new TreeMap<>();
        int compactions = 0;
        int segmentsRemoved = 0;
        int tiered = 0;
        try (TieringService tiering = new TieringService(catalog, tieringConfig)) {
            for (int round = 0; round < 6; round++) {
                RandomChanges.commitRound(table, allocator, random, round, 60, 150, oracle);
                if (round % 3 != 1) {
                    TieringResult result = tiering.tierTable(table.identifier());
                    assertThat(result.error()).isEmpty();
                    assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                    tiered++;
                    compactions += result.bucketsCompacted().size();
                    segmentsRemoved += result.segmentsRemoved();
                }
                // a fresh handle: the tiering service committed through its own
                LakestreamTable current = catalog.loadTable(table.identifier());
                assertThat(sorted(UnionReads.read(current, ReadOptions.UNION, COLUMNS, allocator)))
                        .as("union read after round %s", round)
                        .isEqualTo(List.copyOf(oracle.values()));
            }
            // the last round was tiered: the lake holds the whole log
            assertThat(tiering.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
        }
        assertThat(tiered).isEqualTo(4);
        assertThat(compactions).as("buckets compacted").isPositive();
        assertThat(segmentsRemoved).as("log segments removed by retention").isPositive();

        // everything is tiered: stock Iceberg reads the same rows from the store (through its file IO)
        LakestreamTable reloaded = catalog.loadTable(table.identifier());
        List<List<Object>> lake = new ArrayList<>();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(reloaded.lake()).build()) {
            records.forEach(record -> lake.add(List.of(record.get(0), record.get(1), record.get(2))));
        }
        assertThat(sorted(lake)).isEqualTo(List.copyOf(oracle.values()));

        // a new process (a new catalog, its own clients) reads the same union
        try (LakestreamCatalog other = LakestreamCatalog.open(config)) {
            assertThat(sorted(UnionReads.read(
                            other.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator)))
                    .isEqualTo(List.copyOf(oracle.values()));
        }

        // the log and the lake are on the store; no temporary file is left
        LogFileSystem files = table.log().fileSystem();
        assertThat(files.listRecursively(table.log().paths().root() + "/_commits"))
                .extracting(entry -> entry.location().substring(entry.location().lastIndexOf('/') + 1))
                .contains("00000000000000000001.json", "00000000000000000006.json")
                .noneMatch(name -> name.startsWith(LogPublishing.TEMPORARY_PREFIX));
        assertThat(files.listRecursively(reloaded.lake().location() + "/data")).isNotEmpty();
    }

    @Test
    void appendOnlyTable() {
        LakestreamTable table = createTable("events", false, 2);
        List<List<Object>> expected = new ArrayList<>();
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            for (int round = 0; round < 3; round++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                    for (long id = 0; id < 50; id++) {
                        // the same id in every round: an append-only table keeps every row
                        writer.append(row(id, "e" + round, round));
                        expected.add(List.of(id, "e" + round, round));
                    }
                    writer.commit();
                }
                if (round < 2) {
                    assertThat(tiering.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                }
            }
        }
        assertThat(sorted(
                        UnionReads.read(catalog.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator)))
                .isEqualTo(sorted(expected));
    }

    @Test
    void writersOfSeveralCatalogsRacingForTheSameVersionsLoseNothing() throws Exception {
        // each writer has a catalog of its own (its own clients and log cache), as separate processes would:
        // all of them read version V and race to publish V + 1; exactly one wins each version, the others
        // re-read and retry, and every acknowledged row is read back once
        LakestreamTable created = createTable("raced", true, 2);
        int writers = 4;
        int commitsEach = 4;
        Map<Long, List<Object>> oracle =
                ConcurrentCatalogWriters.race(config, created.identifier(), writers, commitsEach, allocator);
        long total = (long) writers * commitsEach;
        LakestreamTable table = catalog.loadTable(created.identifier());
        assertThat(table.log().latestSnapshot().version()).isEqualTo(total);
        assertThat(sorted(UnionReads.read(table, ReadOptions.UNION, COLUMNS, allocator)))
                .isEqualTo(List.copyOf(oracle.values()));
        // and after tiering, from the lake
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            assertThat(tiering.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
        }
        assertThat(sorted(UnionReads.read(
                        catalog.loadTable(table.identifier()), ReadOptions.of(ReadMode.LAKE), COLUMNS, allocator)))
                .isEqualTo(List.copyOf(oracle.values()));
    }

    /**
     * The orphan sweep on the store, whose files keep the server's time: an abandoned staged segment, a temporary
     * file of an interrupted publish and a lake file of a failed lake commit are kept while young and removed by
     * a service whose clock is past the log's and the lake's orphan ages; the acknowledged commit's rows and
     * every live lake file stay. For the stores whose sweep lists the store itself (object stores).
     */
    void sweepsAbandonedFilesOnceOldEnough() throws IOException {
        LakestreamTable table = createTable("swept", true, 2);
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(1, "kept", 1));
            writer.commit();
        }
        // a writer that staged a segment and died, a publish interrupted after its temporary object, and a
        // lake file a failed lake commit left
        List<StagedSegment> abandoned;
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(2, "lost", 2));
            abandoned = writer.prepare();
        }
        LogFileSystem files = table.log().fileSystem();
        String logRoot = table.log().paths().root();
        List<String> orphans = new ArrayList<>();
        abandoned.forEach(segment -> orphans.add(table.log().paths().resolve(segment.path())));
        String temporary = logRoot + "/_commits/" + LogPublishing.newTemporaryName();
        try (OutputStream out = files.create(temporary)) {
            out.write(1);
        }
        orphans.add(temporary);
        String lakeOrphan = table.lake().location() + "/data/orphan-of-a-failed-commit.parquet";
        try (OutputStream out = table.lake().io().newOutputFile(lakeOrphan).create()) {
            out.write(1);
        }
        orphans.add(lakeOrphan);
        assertThat(orphans)
                .hasSizeGreaterThan(2)
                .allSatisfy(location -> assertThat(exists(files, location)).isTrue());

        // now they are young: nothing is removed
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            TieringResult result = tiering.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            assertThat(result.orphansRemoved()).isZero();
        }
        assertThat(orphans)
                .allSatisfy(location -> assertThat(exists(files, location)).isTrue());

        // seen by a service whose clock is past the log's orphan age and the lake's
        Clock later = Clock.offset(Clock.systemUTC(), TieringConfig.DEFAULT_LAKE_ORPHAN_AGE.plusHours(1));
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults(), TieringHooks.NONE, later)) {
            TieringResult result = tiering.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            assertThat(result.orphansRemoved()).isGreaterThanOrEqualTo(orphans.size());
        }
        assertThat(orphans)
                .allSatisfy(location -> assertThat(exists(files, location)).isFalse());
        // the acknowledged commit's rows, in the log and (tiered by the first service) in the lake, are intact
        LakestreamTable current = catalog.loadTable(table.identifier());
        assertThat(UnionReads.read(current, ReadOptions.UNION, COLUMNS, allocator))
                .isEqualTo(List.of(List.of(1L, "kept", 1)));
        assertThat(UnionReads.read(current, ReadOptions.of(ReadMode.LAKE), COLUMNS, allocator))
                .isEqualTo(List.of(List.of(1L, "kept", 1)));
    }

    private static boolean exists(LogFileSystem files, String location) {
        try {
            return files.exists(location);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    LakestreamTable createTable(String name, boolean primaryKey, int buckets) {
        TableSpec.Builder spec =
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA).bucketCount(buckets);
        if (primaryKey) {
            spec.primaryKey("id");
        }
        return catalog.createTable(TableIdentifier.of(TestingWarehouse.NAMESPACE, name), spec.build());
    }

    static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> result = new ArrayList<>(rows);
        result.sort((left, right) -> {
            int byId = Long.compare((Long) left.get(0), (Long) right.get(0));
            return byId != 0 ? byId : left.toString().compareTo(right.toString());
        });
        return result;
    }
}
