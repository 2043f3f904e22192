package io.lakestream.spark.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.AzuriteServer;
import io.lakestream.testing.IsolatedClassPath;
import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A table whose log is on Azure Blob Storage (Azurite, started by the test), written and read by Spark with the
 * shaded runtime jar on a plain Spark 4.1.3 class path (Spark's own Netty, nothing added), and tiered by {@code
 * ./lakestream tier} from the lakestream command's runtime class path: both carry the Azure Storage SDK
 * themselves. The lake is on local disk; the log's commits and segments are blobs on Azurite.
 */
class TestLakestreamRuntimesOnAzure {
    private static final String CONTAINER = "lakestream";
    private static final String ACCOUNT_HOST = AzuriteServer.ACCOUNT + ".dfs.core.windows.net";
    private static final String LOG = "abfss://%s@%s/logs/users".formatted(CONTAINER, ACCOUNT_HOST);

    private final Path runtimeJar = IsolatedClassPath.file("runtime.jar");
    private final List<Path> sparkJars = IsolatedClassPath.classPathFile("runtime.spark.classpath.file");
    /** The test's own Azure client (its class path holds no Azure SDK, and the ones under test are not used). */
    private final List<Path> azureSdk = IsolatedClassPath.classPathFile("runtime.azure-sdk.classpath.file");

    private final LakestreamTieringCommand tiering = new LakestreamTieringCommand();

    @Test
    void sparkWritesAndTheCommandTiersATableWhoseLogIsOnAzure() throws Exception {
        Path warehouse = Files.createTempDirectory("lakestream-runtime-azure");
        try (AzuriteServer azurite = AzuriteServer.start();
                URLClassLoader sdk = IsolatedClassPath.loader("azure-sdk", azureSdk)) {
            Object blobService = blobServiceClient(sdk, azurite.connectionString());
            IsolatedClassPath.call(sdk, () -> IsolatedClassPath.invoke(blobService, "createBlobContainer", CONTAINER));
            Map<String, String> adls = azurite.catalogProperties(ACCOUNT_HOST);
            // catalog properties need a catalog URI on the command line: the same SQLite file for both
            String catalogUri = "jdbc:sqlite:" + warehouse.resolve("catalog.db");

            Map<String, String> config = new HashMap<>();
            config.put("spark.sql.catalog.az", "io.lakestream.spark.LakestreamCatalog");
            config.put("spark.sql.catalog.az.warehouse", warehouse.toString());
            config.put("spark.sql.catalog.az.uri", catalogUri);
            adls.forEach((name, value) -> config.put("spark.sql.catalog.az." + name, value));
            List<Path> classPath = new ArrayList<>(sparkJars);
            classPath.add(runtimeJar);
            try (IsolatedSpark spark = new IsolatedSpark("runtime-jar-azure", classPath, config)) {
                assertThat(spark.hasClass("com.azure.storage.blob.BlobServiceClient"))
                        .as("Spark's class path holds no Azure SDK: the runtime jar's is relocated")
                        .isFalse();
                spark.sql("CREATE NAMESPACE az.db");
                spark.sql("CREATE TABLE az.db.users (id BIGINT, name STRING) TBLPROPERTIES ('primary-key'='id',"
                        + " 'bucket.num'='2', 'log.path'='" + LOG + "')");
                spark.sql("INSERT INTO az.db.users VALUES (1, 'ann'), (2, 'bob'), (3, 'cy')");

                tiering.tierOnce(warehouse, catalogUri, adls);

                spark.sql("INSERT INTO az.db.users VALUES (2, 'bob2')");
                assertThat(spark.sql("SELECT id, name FROM az.db.users ORDER BY id"))
                        .containsExactly(List.of(1L, "ann"), List.of(2L, "bob2"), List.of(3L, "cy"));
                assertThat(spark.sql("SELECT id, name FROM az.db.`users$lake` ORDER BY id"))
                        .as("the lake tiered by the command from the log on Azure")
                        .containsExactly(List.of(1L, "ann"), List.of(2L, "bob"), List.of(3L, "cy"));
            }

            // the log is on Azurite: both commits published there, no log on local disk
            assertThat(blobNames(sdk, blobService))
                    .contains(
                            "logs/users/_commits/00000000000000000001.json",
                            "logs/users/_commits/00000000000000000002.json");
            try (var files = Files.walk(warehouse)) {
                assertThat(files.map(path -> path.getFileName().toString())).doesNotContain("_commits");
            }
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
            Object container = IsolatedClassPath.invoke(blobService, "getBlobContainerClient", CONTAINER);
            List<String> names = new ArrayList<>();
            for (Object item : (Iterable<?>) IsolatedClassPath.invoke(container, "listBlobs")) {
                names.add((String) IsolatedClassPath.invoke(item, "getName"));
            }
            return names;
        });
    }
}
