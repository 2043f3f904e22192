package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.log.LogPublishing;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark catalog whose warehouse is on a real HDFS (Hadoop's MiniDFSCluster in this JVM): {@code INSERT}
 * tasks write their segments there and the driver publishes the log commit by an HDFS rename; the
 * tiering service tiers the table there, and Spark's union read sees the lake plus the log tail.
 */
class TestLakestreamSparkHdfs {
    private static final String CATALOG = "hdfs_ls";

    @Test
    void insertTierAndReadOnHdfs(@TempDir Path hdfsData, @TempDir Path catalogDirectory) throws IOException {
        MiniDFSCluster hdfs = new MiniDFSCluster.Builder(new Configuration(), hdfsData.toFile())
                .numDataNodes(1)
                .build();
        try {
            hdfs.waitActive();
            String warehouse = hdfs.getURI() + "/warehouse";
            String uri = "jdbc:sqlite:" + catalogDirectory.resolve("catalog.db");
            SparkSession spark = SparkTesting.get().spark();
            spark.conf().set("spark.sql.catalog." + CATALOG, LakestreamCatalog.class.getName());
            spark.conf().set("spark.sql.catalog." + CATALOG + ".warehouse", warehouse);
            spark.conf().set("spark.sql.catalog." + CATALOG + ".uri", uri);

            spark.sql("CREATE NAMESPACE %s.db".formatted(CATALOG));
            spark.sql(
                    "CREATE TABLE %s.db.t (id BIGINT, name STRING) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')"
                            .formatted(CATALOG));
            spark.sql("INSERT INTO %s.db.t VALUES (1, 'a'), (2, 'b'), (3, 'c')".formatted(CATALOG));
            spark.sql("INSERT INTO %s.db.t VALUES (2, 'b2'), (4, 'd')".formatted(CATALOG));
            assertThat(read(spark))
                    .isEqualTo(List.of(List.of(1L, "a"), List.of(2L, "b2"), List.of(3L, "c"), List.of(4L, "d")));

            try (io.lakestream.catalog.LakestreamCatalog catalog = io.lakestream.catalog.LakestreamCatalog.open(
                            new CatalogConfig("jdbc", warehouse, Optional.of(uri), Map.of()));
                    TieringService tiering = new TieringService(
                            catalog,
                            TieringConfig.builder().retention(Duration.ZERO).build())) {
                TieringResult result = tiering.tierTable(TableIdentifier.of("db", "t"));
                assertThat(result.error()).isEmpty();
                assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                assertThat(result.segmentsRemoved()).isPositive();
            }
            spark.sql("INSERT INTO %s.db.t VALUES (3, 'c2'), (5, 'e')".formatted(CATALOG));
            assertThat(read(spark))
                    .isEqualTo(List.of(
                            List.of(1L, "a"),
                            List.of(2L, "b2"),
                            List.of(3L, "c2"),
                            List.of(4L, "d"),
                            List.of(5L, "e")));

            FileSystem files = hdfs.getFileSystem();
            assertThat(files.listStatus(new org.apache.hadoop.fs.Path("/warehouse/db/t/log/_commits")))
                    .extracting(status -> status.getPath().getName())
                    .contains("00000000000000000001.json", "00000000000000000002.json", "00000000000000000004.json")
                    .noneMatch(name -> name.startsWith(LogPublishing.TEMPORARY_PREFIX));
            assertThat(files.exists(new org.apache.hadoop.fs.Path("/warehouse/db/t/data")))
                    .isTrue();
            spark.sql("DROP TABLE %s.db.t".formatted(CATALOG));
            spark.sql("DROP NAMESPACE %s.db".formatted(CATALOG));
        } finally {
            hdfs.shutdown();
        }
    }

    private static List<List<Object>> read(SparkSession spark) {
        return SparkTesting.rows(spark.sql("SELECT id, name FROM %s.db.t ORDER BY id".formatted(CATALOG)));
    }
}
