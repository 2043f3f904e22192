package io.lakestream.sqltests;

import static io.trino.testing.TestingSession.testSessionBuilder;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableMap;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.S3LogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.S3MockServer;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.trino.StockIcebergCatalog;
import io.lakestream.trino.TrinoPluginJars;
import io.lakestream.write.LakestreamWriter;
import io.trino.testing.DistributedQueryRunner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lake and log on S3 (S3Mock, a real S3 protocol server in its own JVM), the catalog in a local SQLite file:
 * Trino writes and reads through its own S3 file system ({@code fs.s3.enabled}, log commits with its
 * conditional create), the Java writer and the tiering service through the AWS SDK ({@code S3FileIO} and
 * Lakestream's S3 log); Trino's union read sees all of it, and Trino's stock Iceberg connector reads the
 * lake from S3.
 */
final class TestTrinoS3FileSystem {
    private static final String BUCKET = "lakestream";
    private static final String WAREHOUSE = "s3://" + BUCKET + "/warehouse";

    @TempDir
    static Path catalogDirectory;

    private static S3MockServer s3;
    private static CatalogConfig config;
    private static DistributedQueryRunner trino;

    @BeforeAll
    static void start() throws Exception {
        s3 = S3MockServer.start(BUCKET);
        String uri = "jdbc:sqlite:" + catalogDirectory.resolve("catalog.db");
        config = new CatalogConfig("jdbc", WAREHOUSE, Optional.of(uri), s3.catalogProperties());
        trino = DistributedQueryRunner.builder(testSessionBuilder().build())
                .setWorkerCount(1)
                .build();
        TrinoPluginJars.install(
                trino, TrinoPluginJars.fromDirectory("lakestream", Path.of(TrinoEngine.pluginDirectory())));
        trino.createCatalog(
                "s3",
                "lakestream",
                ImmutableMap.<String, String>builder()
                        .put("lakestream.catalog.type", "jdbc")
                        .put("lakestream.catalog.uri", uri)
                        .put("lakestream.warehouse", WAREHOUSE)
                        .putAll(WarehouseStorage.trinoS3(s3))
                        .buildOrThrow());
        StockIcebergCatalog.install(
                trino,
                ImmutableMap.<String, String>builder()
                        .put("iceberg.catalog.type", "jdbc")
                        .put("iceberg.jdbc-catalog.driver-class", "org.sqlite.JDBC")
                        // with the locking every user of the catalog file shares (CatalogConfig adds it)
                        .put(
                                "iceberg.jdbc-catalog.connection-url",
                                config.icebergProperties().get("uri"))
                        .put("iceberg.jdbc-catalog.catalog-name", LakestreamCatalog.DEFAULT_NAME)
                        .put("iceberg.jdbc-catalog.default-warehouse-dir", WAREHOUSE)
                        .putAll(WarehouseStorage.trinoS3(s3))
                        .buildOrThrow());
    }

    @AfterAll
    static void stop() {
        if (trino != null) {
            trino.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void trinoJavaWriterAndTieringShareATableOnS3() throws Exception {
        trino.execute("CREATE SCHEMA s3.s");
        trino.execute("CREATE TABLE s3.s.t (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        trino.execute("INSERT INTO s3.s.t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        // two Trino inserts at once: each publishes its own log version with S3's conditional create
        ExecutorService sessions = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> inserts = new ArrayList<>();
            for (int session = 0; session < 2; session++) {
                long id = 10 + session;
                inserts.add(sessions.submit(() -> trino.execute("INSERT INTO s3.s.t VALUES (%s, 'x')".formatted(id))));
            }
            for (Future<?> insert : inserts) {
                insert.get();
            }
        } finally {
            sessions.shutdownNow();
        }
        trino.execute("UPDATE s3.s.t SET v = 'b2' WHERE id = 2");

        // the Java writer and the tiering service, through the AWS SDK, on the same table
        TableIdentifier identifier = TableIdentifier.of("s", "t");
        try (LakestreamCatalog catalog = LakestreamCatalog.open(config);
                BufferAllocator allocator = new RootAllocator()) {
            LakestreamTable table = catalog.loadTable(identifier);
            assertThat(table.log().fileSystem()).isInstanceOf(S3LogFileSystem.class);
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                writer.upsert(Map.of("id", 4L, "v", "d"));
                writer.delete(Map.of("id", 3L));
                writer.commit();
            }
            TieringConfig tieringConfig = TieringConfig.builder()
                    .retention(Duration.ZERO)
                    .compactionDeleteFiles(1)
                    .build();
            try (TieringService tiering = new TieringService(catalog, tieringConfig)) {
                TieringResult result = tiering.tierTable(identifier);
                assertThat(result.error()).isEmpty();
                assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                assertThat(result.segmentsRemoved()).isPositive();
            }
            // a log tail on top of the lake, from Trino: DELETE and MERGE
            trino.execute("DELETE FROM s3.s.t WHERE id = 1");
            trino.execute("MERGE INTO s3.s.t t USING (VALUES (4, 'd2'), (5, 'e')) AS c(id, v) ON t.id = c.id"
                    + " WHEN MATCHED THEN UPDATE SET v = c.v WHEN NOT MATCHED THEN INSERT VALUES (c.id, c.v)");

            assertThat(rows("SELECT id, v FROM s3.s.t")).isEqualTo("[[10, x], [11, x], [2, b2], [4, d2], [5, e]]");
            String lake = "[[1, a], [10, x], [11, x], [2, b2], [4, d]]";
            assertThat(rows("SELECT id, v FROM s3.s.\"t$lake\"")).isEqualTo(lake);
            // Trino's stock Iceberg connector reads the lake the tiering service wrote on S3
            assertThat(rows("SELECT id, v FROM iceberg.s.t")).isEqualTo(lake);

            // everything is in the bucket; no temporary object is left
            LogFileSystem files = table.log().fileSystem();
            List<String> commits = new ArrayList<>();
            files.listRecursively(table.log().paths().root() + "/_commits")
                    .forEach(entry -> commits.add(
                            entry.location().substring(entry.location().lastIndexOf('/') + 1)));
            assertThat(commits)
                    .contains("00000000000000000001.json", "00000000000000000007.json")
                    .noneMatch(name -> name.startsWith(".tmp-"));
            assertThat(table.lake().location()).isEqualTo(WAREHOUSE + "/s/t");
        }
        trino.execute("DROP TABLE s3.s.t");
        assertThat(rows("SHOW TABLES FROM s3.s")).isEqualTo("[]");
    }

    /** The rows as text, sorted. */
    private static String rows(String sql) {
        return trino.execute(sql).getMaterializedRows().stream()
                .map(row -> row.getFields().toString())
                .sorted()
                .toList()
                .toString();
    }
}
