package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.lakestream.log.S3LogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.S3MockServer;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark catalog whose warehouse (lake and log) is on S3 (S3Mock, in its own JVM), its catalog in a local
 * SQLite file: every write of the sink ({@code INSERT}, {@code UPDATE}, {@code DELETE}, {@code MERGE},
 * {@code INSERT OVERWRITE}, {@code writeTo}) stages its segments as objects and the driver publishes the log
 * commit with S3's conditional create; the tiering service tiers the table there with compaction and
 * retention, and Spark's union read equals what the statements wrote.
 */
class TestLakestreamSparkS3 {
    private static final String CATALOG = "s3_ls";
    private static final String BUCKET = "lakestream";

    @TempDir
    static Path catalogDirectory;

    private static S3MockServer s3;
    private static CatalogConfig config;

    @BeforeAll
    static void startS3() {
        s3 = S3MockServer.start(BUCKET);
        String warehouse = "s3://" + BUCKET + "/warehouse";
        String uri = "jdbc:sqlite:" + catalogDirectory.resolve("catalog.db");
        config = new CatalogConfig("jdbc", warehouse, Optional.of(uri), s3.catalogProperties());
        SparkSession spark = SparkTesting.get().spark();
        String prefix = "spark.sql.catalog." + CATALOG;
        spark.conf().set(prefix, LakestreamCatalog.class.getName());
        spark.conf().set(prefix + ".warehouse", warehouse);
        spark.conf().set(prefix + ".uri", uri);
        // the S3 options of Iceberg's S3FileIO, for the lake and the log alike
        s3.catalogProperties().forEach((name, value) -> spark.conf().set(prefix + "." + name, value));
        spark.sql("CREATE NAMESPACE %s.db".formatted(CATALOG));
    }

    @AfterAll
    static void stopS3() {
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void everyWriteOfTheSinkPublishesOnS3() throws Exception {
        SparkSession spark = SparkTesting.get().spark();
        spark.sql(("CREATE TABLE %s.db.t (id BIGINT, name STRING, score INT)"
                        + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')")
                .formatted(CATALOG));
        spark.sql(
                "INSERT INTO %s.db.t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)".formatted(CATALOG));
        spark.sql("UPDATE %s.db.t SET score = score + 1 WHERE id IN (1, 3)".formatted(CATALOG));
        spark.sql("DELETE FROM %s.db.t WHERE id = 2".formatted(CATALOG));
        assertThat(read(spark, "t"))
                .isEqualTo(List.of(List.of(1L, "a", 11), List.of(3L, "c", 31), List.of(4L, "d", 40)));

        // tiered on S3 (with compaction and retention), then more writes on top of the lake
        try (io.lakestream.catalog.LakestreamCatalog catalog = io.lakestream.catalog.LakestreamCatalog.open(config);
                TieringService tiering = new TieringService(
                        catalog,
                        TieringConfig.builder()
                                .retention(Duration.ZERO)
                                .compactionDeleteFiles(1)
                                .build())) {
            TieringResult result = tiering.tierTable(TableIdentifier.of("db", "t"));
            assertThat(result.error()).isEmpty();
            assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            assertThat(result.segmentsRemoved()).isPositive();
        }
        spark.sql(
                ("MERGE INTO %s.db.t t USING (SELECT * FROM VALUES (3L, 'c2', 33), (5L, 'e', 50) AS c(id, name, score)) c"
                                + " ON t.id = c.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
                        .formatted(CATALOG));
        spark.sql("UPDATE %s.db.t SET name = upper(name) WHERE id = 1".formatted(CATALOG));
        spark.sql("SELECT 6L AS id, 'f' AS name, 60 AS score")
                .writeTo(CATALOG + ".db.t")
                .append();
        assertThat(read(spark, "t"))
                .isEqualTo(List.of(
                        List.of(1L, "A", 11),
                        List.of(3L, "c2", 33),
                        List.of(4L, "d", 40),
                        List.of(5L, "e", 50),
                        List.of(6L, "f", 60)));
        assertThat(SparkTesting.rows(spark.sql("SELECT id FROM %s.db.`t$lake` ORDER BY id".formatted(CATALOG))))
                .isEqualTo(List.of(List.of(1L), List.of(3L), List.of(4L)));

        spark.sql("INSERT OVERWRITE %s.db.t VALUES (7, 'g', 70), (1, 'a7', 71)".formatted(CATALOG));
        assertThat(read(spark, "t")).isEqualTo(List.of(List.of(1L, "a7", 71), List.of(7L, "g", 70)));

        // every commit is an object published once in the bucket; no temporary object, no rename
        LakestreamTable table = table("t");
        assertThat(table.log().fileSystem()).isInstanceOf(S3LogFileSystem.class);
        LogFileSystem files = table.log().fileSystem();
        List<String> commits = new ArrayList<>();
        files.listRecursively(table.log().paths().root() + "/_commits")
                .forEach(entry ->
                        commits.add(entry.location().substring(entry.location().lastIndexOf('/') + 1)));
        assertThat(commits)
                .hasSizeGreaterThanOrEqualTo(7)
                .contains("00000000000000000001.json", "00000000000000000007.json")
                .noneMatch(name -> name.startsWith(LogPublishing.TEMPORARY_PREFIX));
        assertThat(table.lake().location()).startsWith("s3://" + BUCKET + "/warehouse/db/t");
        spark.sql("DROP TABLE %s.db.t".formatted(CATALOG));
        assertThat(files.listRecursively(table.log().paths().root())).isEmpty();
    }

    @Test
    void appendOnlyInsertsOnS3() {
        SparkSession spark = SparkTesting.get().spark();
        spark.sql("CREATE TABLE %s.db.events (id BIGINT, name STRING, score INT) TBLPROPERTIES ('bucket.num'='2')"
                .formatted(CATALOG));
        spark.sql("INSERT INTO %s.db.events SELECT id, 'e', CAST(id AS INT) FROM range(0, 500)".formatted(CATALOG));
        spark.sql("INSERT INTO %s.db.events SELECT id, 'e', CAST(id AS INT) FROM range(0, 100)".formatted(CATALOG));
        assertThat(SparkTesting.rows(
                        spark.sql("SELECT count(*), count(DISTINCT id) FROM %s.db.events".formatted(CATALOG))))
                .isEqualTo(List.of(List.of(600L, 500L)));
    }

    @Test
    void aLogWhereCommitsCannotBePublishedIsRefusedAtCreateTable() {
        SparkSession spark = SparkTesting.get().spark();
        assertThatThrownBy(() -> spark.sql(("CREATE TABLE %s.db.refused (id BIGINT) TBLPROPERTIES ('primary-key'='id',"
                                + " 'lakestream.log.path'='gs://bucket/refused/log')")
                        .formatted(CATALOG)))
                .hasStackTraceContaining("where log commits cannot be published")
                .hasStackTraceContaining("S3 (s3:, s3a:");
        assertThat(SparkTesting.rows(spark.sql("SHOW TABLES IN %s.db LIKE 'refused'".formatted(CATALOG))))
                .isEmpty();
    }

    private static LakestreamTable table(String name) {
        return LakestreamCatalogs.get(config).loadTable(TableIdentifier.of("db", name));
    }

    private static List<List<Object>> read(SparkSession spark, String table) {
        return SparkTesting.rows(
                spark.sql("SELECT id, name, score FROM %s.db.%s ORDER BY id".formatted(CATALOG, table)));
    }
}
