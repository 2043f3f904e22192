package io.lakestream.spark.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.IsolatedClassPath;
import io.lakestream.testing.S3MockServer;
import io.lakestream.testing.TestingPostgres;
import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The shaded {@code lakestream-spark-runtime} jar as a user runs it: {@code --jars} on a plain Spark
 * 4.1.3 class path (Spark's jars only), and next to the stock {@code iceberg-spark-runtime} jar. The tests
 * with only the runtime jar on Spark's class path share one session (see {@link #runtimeOnlySpark}), as
 * the other class paths each need a session of their own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkRuntimeJar {
    private static final String CATALOG_CLASS = "io.lakestream.spark.LakestreamCatalog";
    private static final String AZURE_CONTAINER = "lakestream";
    private static final String AZURE_ACCOUNT_HOST = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";
    private static final String AZURE_LOG = "abfss://%s@%s/logs/users".formatted(AZURE_CONTAINER, AZURE_ACCOUNT_HOST);

    private final Path runtimeJar = IsolatedClassPath.file("runtime.jar");
    private final List<Path> sparkJars = IsolatedClassPath.classPathFile("runtime.spark.classpath.file");
    /** The test's own Azure client (its class path holds no Azure SDK, and the ones under test are not used). */
    private final List<Path> azureSdk = IsolatedClassPath.classPathFile("runtime.azure-sdk.classpath.file");

    private final LakestreamTieringCommand tiering = new LakestreamTieringCommand();
    private Path runtimeOnlyWarehouse;
    private Path azureWarehouse;
    private IsolatedSpark runtimeOnlySpark;
    private TestingPostgres postgres;
    private AzuriteServer azurite;

    @Test
    void jarHoldsOnlyLakestreamAndRelocatedClasses() throws IOException {
        assertThat(runtimeJar.getFileName().toString()).matches("lakestream-spark-runtime-.*\\.jar");
        List<String> foreign = new ArrayList<>();
        try (ZipFile jar = new ZipFile(runtimeJar.toFile())) {
            for (ZipEntry entry : Collections.list(jar.entries())) {
                String name = entry.getName();
                // everything bundled is relocated under io.lakestream.shaded, except SQLite (native library by package
                // path)
                if (name.endsWith(".class") && !name.startsWith("io/lakestream/") && !name.startsWith("org/sqlite/")) {
                    foreign.add(name);
                }
            }
            assertThat(foreign).as("unrelocated classes").isEmpty();
            assertThat(jar.getEntry("io/lakestream/spark/LakestreamCatalog.class"))
                    .isNotNull();
            assertThat(jar.getEntry("io/lakestream/shaded/org/apache/iceberg/Table.class"))
                    .isNotNull();
            assertThat(jar.getEntry("io/lakestream/shaded/org/apache/parquet/hadoop/ParquetFileReader.class"))
                    .isNotNull();
            for (String absent : List.of("org/apache/spark/", "scala/", "org/apache/hadoop/", "org/apache/arrow/")) {
                assertThat(Collections.list(jar.entries()).stream().map(ZipEntry::getName))
                        .as("Spark ships %s", absent)
                        .noneMatch(
                                name -> name.startsWith(absent) || name.startsWith("io/lakestream/shaded/" + absent));
            }
            String register = new String(
                    jar.getInputStream(
                                    jar.getEntry("META-INF/services/org.apache.spark.sql.sources.DataSourceRegister"))
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(register.lines()).contains("io.lakestream.spark.LakestreamSource");
            // the PostgreSQL driver of a jdbc catalog on a server, relocated, and registered under its new name
            String drivers = new String(
                    jar.getInputStream(jar.getEntry("META-INF/services/java.sql.Driver"))
                            .readAllBytes(),
                    StandardCharsets.UTF_8);
            assertThat(drivers.lines()).contains("org.sqlite.JDBC", "io.lakestream.shaded.org.postgresql.Driver");
            assertThat(jar.getEntry("io/lakestream/shaded/org/postgresql/Driver.class"))
                    .isNotNull();
        }
    }

    @Test
    void sparkWithOnlyTheRuntimeJar() throws IOException {
        IsolatedSpark spark = runtimeOnlySpark();
        Path warehouse = runtimeOnlyWarehouse;
        assertThat(spark.hasClass("org.apache.iceberg.Table"))
                .as("Iceberg on the class path besides the runtime jar")
                .isFalse();
        assertThat(spark.hasClass("org.apache.arrow.vector.BigIntVector")).isTrue();

        spark.sql("CREATE NAMESPACE lakestream.db");
        spark.sql("CREATE TABLE lakestream.db.users (id BIGINT, name STRING, score INT) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        spark.sql("CREATE TABLE lakestream.db.events (id BIGINT NOT NULL, kind STRING) "
                + "TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')");
        spark.sql("INSERT INTO lakestream.db.users VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cy', 30)");
        spark.sql("INSERT INTO lakestream.db.events VALUES (1, 'click'), (2, 'view')");
        // a row group every 10 rows: a filter skips row groups (our relocated Parquet reads the footer)
        spark.sql("CREATE TABLE lakestream.db.groups (id BIGINT, v INT) TBLPROPERTIES ('primary-key'='id', "
                + "'write.parquet.row-group-size-bytes'='1', 'write.parquet.row-group-check-min-record-count'='10', "
                + "'write.parquet.row-group-check-max-record-count'='10')");
        spark.sql("INSERT INTO lakestream.db.groups SELECT id, CAST(id * 2 AS INT) FROM range(100)");

        // the lake gets Parquet files (written by the tiering service), then a log tail on top
        tiering.tierOnce(warehouse);
        spark.sql("INSERT INTO lakestream.db.users VALUES (2, 'bob2', 25), (4, 'dee', 40)");
        spark.sql("INSERT INTO lakestream.db.events VALUES (3, 'buy')");
        spark.sql("DELETE FROM lakestream.db.users WHERE id = 1");

        assertThat(spark.sql("SELECT id, name, score FROM lakestream.db.users ORDER BY id"))
                .containsExactly(List.of(2L, "bob2", 25), List.of(3L, "cy", 30), List.of(4L, "dee", 40));
        assertThat(spark.sql("SELECT id, name FROM lakestream.db.`users$lake` ORDER BY id"))
                .containsExactly(List.of(1L, "ann"), List.of(2L, "bob"), List.of(3L, "cy"));
        assertThat(spark.sql("SELECT id, kind FROM lakestream.db.events ORDER BY id"))
                .containsExactly(List.of(1L, "click"), List.of(2L, "view"), List.of(3L, "buy"));
        assertThat(spark.sql("SELECT id FROM lakestream.db.events WHERE kind = 'view'"))
                .containsExactly(List.of(2L));
        assertThat(spark.sql("SELECT id, v FROM lakestream.db.groups WHERE v BETWEEN 150 AND 155 ORDER BY id"))
                .containsExactly(List.of(75L, 150), List.of(76L, 152), List.of(77L, 154));
        assertThat(spark.read("lakestream", Map.of("table", "db.users")))
                .extracting(row -> row.get(0))
                .containsExactlyInAnyOrder(2L, 3L, 4L);
        assertThat(spark.read("lakestream", Map.of("table", "db.events", "read-mode", "lake")))
                .hasSize(2);

        tiering.tierOnce(warehouse);
        assertThat(spark.sql("SELECT id, name, score FROM lakestream.db.users WITH ('read-mode'='lake') ORDER BY id"))
                .as("deletes and upserts tiered into the lake")
                .containsExactly(List.of(2L, "bob2", 25), List.of(3L, "cy", 30), List.of(4L, "dee", 40));
    }

    @Test
    void sparkWithOnlyTheRuntimeJarOnAPostgresCatalog() throws IOException {
        IsolatedSpark spark = runtimeOnlySpark();
        // the only PostgreSQL driver is the runtime jar's relocated one
        assertThat(spark.hasClass("org.postgresql.Driver")).isFalse();

        spark.sql("CREATE NAMESPACE pg.db");
        spark.sql("CREATE TABLE pg.db.users (id BIGINT, name STRING) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        spark.sql("INSERT INTO pg.db.users VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')");
        spark.sql("DELETE FROM pg.db.users WHERE id = 2");
        assertThat(spark.sql("SELECT id, name FROM pg.db.users ORDER BY id"))
                .containsExactly(List.of(1L, "ann"), List.of(3L, "cy"));
        assertThat(spark.sql("SHOW TABLES IN pg.db")).hasSize(1);
    }

    /**
     * A warehouse on S3 (S3Mock) with the runtime jar plus the AWS SDK a user adds for Iceberg's S3 support (the SDK's
     * s3, kms, sts and apache-client jars: what {@code iceberg-aws-bundle} holds; the bundle itself is not available
     * to this build): Spark writes log commits with S3's conditional create and reads them back.
     */
    @Test
    void sparkWithTheRuntimeJarAndTheAwsSdkOnS3() throws IOException {
        Path directory = Files.createTempDirectory("lakestream-runtime-s3");
        try (S3MockServer s3 = S3MockServer.start("lakestream")) {
            Map<String, String> config = new java.util.HashMap<>(lakestreamCatalog("s3", directory));
            config.put("spark.sql.catalog.s3.warehouse", "s3://lakestream/warehouse");
            config.put("spark.sql.catalog.s3.uri", "jdbc:sqlite:" + directory.resolve("catalog.db"));
            s3.catalogProperties().forEach((name, value) -> config.put("spark.sql.catalog.s3." + name, value));
            List<Path> classPath = new ArrayList<>(sparkJars);
            classPath.add(runtimeJar);
            classPath.addAll(IsolatedClassPath.classPathFile("runtime.aws-sdk.classpath.file"));
            try (IsolatedSpark spark = new IsolatedSpark("runtime-jar-s3", classPath, config)) {
                assertThat(spark.hasClass("software.amazon.awssdk.services.s3.S3Client"))
                        .isTrue();

                spark.sql("CREATE NAMESPACE s3.db");
                spark.sql("CREATE TABLE s3.db.users (id BIGINT, name STRING) "
                        + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
                spark.sql("INSERT INTO s3.db.users VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')");
                spark.sql("UPDATE s3.db.users SET name = 'bob2' WHERE id = 2");
                spark.sql("DELETE FROM s3.db.users WHERE id = 3");
                assertThat(spark.sql("SELECT id, name FROM s3.db.users ORDER BY id"))
                        .containsExactly(List.of(1L, "ann"), List.of(2L, "bob2"));
            }
        }
        // the catalog file is the only local file: lake metadata and the log are on S3
        try (var files = Files.list(directory)) {
            assertThat(files.map(path -> path.getFileName().toString()))
                    .allMatch(name -> name.startsWith("catalog.db"));
        }
    }

    @Test
    void sparkWithTheRuntimeJarAndTheStockIcebergRuntime() throws IOException {
        Path warehouse = Files.createTempDirectory("lakestream-runtime-iceberg");
        List<Path> classPath = new ArrayList<>(sparkJars);
        classPath.add(runtimeJar);
        classPath.add(IsolatedClassPath.file("runtime.iceberg-spark-runtime"));
        // ours as "ls"; the stock Iceberg catalog as "lakestream", the name the embedded JDBC catalog keys tables by
        Map<String, String> config = new java.util.HashMap<>(lakestreamCatalog("ls", warehouse));
        config.put("spark.sql.catalog.lakestream", "org.apache.iceberg.spark.SparkCatalog");
        config.put("spark.sql.catalog.lakestream.catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog");
        config.put("spark.sql.catalog.lakestream.uri", "jdbc:sqlite:" + warehouse.resolve("lakestream-catalog.db"));
        config.put("spark.sql.catalog.lakestream.jdbc.schema-version", "V1");
        config.put("spark.sql.catalog.lakestream.warehouse", warehouse.toString());
        config.put("spark.sql.catalog.lakestream.cache-enabled", "false");
        try (IsolatedSpark spark = new IsolatedSpark("runtime-jar-and-iceberg", classPath, config)) {
            assertThat(spark.hasClass("org.apache.iceberg.Table"))
                    .as("the stock runtime's unrelocated Iceberg")
                    .isTrue();

            spark.sql("CREATE NAMESPACE ls.db");
            spark.sql(
                    "CREATE TABLE ls.db.users (id BIGINT, name STRING) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
            spark.sql("INSERT INTO ls.db.users VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')");
            tiering.tierOnce(warehouse);
            spark.sql("INSERT INTO ls.db.users VALUES (2, 'bob2')");
            spark.sql("DELETE FROM ls.db.users WHERE id = 3");

            assertThat(spark.sql("SELECT id, name FROM ls.db.users ORDER BY id"))
                    .containsExactly(List.of(1L, "ann"), List.of(2L, "bob2"));
            List<List<Object>> lake = List.of(List.of(1L, "ann"), List.of(2L, "bob"), List.of(3L, "cy"));
            assertThat(spark.sql("SELECT id, name FROM ls.db.`users$lake` ORDER BY id"))
                    .containsExactlyElementsOf(lake);
            assertThat(spark.sql("SELECT id, name FROM lakestream.db.users ORDER BY id"))
                    .as("the lake through the stock Iceberg catalog")
                    .containsExactlyElementsOf(lake);

            tiering.tierOnce(warehouse);
            assertThat(spark.sql("SELECT id, name FROM lakestream.db.users ORDER BY id"))
                    .as("the stock Iceberg catalog after tiering: upsert and delete applied (equality deletes)")
                    .containsExactly(List.of(1L, "ann"), List.of(2L, "bob2"));

            // the stock runtime writes a plain Iceberg table next to ours in the same session (after the last
            // tiering pass, which tiers every table of the warehouse)
            spark.sql("CREATE TABLE lakestream.db.plain (id BIGINT, name STRING) USING iceberg");
            spark.sql("INSERT INTO lakestream.db.plain SELECT id, name FROM ls.db.users");
            assertThat(spark.sql("SELECT id, name FROM lakestream.db.plain ORDER BY id"))
                    .containsExactly(List.of(1L, "ann"), List.of(2L, "bob2"));
        }
    }

    /**
     * A table whose log is on Azure Blob Storage (Azurite, started by the test), written and read by Spark with the
     * shaded runtime jar on a plain Spark 4.1.3 class path (Spark's own Netty, nothing added), and tiered by {@code
     * ./lakestream tier} from the lakestream command's runtime class path: both carry the Azure Storage SDK
     * themselves. The lake is on local disk; the log's commits and segments are blobs on Azurite.
     */
    @Test
    void sparkWritesAndTheCommandTiersATableWhoseLogIsOnAzure() throws Exception {
        IsolatedSpark spark = runtimeOnlySpark();
        try (URLClassLoader sdk = IsolatedClassPath.loader("azure-sdk", azureSdk)) {
            Object blobService = blobServiceClient(sdk, azurite.connectionString());
            IsolatedClassPath.call(
                    sdk, () -> IsolatedClassPath.invoke(blobService, "createBlobContainer", AZURE_CONTAINER));
            assertThat(spark.hasClass("com.azure.storage.blob.BlobServiceClient"))
                    .as("Spark's class path holds no Azure SDK: the runtime jar's is relocated")
                    .isFalse();
            spark.sql("CREATE NAMESPACE az.db");
            spark.sql("CREATE TABLE az.db.users (id BIGINT, name STRING) TBLPROPERTIES ('primary-key'='id',"
                    + " 'bucket.num'='2', 'log.path'='" + AZURE_LOG + "')");
            spark.sql("INSERT INTO az.db.users VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')");

            tiering.tierOnce(azureWarehouse, azureCatalogUri(), azurite.catalogProperties(AZURE_ACCOUNT_HOST));

            spark.sql("INSERT INTO az.db.users VALUES (2, 'bob2')");
            assertThat(spark.sql("SELECT id, name FROM az.db.users ORDER BY id"))
                    .containsExactly(List.of(1L, "ann"), List.of(2L, "bob2"), List.of(3L, "cy"));
            assertThat(spark.sql("SELECT id, name FROM az.db.`users$lake` ORDER BY id"))
                    .as("the lake tiered by the command from the log on Azure")
                    .containsExactly(List.of(1L, "ann"), List.of(2L, "bob"), List.of(3L, "cy"));

            // the log is on Azurite: both commits published there, no log on local disk
            assertThat(blobNames(sdk, blobService))
                    .contains(
                            "logs/users/_commits/00000000000000000001.json",
                            "logs/users/_commits/00000000000000000002.json");
            try (var files = Files.walk(azureWarehouse)) {
                assertThat(files.map(path -> path.getFileName().toString())).doesNotContain("_commits");
            }
        }
    }

    /**
     * The session of the tests with only the runtime jar on Spark's class path, started once for them (a Spark
     * start is most of each test's time), with one catalog per test, all given at the session's start as a
     * user's {@code --conf} gives them: {@code lakestream} on a local warehouse, {@code pg} on a PostgreSQL
     * catalog, {@code az} with its logs on Azurite.
     */
    private synchronized IsolatedSpark runtimeOnlySpark() throws IOException {
        if (runtimeOnlySpark == null) {
            runtimeOnlyWarehouse = Files.createTempDirectory("lakestream-runtime");
            Path directory = Files.createTempDirectory("lakestream-runtime-postgres");
            String password = "runtime-jar-password";
            postgres = TestingPostgres.start(directory, password);
            postgres.createDatabase("catalog");
            azurite = AzuriteServer.start();
            azureWarehouse = Files.createTempDirectory("lakestream-runtime-azure");

            Map<String, String> config = new HashMap<>(lakestreamCatalog("lakestream", runtimeOnlyWarehouse));
            config.putAll(lakestreamCatalog("pg", directory.resolve("warehouse")));
            config.put("spark.sql.catalog.pg.uri", postgres.jdbcUrl("catalog"));
            config.put("spark.sql.catalog.pg.jdbc.user", TestingPostgres.USER);
            config.put("spark.sql.catalog.pg.jdbc.password", password);
            config.putAll(lakestreamCatalog("az", azureWarehouse));
            // catalog properties need a catalog URI on the command line: the same SQLite file for both
            config.put("spark.sql.catalog.az.uri", azureCatalogUri());
            azurite.catalogProperties(AZURE_ACCOUNT_HOST)
                    .forEach((name, value) -> config.put("spark.sql.catalog.az." + name, value));
            List<Path> classPath = new ArrayList<>(sparkJars);
            classPath.add(runtimeJar);
            runtimeOnlySpark = new IsolatedSpark("runtime-jar", classPath, config);
        }
        return runtimeOnlySpark;
    }

    private String azureCatalogUri() {
        return "jdbc:sqlite:" + azureWarehouse.resolve("catalog.db");
    }

    @AfterAll
    void stopRuntimeOnlySpark() throws IOException {
        if (runtimeOnlySpark != null) {
            runtimeOnlySpark.close();
        }
        if (azurite != null) {
            azurite.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    private static Object blobServiceClient(ClassLoader sdk, String connectionString) {
        return IsolatedClassPath.call(sdk, () -> {
            Object builder = sdk.loadClass("com.azure.storage.blob.BlobServiceClientBuilder")
                    .getConstructor()
                    .newInstance();
            builder = IsolatedClassPath.invoke(builder, "connectionString", connectionString);
            return IsolatedClassPath.invoke(builder, "buildClient");
        });
    }

    private static List<String> blobNames(ClassLoader sdk, Object blobService) throws IOException {
        return IsolatedClassPath.call(sdk, () -> {
            Object container = IsolatedClassPath.invoke(blobService, "getBlobContainerClient", AZURE_CONTAINER);
            List<String> names = new ArrayList<>();
            for (Object item : (Iterable<?>) IsolatedClassPath.invoke(container, "listBlobs")) {
                names.add((String) IsolatedClassPath.invoke(item, "getName"));
            }
            return names;
        });
    }

    private static Map<String, String> lakestreamCatalog(String name, Path warehouse) {
        return Map.of(
                "spark.sql.catalog." + name,
                CATALOG_CLASS,
                "spark.sql.catalog." + name + ".warehouse",
                warehouse.toString());
    }
}
