package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.CATALOG;
import static io.lakestream.trino.LakestreamQueryRunner.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The connector's I/O goes through Trino's file system layer: a catalog whose warehouse is in the
 * {@code local:} scheme (which only Trino's local file system serves, rooted at {@code local.location})
 * creates, writes, reads (union read, fast path, changes), tiers and drops tables, and every file lands
 * under that root.
 */
final class TestLakestreamFileSystem extends AbstractTestQueryFramework {
    private Path root;
    private LakestreamTestTables tables;

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        root = Files.createTempDirectory("lakestream-trino-fs").toRealPath();
        String catalogUri = "jdbc:sqlite:" + root.resolve("catalog.db");
        QueryRunner runner = LakestreamQueryRunner.builder(root)
                .setWorkerCount(1)
                .addConnectorProperty("lakestream.warehouse", "local:///warehouse")
                .addConnectorProperty("lakestream.catalog.uri", catalogUri)
                .addConnectorProperty("fs.native-local.enabled", "true")
                .addConnectorProperty("local.location", root.toString())
                .build();
        // tiering, as a service would run it, on the same file systems
        LocalFileSystem fileSystem = new LocalFileSystem(root);
        tables = new LakestreamTestTables(LakestreamCatalog.open(
                new CatalogConfig("jdbc", "local:///warehouse", Optional.of(catalogUri), Map.of()),
                properties -> new LakestreamFileIo(fileSystem),
                location -> new LakestreamLogFileSystem(fileSystem, Optional.of(root))));
        return runner;
    }

    @AfterAll
    void closeTables() throws Exception {
        tables.close();
    }

    @Test
    void primaryKeyTableLivesUnderTheLocalRoot() throws IOException {
        assertUpdate("CREATE TABLE users (id bigint, name varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        Path table = root.resolve("warehouse").resolve(SCHEMA).resolve("users");
        assertThat(files(table.resolve("metadata"))).anyMatch(name -> name.endsWith(".metadata.json"));

        assertUpdate("INSERT INTO users VALUES (1, 'a'), (2, 'b'), (3, 'c')", 3);
        assertThat(files(table.resolve("log").resolve("_commits"))).isNotEmpty();
        assertQuery("SELECT id, name FROM users", "VALUES (1, 'a'), (2, 'b'), (3, 'c')");

        // the lake: data files written through the file IO, read by the fast path (no log tail)
        tables.tier("users");
        assertThat(files(table.resolve("data"))).anyMatch(name -> name.endsWith(".parquet"));
        assertQuery("SELECT id, name FROM users", "VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        assertQuery("SELECT id, name FROM \"users$lake\" WHERE id > 1", "VALUES (2, 'b'), (3, 'c')");

        // a log tail over the lake: the union split reader
        assertUpdate("INSERT INTO users VALUES (2, 'B'), (4, 'd')", 2);
        assertUpdate("DELETE FROM users WHERE id = 3", 1);
        assertQuery("SELECT id, name FROM users", "VALUES (1, 'a'), (2, 'B'), (4, 'd')");
        assertQuery("SELECT count(*) FROM \"users$changes\"", "VALUES 6");

        assertUpdate("DROP TABLE users");
        assertThat(table.resolve("log")).doesNotExist();
    }

    @Test
    void appendOnlyTable() {
        assertUpdate("CREATE TABLE events (id bigint, kind varchar)");
        assertUpdate("INSERT INTO events VALUES (1, 'x'), (2, 'y')", 2);
        tables.tier("events");
        assertUpdate("INSERT INTO events VALUES (3, 'z')", 1);
        assertQuery("SELECT id, kind FROM events", "VALUES (1, 'x'), (2, 'y'), (3, 'z')");
        assertThat(root.resolve("warehouse").resolve(SCHEMA).resolve("events").resolve("log"))
                .isDirectory();
        assertThat(computeScalar("SELECT count(*) FROM " + CATALOG + "." + SCHEMA + ".events"))
                .isEqualTo(3L);
    }

    @Test
    void cloudFileSystemsInstall() throws IOException {
        // the object store file systems are installed from the catalog properties, as in Trino's Iceberg connector
        Path warehouse = Files.createTempDirectory("lakestream-trino-fs-cloud");
        getQueryRunner()
                .createCatalog(
                        "lakestream_cloud",
                        LakestreamConnectorFactory.CONNECTOR_NAME,
                        Map.of(
                                "lakestream.warehouse",
                                warehouse.toString(),
                                "fs.s3.enabled",
                                "true",
                                "s3.region",
                                "us-east-1",
                                "s3.aws-access-key",
                                "test",
                                "s3.aws-secret-key",
                                "test",
                                "fs.gcs.enabled",
                                "true",
                                "gcs.auth-type",
                                "ACCESS_TOKEN",
                                "fs.azure.enabled",
                                "true",
                                "azure.auth-type",
                                "DEFAULT"));
        assertUpdate("CREATE SCHEMA lakestream_cloud.s");
        assertUpdate("CREATE TABLE lakestream_cloud.s.t (id bigint) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO lakestream_cloud.s.t VALUES 1, 2", 2);
        assertQuery("SELECT id FROM lakestream_cloud.s.t", "VALUES 1, 2");
    }

    @Test
    void warehouseWithoutFileSystemIsRefused() {
        assertThatThrownBy(() -> getQueryRunner()
                        .createCatalog(
                                "lakestream_no_s3",
                                LakestreamConnectorFactory.CONNECTOR_NAME,
                                Map.of(
                                        "lakestream.warehouse",
                                        "s3://bucket/warehouse",
                                        "lakestream.catalog.uri",
                                        "jdbc:sqlite:" + root.resolve("no-s3.db"))))
                .hasStackTraceContaining("No file system is enabled for the warehouse s3://bucket/warehouse")
                .hasStackTraceContaining("fs.s3.enabled");
    }

    private static List<String> files(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(Files::isRegularFile).map(Path::toString).toList();
        }
    }
}
