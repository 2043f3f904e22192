package io.lakestream.sqltests;

import static io.trino.testing.TestingSession.testSessionBuilder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.trino.TrinoPluginJars;
import io.trino.testing.DistributedQueryRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trino's HDFS file system layer ({@code fs.hadoop.enabled}), loaded the way a Trino server loads it:
 * from the {@code hdfs} directory of the assembled plugin, in its own class loader. With the local
 * file system turned off, {@code file:} locations go through Hadoop's file system API (no HDFS
 * cluster is started: Hadoop's local file system stands in for the name node). Hadoop's local file
 * system leaves a checksum file beside every file it writes, Trino's own does not: that shows which
 * layer wrote the table.
 *
 * <p>Trino's HDFS layer has no atomic create-if-absent, which publishing a log commit needs: an
 * {@code INSERT} there is refused with an error that says so, and nothing becomes visible.
 */
final class TestTrinoHdfsFileSystem {
    @Test
    void tablesThroughTrinosHdfsLayer(@TempDir Path hadoopWarehouse, @TempDir Path localWarehouse) throws Exception {
        try (DistributedQueryRunner trino = DistributedQueryRunner.builder(
                        testSessionBuilder().setCatalog("hadoop").setSchema("s").build())
                .setWorkerCount(1)
                .build()) {
            TrinoPluginJars.install(
                    trino, TrinoPluginJars.fromDirectory("lakestream", Path.of(TrinoEngine.pluginDirectory())));
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

            for (String catalog : List.of("hadoop", "local")) {
                trino.execute("CREATE SCHEMA %s.s".formatted(catalog));
                trino.execute(
                        "CREATE TABLE %s.s.t (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)"
                                .formatted(catalog));
            }
            // the lake's metadata went through Hadoop's file system API, not through Trino's local one
            assertThat(checksumFiles(hadoopWarehouse)).isNotEmpty();
            assertThat(trino.execute("SHOW COLUMNS FROM t").getRowCount()).isEqualTo(2);
            assertThat(trino.execute("SELECT * FROM t").getRowCount()).isZero();

            assertThatThrownBy(() -> trino.execute("INSERT INTO t VALUES (1, 'a')"))
                    .hasMessageContaining("LOG_IO_ERROR")
                    .hasMessageContaining("cannot create a file atomically if it does not exist");
            assertThat(trino.execute("SELECT * FROM t").getRowCount()).isZero();
            assertThat(trino.execute("SELECT sum(log_end_offset) FROM \"t$offsets\"")
                            .getOnlyValue())
                    .isEqualTo(0L);

            trino.execute("INSERT INTO local.s.t VALUES (1, 'a'), (2, 'b')");
            assertThat(trino.execute("SELECT count(*) FROM local.s.t").getOnlyValue())
                    .isEqualTo(2L);
            assertThat(checksumFiles(localWarehouse)).isEmpty();
        }
    }

    private static List<Path> checksumFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".crc"))
                    .toList();
        }
    }
}
