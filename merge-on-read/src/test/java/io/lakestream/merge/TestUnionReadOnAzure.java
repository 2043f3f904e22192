package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.AzureLogFileSystem;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.lakestream.log.StagedSegment;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.tiering.orphan.OrphanSweeper;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.azure.adlsv2.ADLSFileIO;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lakestream tables whose log is on Azure Blob Storage (Azurite, a real Blob protocol server in a process of
 * its own), with the catalog in a local SQLite file: the Java writer publishes log commits with Put Blob and
 * {@code If-None-Match: *}, the tiering service reads the log from Azure, removes retired segments and sweeps
 * orphans there, and the union read equals an oracle built from what the test wrote; writers of several
 * catalogs racing for the same versions lose nothing. Most tables keep their lake on local disk; one has its
 * lake on Azurite too, through Iceberg's {@code ADLSFileIO}, configured by the same {@code adls.*} properties
 * (Azurite does not serve the Data Lake listing that the lake's orphan sweep uses: docs/storage.md).
 */
@ExtendWith(Seeds.class)
class TestUnionReadOnAzure {
    private static final List<String> COLUMNS = List.of("id", "name", "score");
    private static final String CONTAINER = "lakestream";
    private static final String ACCOUNT_HOST = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";

    @TempDir
    static Path directory;

    private static AzuriteServer azurite;
    private static CatalogConfig config;
    /** The warehouse (lakes and logs) on Azurite, through Iceberg's ADLSFileIO. */
    private static CatalogConfig azureWarehouse;

    private static LakestreamCatalog catalog;
    private static BufferAllocator allocator;

    @BeforeAll
    static void startAzurite() {
        azurite = AzuriteServer.start(CONTAINER);
        config = new CatalogConfig(
                "jdbc",
                directory.resolve("warehouse").toString(),
                Optional.of("jdbc:sqlite:" + directory.resolve("catalog.db")),
                azurite.catalogProperties(ACCOUNT_HOST));
        Map<String, String> properties = new HashMap<>(azurite.catalogProperties(ACCOUNT_HOST));
        properties.put(CatalogProperties.FILE_IO_IMPL, ADLSFileIO.class.getName());
        azureWarehouse = new CatalogConfig(
                "jdbc",
                "abfss://%s@%s/warehouse".formatted(CONTAINER, ACCOUNT_HOST),
                Optional.of("jdbc:sqlite:" + directory.resolve("azure-catalog.db")),
                properties);
        catalog = LakestreamCatalog.open(config);
        catalog.createNamespace(TestingWarehouse.NAMESPACE);
        allocator = new RootAllocator();
    }

    @AfterAll
    static void stopAzurite() throws IOException {
        if (allocator != null) {
            allocator.close();
        }
        if (catalog != null) {
            catalog.close();
        }
        if (azurite != null) {
            azurite.close();
        }
    }

    @Test
    void primaryKeyTableWrittenTieredAndReadWithItsLogOnAzure() throws IOException {
        LakestreamTable table = createTable("pk");
        assertThat(table.log().fileSystem()).isInstanceOf(AzureLogFileSystem.class);
        assertThat(table.log().paths().root()).startsWith("abfss://" + CONTAINER + "@" + ACCOUNT_HOST + "/tables/");

        TieringConfig tieringConfig =
                TieringConfig.builder().retention(Duration.ZERO).build();
        long seed = Seeds.seed(20261202L);
        Random random = new Random(seed);
        Map<Long, List<Object>> oracle = new TreeMap<>();
        int segmentsRemoved = 0;
        try (TieringService tiering = new TieringService(catalog, tieringConfig)) {
            for (int round = 0; round < 3; round++) {
                RandomChanges.commitRound(table, allocator, random, round, 40, 100, oracle);
                if (round % 2 == 1) {
                    TieringResult result = tiering.tierTable(table.identifier());
                    assertThat(result.error()).isEmpty();
                    assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                    segmentsRemoved += result.segmentsRemoved();
                }
                assertThat(sorted(UnionReads.read(
                                catalog.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator)))
                        .as("union read after round %s (seed %s)", round, seed)
                        .isEqualTo(List.copyOf(oracle.values()));
            }
        }
        assertThat(segmentsRemoved)
                .as("log segments removed by retention, on Azure")
                .isPositive();

        // a new process (a new catalog, its own clients) reads the same union
        try (LakestreamCatalog other = LakestreamCatalog.open(config)) {
            assertThat(sorted(UnionReads.read(
                            other.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator)))
                    .as("seed %s", seed)
                    .isEqualTo(List.copyOf(oracle.values()));
        }
        // the commits are blobs of their own; nothing was published through a temporary blob
        assertThat(table.log().fileSystem().listRecursively(table.log().paths().root() + "/_commits"))
                .extracting(entry -> entry.location().substring(entry.location().lastIndexOf('/') + 1))
                .contains("00000000000000000001.json", "00000000000000000003.json")
                .noneMatch(name -> name.startsWith(LogPublishing.TEMPORARY_PREFIX));
    }

    @Test
    void writersOfSeveralCatalogsRacingForTheSameVersionsLoseNothing() throws Exception {
        LakestreamTable created = createTable("raced");
        Map<Long, List<Object>> oracle = ConcurrentCatalogWriters.race(config, created.identifier(), 3, 3, allocator);
        LakestreamTable table = catalog.loadTable(created.identifier());
        assertThat(table.log().latestSnapshot().version()).isEqualTo(9);
        assertThat(sorted(UnionReads.read(table, ReadOptions.UNION, COLUMNS, allocator)))
                .isEqualTo(List.copyOf(oracle.values()));
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            assertThat(tiering.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
        }
        assertThat(sorted(UnionReads.read(
                        catalog.loadTable(table.identifier()), ReadOptions.of(ReadMode.LAKE), COLUMNS, allocator)))
                .isEqualTo(List.copyOf(oracle.values()));
    }

    @Test
    void orphanSweepRemovesAnAbandonedSegmentOnAzureOnceOldEnough() throws IOException {
        LakestreamTable table = createTable("swept");
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(1, "kept", 1));
            writer.commit();
        }
        // a writer that staged a segment and died
        List<StagedSegment> abandoned;
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(2, "lost", 2));
            abandoned = writer.prepare();
        }
        LogFileSystem files = table.log().fileSystem();
        List<String> orphans = new ArrayList<>();
        abandoned.forEach(segment -> orphans.add(table.log().paths().resolve(segment.path())));
        assertThat(orphans).isNotEmpty();
        for (String orphan : orphans) {
            assertThat(files.exists(orphan)).as(orphan).isTrue();
        }
        // young: kept (a live writer may still publish it)
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            assertThat(tiering.tierTable(table.identifier()).orphansRemoved()).isZero();
        }
        for (String orphan : orphans) {
            assertThat(files.exists(orphan)).as(orphan).isTrue();
        }
        // seen by a service whose clock is past the orphan age (the age is Azure's Last-Modified)
        Clock later = Clock.offset(Clock.systemUTC(), TieringConfig.DEFAULT_LAKE_ORPHAN_AGE.plusHours(1));
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults(), TieringHooks.NONE, later)) {
            TieringResult result = tiering.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            assertThat(result.orphansRemoved()).isGreaterThanOrEqualTo(orphans.size());
        }
        for (String orphan : orphans) {
            assertThat(files.exists(orphan)).as(orphan).isFalse();
        }
        assertThat(UnionReads.read(catalog.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator))
                .isEqualTo(List.of(List.of(1L, "kept", 1)));
    }

    @Test
    void lakeAndLogOnAzureThroughIcebergsAdlsFileIo() throws IOException {
        try (LakestreamCatalog azure = LakestreamCatalog.open(azureWarehouse)) {
            azure.createNamespace(TestingWarehouse.NAMESPACE);
            LakestreamTable table = azure.createTable(
                    TableIdentifier.of(TestingWarehouse.NAMESPACE, "all_on_azure"),
                    TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                            .primaryKey("id")
                            .bucketCount(2)
                            .build());
            String warehouse = "abfss://%s@%s/warehouse/".formatted(CONTAINER, ACCOUNT_HOST);
            assertThat(table.lake().location()).startsWith(warehouse);
            assertThat(table.lake().io()).isInstanceOf(ADLSFileIO.class);
            assertThat(table.log().paths().root()).startsWith(warehouse);
            assertThat(table.log().fileSystem()).isInstanceOf(AzureLogFileSystem.class);

            Map<Long, List<Object>> oracle = new TreeMap<>();
            try (TieringService tiering = new TieringService(azure, TieringConfig.defaults())) {
                for (int round = 0; round < 2; round++) {
                    try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                        for (long id = 0; id < 30; id++) {
                            if (round == 1 && id % 5 == 0) {
                                writer.delete(Map.of("id", id));
                                oracle.remove(id);
                            } else {
                                writer.upsert(row(id + round * 10, "r" + round, (int) id));
                                oracle.put(id + round * 10, List.of(id + round * 10, "r" + round, (int) id));
                            }
                        }
                        writer.commit();
                    }
                    TieringResult result = tiering.tierTable(table.identifier());
                    assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                    // the orphan sweep included: the lake is listed through the Blob API (ADLSFileIO's Data Lake
                    // listing is not served by Azurite)
                    assertThat(result.error()).isEmpty();
                    assertThat(sorted(UnionReads.read(
                                    azure.loadTable(table.identifier()), ReadOptions.UNION, COLUMNS, allocator)))
                            .as("union read after round %s", round)
                            .isEqualTo(List.copyOf(oracle.values()));
                }
            }
            // stock Iceberg reads the lake from Azurite through ADLSFileIO: everything is tiered
            List<List<Object>> lake = new ArrayList<>();
            try (CloseableIterable<Record> records = IcebergGenerics.read(
                            azure.loadTable(table.identifier()).lake())
                    .build()) {
                records.forEach(record -> lake.add(List.of(record.get(0), record.get(1), record.get(2))));
            }
            assertThat(sorted(lake)).isEqualTo(List.copyOf(oracle.values()));

            sweepsTheLakeOnAzure(azure, table.identifier(), oracle);
        }
    }

    /** An orphan data file in the lake on Azure is removed once old enough; the lake's live files are kept. */
    private static void sweepsTheLakeOnAzure(
            LakestreamCatalog azure, TableIdentifier identifier, Map<Long, List<Object>> oracle) throws IOException {
        LakestreamTable table = azure.loadTable(identifier);
        LogFileSystem blobs = table.log().fileSystem();
        String lakeLocation = table.lake().location().replaceAll("/$", "");
        String orphan = lakeLocation + "/data/id_bucket=0/orphan-" + UUID.randomUUID() + ".parquet";
        // a file of a tiering attempt that crashed before its commit
        blobs.replace(orphan, new byte[] {'P', 'A', 'R', '1'});
        List<String> live = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.lake().newScan().planFiles()) {
            tasks.forEach(task -> live.add(task.file().location()));
        }
        assertThat(live).isNotEmpty().allMatch(location -> location.startsWith(lakeLocation + "/data/"));

        // a service whose clock is past the lake's orphan age (the age is Azure's Last-Modified)
        Clock later = Clock.offset(Clock.systemUTC(), TieringConfig.DEFAULT_LAKE_ORPHAN_AGE.plusHours(1));
        int removed = new OrphanSweeper(TieringConfig.defaults(), later).sweep(table, later.millis());

        assertThat(blobs.exists(orphan)).as("the aged orphan %s", orphan).isFalse();
        for (String file : live) {
            assertThat(blobs.exists(file)).as("the live lake file %s", file).isTrue();
        }
        assertThat(removed).isOne();
        assertThat(sorted(UnionReads.read(
                        azure.loadTable(identifier), ReadOptions.of(ReadMode.LAKE), COLUMNS, allocator)))
                .isEqualTo(List.copyOf(oracle.values()));
    }

    private static LakestreamTable createTable(String name) {
        return catalog.createTable(
                TableIdentifier.of(TestingWarehouse.NAMESPACE, name),
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(2)
                        .logPath("abfss://%s@%s/tables/%s/log".formatted(CONTAINER, ACCOUNT_HOST, name))
                        .build());
    }

    private static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> result = new ArrayList<>(rows);
        result.sort((left, right) -> Long.compare((Long) left.get(0), (Long) right.get(0)));
        return result;
    }
}
