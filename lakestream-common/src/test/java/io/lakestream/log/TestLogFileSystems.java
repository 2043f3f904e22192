package io.lakestream.log;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.common.LakestreamError;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log's file system is chosen by the location's scheme, and the Hadoop one refuses to write where a
 * rename cannot publish a commit atomically, before it writes anything. HDFS itself is tested with a real
 * name node in merge-on-read ({@code TestUnionReadOnHdfs}).
 */
class TestLogFileSystems {
    @TempDir
    Path directory;

    @Test
    void theSchemePicksTheFileSystem() {
        LogFileSystems fileSystems = new LogFileSystems(new Configuration());
        assertThat(fileSystems.apply("/data/t/log")).isInstanceOf(LocalLogFileSystem.class);
        assertThat(fileSystems.apply("file:/data/t/log")).isInstanceOf(LocalLogFileSystem.class);
        assertThat(fileSystems.apply("file:///data/t/log")).isInstanceOf(LocalLogFileSystem.class);
        assertThat(fileSystems.apply("hdfs://namenode:8020/t/log")).isInstanceOf(HadoopLogFileSystem.class);
        assertThat(fileSystems.apply("viewfs://cluster/t/log")).isInstanceOf(HadoopLogFileSystem.class);
        assertThat(fileSystems.apply("s3a://bucket/t/log")).isInstanceOf(S3LogFileSystem.class);
        assertThat(fileSystems.apply("s3://bucket/t/log")).isInstanceOf(S3LogFileSystem.class);
        // the Azure Storage SDK is on this module's test class path (an optional dependency)
        assertThat(fileSystems.apply("abfs://container@account/t/log")).isInstanceOf(AzureLogFileSystem.class);
        assertThat(fileSystems.apply("wasbs://container@account/t/log")).isInstanceOf(AzureLogFileSystem.class);
        assertThat(fileSystems.apply("gs://bucket/t/log")).isInstanceOf(HadoopLogFileSystem.class);
        assertThat(LogPublishing.scheme("HDFS://namenode/t")).hasValue("hdfs");
        // what CREATE TABLE asks before it accepts a log location
        for (String publishing :
                new String[] {"/data/t/log", "hdfs://nn/t/log", "s3://b/t/log", "s3a://b/t/log", "abfss://c@a/t/log"}) {
            assertThat(fileSystems.apply(publishing).canPublish(publishing))
                    .as(publishing)
                    .isTrue();
        }
        for (String readOnly : new String[] {"gs://b/t/log", "oss://b/t/log"}) {
            assertThat(fileSystems.apply(readOnly).canPublish(readOnly))
                    .as(readOnly)
                    .isFalse();
        }
        assertThat(LogPublishing.scheme("/data/t")).isEmpty();
    }

    @Test
    void writesWhereRenameIsNotAtomicAreRefusedBeforeAnythingIsWritten() {
        HadoopLogFileSystem fileSystem = new HadoopLogFileSystem(new Configuration());
        String commit = "abfs://container@account/t/log/_commits/00000000000000000001.json";
        byte[] content = "{}".getBytes(StandardCharsets.UTF_8);
        for (String message :
                new String[] {"on 'abfs' is not an atomic", "hdfs:, viewfs:", "s3:", "lakestream.log.path"}) {
            assertLakestreamError(
                    () -> fileSystem.createExclusive(commit, content), LakestreamError.LOG_IO_ERROR, message);
        }
        assertLakestreamError(
                () -> fileSystem.create("gs://bucket/t/log/bucket-0000/x.arrow"), LakestreamError.LOG_IO_ERROR, "gs");
        assertLakestreamError(
                () -> fileSystem.replace("gs://bucket/t/log/_commits/_last_checkpoint", content),
                LakestreamError.LOG_IO_ERROR,
                "gs");
        // Hadoop's local file system renames over an existing file: a commit there could replace another one
        Path local = directory.resolve("log/_commits/00000000000000000001.json");
        assertLakestreamError(
                () -> fileSystem.createExclusive(local.toUri().toString(), content),
                LakestreamError.LOG_IO_ERROR,
                "on 'file' is not an atomic");
        assertThat(directory.resolve("log")).doesNotExist();
    }

    @Test
    void catalogHadoopPropertiesGoIntoTheHadoopConfiguration() {
        CatalogConfig config = new CatalogConfig(
                "jdbc",
                "hdfs://namenode:8020/warehouse",
                Optional.of("jdbc:sqlite:" + directory.resolve("catalog.db")),
                Map.of("hadoop.dfs.replication", "2", "other", "x"));
        Configuration configuration = config.hadoopConfiguration();
        assertThat(configuration.get("dfs.replication")).isEqualTo("2");
        assertThat(configuration.get("other")).isNull();
        // a remote warehouse keeps Iceberg's default file IO (Hadoop's), not the local one
        assertThat(config.icebergProperties()).doesNotContainKey("io-impl");
    }

    @Test
    void jdbcCatalogOnARemoteWarehouseNeedsAUri() {
        assertLakestreamError(
                () -> new CatalogConfig("jdbc", "hdfs://namenode:8020/warehouse", Optional.empty(), Map.of()),
                LakestreamError.INVALID_CATALOG_CONFIG,
                "needs a URI");
    }
}
