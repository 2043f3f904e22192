package io.lakestream.sqltests;

import static io.trino.testing.TestingSession.testSessionBuilder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.trino.TrinoPluginJars;
import io.lakestream.write.LakestreamWriter;
import io.trino.testing.DistributedQueryRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trino's HDFS file system layer ({@code fs.hadoop.enabled}), loaded the way a Trino server loads it:
 * from the {@code hdfs} directory of the assembled plugin, in its own class loader.
 */
final class TestTrinoHdfsFileSystem {
    /**
     * A real HDFS (Hadoop's MiniDFSCluster: a name node and a data node in this JVM): tables, log
     * commits (published by an HDFS rename), concurrent inserts, union reads, deletes and the
     * metadata tables, all through Trino's HDFS layer.
     */
    @Test
    void tablesOnHdfs(@TempDir Path hdfsData, @TempDir Path catalogDirectory) throws Exception {
        MiniDFSCluster hdfs = startHdfs(hdfsData);
        try (DistributedQueryRunner trino = runner()) {
            createTable(trino, hdfs, catalogDirectory);
            // two inserts at once: each gets its own log version, none is lost
            ExecutorService sessions = Executors.newFixedThreadPool(2);
            try {
                List<Future<?>> inserts = new ArrayList<>();
                for (int session = 0; session < 2; session++) {
                    long id = 10 + session;
                    inserts.add(sessions.submit(
                            () -> trino.execute("INSERT INTO hdfs.s.t VALUES (%s, 'x')".formatted(id))));
                }
                for (Future<?> insert : inserts) {
                    insert.get();
                }
            } finally {
                sessions.shutdownNow();
            }
            trino.execute("INSERT INTO hdfs.s.t VALUES (2, 'b2')");
            trino.execute("DELETE FROM hdfs.s.t WHERE id = 3");

            assertThat(rows(trino, "SELECT id, v FROM hdfs.s.t")).isEqualTo("[[1, a], [10, x], [11, x], [2, b2]]");
            assertThat(rows(trino, "SELECT sum(log_end_offset), sum(lake_offset) FROM hdfs.s.\"t$offsets\""))
                    .isEqualTo("[[7, 0]]");
            assertThat(rows(trino, "SELECT count(*) FROM hdfs.s.\"t$changes\"")).isEqualTo("[[7]]");
            // everything is on HDFS: the lake's metadata and the log's commits
            FileSystem files = hdfs.getFileSystem();
            assertThat(files.listStatus(new org.apache.hadoop.fs.Path("/warehouse/s/t/log/_commits")))
                    .extracting(status -> status.getPath().getName())
                    .contains("00000000000000000001.json", "00000000000000000005.json")
                    .noneMatch(name -> name.startsWith(".tmp-"));
            assertThat(files.exists(new org.apache.hadoop.fs.Path("/warehouse/s/t/metadata")))
                    .isTrue();
        } finally {
            hdfs.shutdown();
        }
    }

    /**
     * One table on HDFS written by Trino and by the Java writer (each publishing log commits by an HDFS
     * rename, through its own file system layer), tiered by the tiering service (the lake through Hadoop's
     * file IO, retention on): Trino's union read, its lake-only read and its offsets table see the lake
     * the tiering service wrote plus the log tail Trino wrote afterwards.
     */
    @Test
    void javaWriterAndTieringOnHdfsReadThroughTrino(@TempDir Path hdfsData, @TempDir Path catalogDirectory)
            throws Exception {
        MiniDFSCluster hdfs = startHdfs(hdfsData);
        try (DistributedQueryRunner trino = runner()) {
            CatalogConfig config = createTable(trino, hdfs, catalogDirectory);

            TableIdentifier identifier = TableIdentifier.of("s", "t");
            try (LakestreamCatalog catalog = LakestreamCatalog.open(config);
                    BufferAllocator allocator = new RootAllocator()) {
                try (LakestreamWriter writer = new LakestreamWriter(catalog.loadTable(identifier), allocator)) {
                    writer.upsert(Map.of("id", 2L, "v", "b2"));
                    writer.delete(Map.of("id", 3L));
                    writer.upsert(Map.of("id", 4L, "v", "d"));
                    writer.commit();
                }
                TieringConfig tieringConfig =
                        TieringConfig.builder().retention(Duration.ZERO).build();
                try (TieringService tiering = new TieringService(catalog, tieringConfig)) {
                    TieringResult result = tiering.tierTable(identifier);
                    assertThat(result.error()).isEmpty();
                    assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                    assertThat(result.segmentsRemoved()).isPositive();
                }
            }
            trino.execute("INSERT INTO hdfs.s.t VALUES (5, 'e')");
            trino.execute("DELETE FROM hdfs.s.t WHERE id = 1");

            assertThat(rows(trino, "SELECT id, v FROM hdfs.s.t")).isEqualTo("[[2, b2], [4, d], [5, e]]");
            assertThat(rows(trino, "SELECT id, v FROM hdfs.s.\"t$lake\"")).isEqualTo("[[1, a], [2, b2], [4, d]]");
            assertThat(rows(trino, "SELECT sum(lake_offset), sum(log_end_offset) FROM hdfs.s.\"t$offsets\""))
                    .isEqualTo("[[6, 8]]");
            assertThat(hdfs.getFileSystem().exists(new org.apache.hadoop.fs.Path("/warehouse/s/t/data")))
                    .isTrue();
        } finally {
            hdfs.shutdown();
        }
    }

    /**
     * With the local file system turned off, {@code file:} locations go through Hadoop's file system
     * API too. Hadoop's local file system has no exclusive create and its rename replaces an existing
     * file, so a table whose log would be there is refused at {@code CREATE TABLE} with an error that
     * says why, and nothing is created; Trino's own local file system (which leaves no checksum files
     * beside what it writes) publishes by hard link.
     */
    @Test
    void logCommitsNeedAnAtomicPublish(@TempDir Path hadoopWarehouse, @TempDir Path localWarehouse) throws Exception {
        try (DistributedQueryRunner trino = runner()) {
            trino.createCatalog(
                    "hadoop",
                    "lakestream",
                    Map.of(
                            "lakestream.catalog.type", "jdbc",
                            "lakestream.warehouse", hadoopWarehouse.toString(),
                            "fs.hadoop.enabled", "true",
                            "fs.local.enabled", "false"));
            trino.createCatalog(
                    "local",
                    "lakestream",
                    Map.of("lakestream.catalog.type", "jdbc", "lakestream.warehouse", localWarehouse.toString()));

            trino.execute("CREATE SCHEMA hadoop.s");
            assertThatThrownBy(
                            () -> trino.execute(
                                    "CREATE TABLE hadoop.s.t (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)"))
                    .hasMessageContaining("INVALID_TABLE_DEFINITION")
                    .hasMessageContaining("log commits cannot be published");
            // refused before anything was created
            assertThat(trino.execute("SHOW TABLES FROM hadoop.s").getRowCount()).isZero();

            trino.execute("CREATE SCHEMA local.s");
            trino.execute(
                    "CREATE TABLE local.s.t (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
            trino.execute("INSERT INTO local.s.t VALUES (1, 'a'), (2, 'b')");
            assertThat(rows(trino, "SELECT count(*) FROM local.s.t")).isEqualTo("[[2]]");
            assertThat(checksumFiles(localWarehouse)).isEmpty();
        }
    }

    private static MiniDFSCluster startHdfs(Path hdfsData) throws IOException {
        MiniDFSCluster hdfs = new MiniDFSCluster.Builder(new Configuration(), hdfsData.toFile())
                .numDataNodes(1)
                .build();
        hdfs.waitActive();
        return hdfs;
    }

    /**
     * Catalog {@code hdfs}: a jdbc catalog (SQLite in a local directory) whose warehouse is on the HDFS,
     * with the table {@code s.t} (primary key id, two buckets) holding (1, a), (2, b), (3, c). Returns the
     * same catalog's configuration for the Java side.
     */
    private static CatalogConfig createTable(DistributedQueryRunner trino, MiniDFSCluster hdfs, Path catalogDirectory) {
        String warehouse = hdfs.getURI() + "/warehouse";
        String uri = "jdbc:sqlite:" + catalogDirectory.resolve("catalog.db");
        trino.createCatalog(
                "hdfs",
                "lakestream",
                Map.of(
                        "lakestream.catalog.type",
                        "jdbc",
                        "lakestream.catalog.uri",
                        uri,
                        "lakestream.warehouse",
                        warehouse,
                        "fs.hadoop.enabled",
                        "true"));
        trino.execute("CREATE SCHEMA hdfs.s");
        trino.execute(
                "CREATE TABLE hdfs.s.t (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        trino.execute("INSERT INTO hdfs.s.t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        return new CatalogConfig("jdbc", warehouse, Optional.of(uri), Map.of());
    }

    private static DistributedQueryRunner runner() throws Exception {
        DistributedQueryRunner trino = DistributedQueryRunner.builder(
                        testSessionBuilder().build())
                .setWorkerCount(1)
                .build();
        TrinoPluginJars.install(
                trino, TrinoPluginJars.fromDirectory("lakestream", Path.of(TrinoEngine.pluginDirectory())));
        return trino;
    }

    /** The rows as text, sorted. */
    private static String rows(DistributedQueryRunner trino, String sql) {
        return trino.execute(sql).getMaterializedRows().stream()
                .map(row -> row.getFields().toString())
                .sorted()
                .toList()
                .toString();
    }

    private static List<Path> checksumFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".crc"))
                    .toList();
        }
    }
}
