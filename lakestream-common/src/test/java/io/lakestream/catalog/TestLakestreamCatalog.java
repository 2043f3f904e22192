package io.lakestream.catalog;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static io.lakestream.testing.TestingWarehouse.NAMESPACE;
import static io.lakestream.testing.TestingWarehouse.SIMPLE_SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLakestreamCatalog {
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
    void createLoadListDrop() throws Exception {
        LakestreamTable created = warehouse.createPrimaryKeyTable("orders", 4);
        warehouse.createAppendOnlyTable("events", 2);
        assertThat(Files.exists(directory.resolve(CatalogConfig.EMBEDDED_CATALOG_FILE)))
                .isTrue();

        LakestreamTable loaded = warehouse.load("orders");
        assertThat(loaded.definition().schema().asStruct())
                .isEqualTo(created.definition().schema().asStruct());
        assertThat(loaded.definition().primaryKey()).containsExactly("id");
        assertThat(loaded.definition().bucketCount()).isEqualTo(4);
        assertThat(loaded.log().paths().root()).isEqualTo(loaded.lake().location() + "/log");
        assertThat(warehouse.catalog().listTables(NAMESPACE))
                .containsExactlyInAnyOrder(
                        TableIdentifier.of(NAMESPACE, "orders"), TableIdentifier.of(NAMESPACE, "events"));

        try (LakestreamWriter writer = new LakestreamWriter(loaded, warehouse.allocator())) {
            writer.upsert(Map.of("id", 1L, "name", "a"));
            writer.commit();
        }
        Path logDirectory = LocalLogFileSystem.toPath(loaded.log().paths().root());
        assertThat(logDirectory).isDirectory();

        assertThat(warehouse.catalog().dropTable(TableIdentifier.of(NAMESPACE, "orders")))
                .isTrue();
        assertThat(logDirectory).doesNotExist();
        assertThat(warehouse.catalog().listTables(NAMESPACE)).containsExactly(TableIdentifier.of(NAMESPACE, "events"));
        assertThat(warehouse.catalog().dropTable(TableIdentifier.of(NAMESPACE, "orders")))
                .isFalse();
    }

    @Test
    void aLogWhereCommitsCannotBePublishedIsRefusedAtCreateTable() {
        // Hadoop's GCS connector (and any other through Hadoop) has no atomic create-if-absent (a rename may
        // replace), and no log file system of this process publishes on GCS: such a log could never take a
        // commit, so the table is refused now, not at its first commit, naming what is supported
        for (String logPath : new String[] {"gs://bucket/t/log", "oss://bucket/t/log"}) {
            for (String message : new String[] {
                "Cannot create table db.refused",
                logPath,
                "S3 (s3:, s3a:",
                "Azure Blob Storage (abfs:, abfss:, wasb:, wasbs:",
                "Google Cloud Storage (gs:) is not supported",
                "lakestream.log.path"
            }) {
                assertLakestreamError(
                        () -> warehouse.create(
                                "refused",
                                TableSpec.builder(SIMPLE_SCHEMA)
                                        .primaryKey("id")
                                        .bucketCount(2)
                                        .logPath(logPath)
                                        .build()),
                        LakestreamError.INVALID_TABLE_DEFINITION,
                        message);
            }
        }
        // nothing was created
        assertThat(warehouse.catalog().listTables(NAMESPACE)).isEmpty();
        assertThat(warehouse.catalog().icebergCatalog().tableExists(TableIdentifier.of(NAMESPACE, "refused")))
                .isFalse();
        // a log elsewhere on a file system that publishes is accepted (HDFS and S3: TestLogFileSystems,
        // TestUnionReadOnHdfs, TestUnionReadOnS3)
        String logPath = directory.resolve("elsewhere").toString();
        LakestreamTable table = warehouse.create(
                "accepted",
                TableSpec.builder(SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(2)
                        .logPath(logPath)
                        .build());
        assertThat(table.log().paths().root()).isEqualTo(logPath);
    }

    @Test
    void reopenedCatalogSeesTables() {
        warehouse.createPrimaryKeyTable("orders", 3);
        try (TestingWarehouse reopened = new TestingWarehouse(directory)) {
            assertThat(reopened.load("orders").definition().bucketCount()).isEqualTo(3);
        }
    }

    @Test
    void customLogPath() {
        Path logPath = directory.resolve("elsewhere/log");
        LakestreamTable table = warehouse.create(
                "t",
                TableSpec.builder(SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .logPath(logPath.toString())
                        .build());
        assertThat(warehouse.load("t").log().paths().root()).isEqualTo(logPath.toString());
        assertThat(table.lake().properties()).containsEntry("lakestream.log.path", logPath.toString());
    }

    @Test
    void unknownTable() {
        assertLakestreamError(
                () -> warehouse.load("missing"), LakestreamError.TABLE_NOT_FOUND, "Table db.missing does not exist");
    }

    @Test
    void plainIcebergTableIsNotLakestreamTable() {
        warehouse.catalog().icebergCatalog().createTable(TableIdentifier.of(NAMESPACE, "plain"), SIMPLE_SCHEMA);
        assertLakestreamError(
                () -> warehouse.load("plain"),
                LakestreamError.NOT_A_LAKESTREAM_TABLE,
                "db.plain is a plain Iceberg table");
        assertThat(warehouse.catalog().listTables(NAMESPACE)).isEmpty();
    }

    @Test
    void existingTable() {
        warehouse.createPrimaryKeyTable("t", 1);
        assertLakestreamError(
                () -> warehouse.createPrimaryKeyTable("t", 1),
                LakestreamError.TABLE_ALREADY_EXISTS,
                "Table db.t already exists");
    }

    @Test
    void namesThatEscapeTheWarehouseAreRejectedAndNothingIsCreated() {
        for (String name : new String[] {"..", "a/b", "a\\b", ".hidden", " "}) {
            assertLakestreamError(
                    () -> warehouse.createPrimaryKeyTable(name, 1), LakestreamError.INVALID_NAME, "Invalid table name");
        }
        assertLakestreamError(
                () -> warehouse.catalog().createNamespace(Namespace.of("..")),
                LakestreamError.INVALID_NAME,
                "Invalid namespace name '..'");
        // a name of its own next to the warehouse: another run's leftovers cannot make the check below pass or fail
        String escaped = "escaped-" + directory.getFileName();
        assertLakestreamError(
                () -> warehouse
                        .catalog()
                        .createTable(
                                TableIdentifier.of(Namespace.of("../" + escaped), "t"),
                                TableSpec.builder(SIMPLE_SCHEMA).build()),
                LakestreamError.INVALID_NAME,
                "contains a path separator");
        assertThat(warehouse.catalog().listTables(NAMESPACE)).isEmpty();
        assertThat(directory.getParent().resolve(escaped)).doesNotExist();
    }

    @Test
    void invalidDefinitionCreatesNothing() {
        assertLakestreamError(
                () -> warehouse.create(
                        "t", TableSpec.builder(SIMPLE_SCHEMA).primaryKey("name").build()),
                LakestreamError.INVALID_TABLE_DEFINITION,
                "primary key column 'name' is nullable");
        assertThat(warehouse.catalog().listTables(NAMESPACE)).isEmpty();
        assertThat(warehouse.catalog().icebergCatalog().tableExists(TableIdentifier.of(NAMESPACE, "t")))
                .isFalse();
        assertThat(directory.resolve("db/t")).doesNotExist();
    }

    @Test
    void missingNamespace() {
        assertLakestreamError(
                () -> warehouse
                        .catalog()
                        .createTable(
                                TableIdentifier.of("nope", "t"),
                                TableSpec.builder(SIMPLE_SCHEMA).build()),
                LakestreamError.NAMESPACE_NOT_FOUND,
                "Namespace nope does not exist; create it first");
    }

    @Test
    void hadoopCatalog() throws Exception {
        CatalogConfig config = new CatalogConfig(
                "hadoop", directory.resolve("hadoop-warehouse").toString(), Optional.empty(), Map.of());
        try (LakestreamCatalog catalog = LakestreamCatalog.open(config)) {
            catalog.createNamespace(NAMESPACE);
            catalog.createTable(
                    TableIdentifier.of(NAMESPACE, "t"),
                    TableSpec.builder(SIMPLE_SCHEMA)
                            .primaryKey("id")
                            .bucketCount(2)
                            .build());
            assertThat(catalog.loadTable(TableIdentifier.of(NAMESPACE, "t"))
                            .definition()
                            .bucketCount())
                    .isEqualTo(2);
            assertThat(catalog.listTables(NAMESPACE)).containsExactly(TableIdentifier.of(NAMESPACE, "t"));
        }
    }

    @Test
    void badCatalogConfig() {
        assertLakestreamError(
                () -> new CatalogConfig("hive", "/tmp", Optional.empty(), Map.of()),
                LakestreamError.INVALID_CATALOG_CONFIG,
                "Unknown catalog type 'hive': use jdbc, hadoop or rest");
        assertLakestreamError(
                () -> new CatalogConfig("rest", "/tmp", Optional.empty(), Map.of()),
                LakestreamError.INVALID_CATALOG_CONFIG,
                "A rest catalog needs a URI");
    }
}
