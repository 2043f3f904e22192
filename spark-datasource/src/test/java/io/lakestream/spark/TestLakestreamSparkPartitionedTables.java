package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code PARTITIONED BY (days(ts), region)} through Spark's catalog on append-only and primary-key tables: the lake's
 * spec (the user's fields, then the bucket field), writes across partitions, tiering into them, {@code UPDATE} and
 * {@code DELETE}, exact rows from union and {@code t$lake} reads, and the coded errors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkPartitionedTables {
    private static final String NS = "parts";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void appendOnlyTablePartitionedByDayAndRegion() {
        testing.sql("CREATE TABLE ls.parts.ao (id BIGINT NOT NULL, ts TIMESTAMP, region STRING, v STRING)"
                + " PARTITIONED BY (days(ts), region) TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')");
        assertThat(SparkTables.load(NS, "ao").lake().spec().fields())
                .extracting(PartitionField::name)
                .containsExactly("ts_day", "region", "id_bucket");
        assertThat(SparkTables.load(NS, "ao").log().isPartitionedLog()).isTrue();
        assertThat(rows(testing.sql("SHOW CREATE TABLE ls.parts.ao"))
                        .getFirst()
                        .getFirst()
                        .toString())
                .contains("PARTITIONED BY (days(ts), region)");

        testing.sql("INSERT INTO ls.parts.ao VALUES (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a'),"
                + " (2, TIMESTAMP '2026-11-30 23:59:59', 'us', 'b'), (3, TIMESTAMP '2026-12-01 00:00:00', 'eu', 'c')");
        tier("ao");
        // each row went into the partition of its day and region (bucket 0 or 1 of its id)
        assertThat(Integer.parseInt(SparkTables.load(NS, "ao")
                        .lake()
                        .currentSnapshot()
                        .summary()
                        .get("changed-partition-count")))
                .isEqualTo(3);
        testing.sql("INSERT INTO ls.parts.ao VALUES (4, TIMESTAMP '2026-12-02 08:00:00', 'us', 'd')");
        List<List<Object>> all =
                List.of(row(1L, "eu", "a"), row(2L, "us", "b"), row(3L, "eu", "c"), row(4L, "us", "d"));
        assertRows("ao", all);
        assertThat(rows(testing.sql(
                        "SELECT id FROM ls.parts.ao WHERE ts >= TIMESTAMP '2026-12-01 00:00:00' ORDER BY id")))
                .containsExactly(row(3L), row(4L));
        tier("ao");
        assertRows("ao", all);
        assertRows("`ao$lake`", all);
    }

    @Test
    void primaryKeyTablePartitionedByKeyColumns() {
        testing.sql(
                "CREATE TABLE ls.parts.pk (id BIGINT NOT NULL, ts TIMESTAMP NOT NULL, region STRING NOT NULL, v STRING)"
                        + " PARTITIONED BY (days(ts), region)"
                        + " TBLPROPERTIES ('primary-key'='id,ts,region', 'bucket.key'='id', 'bucket.num'='2')");
        assertThat(SparkTables.load(NS, "pk").log().isPartitionedLog()).isTrue();
        testing.sql("INSERT INTO ls.parts.pk VALUES (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a'),"
                + " (2, TIMESTAMP '2026-11-30 11:00:00', 'us', 'b'), (3, TIMESTAMP '2026-12-01 09:00:00', 'eu', 'c'),"
                + " (4, TIMESTAMP '2026-12-02 09:00:00', 'us', 'd')");
        tier("pk");
        testing.sql("INSERT INTO ls.parts.pk VALUES (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a2')");
        testing.sql("DELETE FROM ls.parts.pk WHERE id = 2");
        testing.sql("UPDATE ls.parts.pk SET v = 'c2' WHERE id = 3");
        List<List<Object>> expected = List.of(row(1L, "eu", "a2"), row(3L, "eu", "c2"), row(4L, "us", "d"));
        assertRows("pk", expected);
        // the log keeps each (partition, bucket) apart: the four days-and-regions written, two buckets each
        assertThat(rows(testing.sql("SELECT count(DISTINCT partition), count(*) FROM ls.parts.`pk$offsets`")))
                .containsExactly(row(4L, 8L));
        tier("pk");
        assertRows("pk", expected);
        // the equality deletes are in the partitions of their keys, where Iceberg applies them
        assertRows("`pk$lake`", expected);
        assertThat(SparkTables.load(NS, "pk").lake().spec().fields())
                .extracting(PartitionField::name)
                .containsExactly("ts_day", "region", "id_bucket");
    }

    /**
     * A table whose log is kept per (partition, bucket) (created through the catalog, to write it with the Java
     * writer too; Spark's CREATE TABLE makes the same layout): Spark's INSERT, UPDATE and DELETE and the Java writer write into the partitions'
     * logs; union and {@code t$lake} reads are exact before and after tiering; {@code t$offsets} has one row per
     * (partition, bucket); a stream of its changelog returns every change of every partition once.
     */
    @Test
    void tableWithAPartitionedLog() throws Exception {
        LakestreamTable table = SparkTesting.get()
                .warehouse()
                .catalog()
                .createTable(TableIdentifier.of(Namespace.of(NS), "plog"), PartitionedScores.spec(2));
        try (LakestreamWriter writer =
                new LakestreamWriter(table, SparkTesting.get().warehouse().allocator())) {
            writer.upsert(Map.of("id", 1L, "region", "eu", "score", 1));
            writer.upsert(Map.of("id", 2L, "region", "us", "score", 2));
            writer.commit();
        }
        testing.sql("INSERT INTO ls.parts.plog VALUES (3, 'eu', 3), (4, 'ap', 4)");
        testing.sql("UPDATE ls.parts.plog SET score = 10 WHERE id = 1 AND region = 'eu'");
        testing.sql("DELETE FROM ls.parts.plog WHERE id = 2 AND region = 'us'");
        assertThat(SparkTables.load(NS, "plog").log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactly("region=eu", "region=us", "region=ap");
        List<List<Object>> expected = List.of(row(1L, "eu", 10), row(3L, "eu", 3), row(4L, "ap", 4));
        assertScores("plog", expected);
        assertThat(rows(testing.sql("SELECT partition, sum(log_end_offset) FROM ls.parts.`plog$offsets`"
                        + " GROUP BY partition ORDER BY partition")))
                // eu: two inserts and the update (one upsert of its key); us: an insert and the delete
                .containsExactly(row("region=ap", 1L), row("region=eu", 3L), row("region=us", 2L));

        // a stream of the partitioned log (refused before streams kept offsets per (partition, bucket)): every change
        // of every partition once, as the batch changelog shows them
        Dataset<Row> stream = testing.spark()
                .readStream()
                .option("startup.mode", "version")
                .option("startup.version", "0")
                .table("ls.parts.`plog$changes`");
        StreamScanWork.runToEnd(stream, "plog-stream", Files.createTempDirectory("plog-stream"), "append");
        assertThat(StreamCollector.rows("plog-stream")).hasSize(6);
        assertThat(changes(StreamCollector.rows("plog-stream")))
                .containsExactlyInAnyOrderElementsOf(changes(
                        testing.sql("SELECT * FROM ls.parts.`plog$changes`").collectAsList()));

        tier("plog");
        assertScores("plog", expected);
        assertScores("`plog$lake`", expected);
        assertThat(rows(testing.sql("SELECT count(*), sum(records_behind) FROM ls.parts.`plog$offsets`")))
                .containsExactly(row(6L, 0L));
    }

    /** _change_type, _bucket, _offset, id, region, score of change rows. */
    private static List<List<Object>> changes(List<Row> rows) {
        return rows.stream()
                .map(row -> row(row.get(0), row.get(1), row.get(2), row.get(4), row.get(5), row.get(6)))
                .toList();
    }

    /**
     * Spark's {@code logSegments} metric counts the log segments a read opens: a filter on the partition column of a
     * table whose log is kept per (partition, bucket) opens only that partition's (before tiering, every row is in
     * the log).
     */
    @Test
    void filterOnThePartitionColumnOpensOnlyThatPartitionsLogSegments() {
        LakestreamTable table = SparkTesting.get()
                .warehouse()
                .catalog()
                .createTable(TableIdentifier.of(Namespace.of(NS), "plog_segments"), PartitionedScores.spec(2));
        for (int commit = 0; commit < 3; commit++) {
            testing.sql("INSERT INTO ls.parts.plog_segments VALUES (%s, 'eu', 1), (%s, 'us', 2), (%s, 'ap', 3)"
                    .formatted(commit * 10, commit * 10 + 1, commit * 10 + 2));
        }
        long euSegments = table.log().latestSnapshot().partitions().stream()
                .filter(partition -> partition.path().equals("region=eu"))
                .flatMap(partition -> partition.buckets().stream())
                .mapToLong(bucket -> bucket.segments().size())
                .sum();
        long allSegments = SparkTables.load(NS, "plog_segments")
                .log()
                .latestSnapshot()
                .liveSegments()
                .size();
        assertThat(euSegments).isEqualTo(3);
        assertThat(allSegments).isEqualTo(9);

        Dataset<Row> all = testing.sql("SELECT * FROM ls.parts.plog_segments");
        assertThat(all.collectAsList()).hasSize(9);
        assertThat(SparkTables.metric(all, LakestreamMetrics.LOG_SEGMENTS)).isEqualTo(allSegments);
        Dataset<Row> eu = testing.sql("SELECT * FROM ls.parts.plog_segments WHERE region = 'eu'");
        assertThat(eu.collectAsList()).hasSize(3);
        assertThat(SparkTables.metric(eu, LakestreamMetrics.LOG_SEGMENTS)).isEqualTo(euSegments);
    }

    /**
     * A partitioned table whose log is kept per bucket, as every partitioned table created before partitioned logs
     * were the default: it keeps that log, and Spark's INSERT, UPDATE, MERGE and DELETE, tiering and {@code t$offsets}
     * (one row per bucket, no partition) work on it as before.
     */
    @Test
    void partitionedTableFromBeforePartitionedLogsKeepsItsPerBucketLog() {
        LakestreamTable table = SparkTesting.get()
                .warehouse()
                .catalog()
                .createTable(TableIdentifier.of(Namespace.of(NS), "old_layout"), PartitionedScores.perBucketLogSpec(2));
        assertThat(table.log().isPartitionedLog()).isFalse();
        testing.sql("INSERT INTO ls.parts.old_layout VALUES (1, 'eu', 1), (2, 'us', 2), (3, 'eu', 3)");
        tier("old_layout");
        testing.sql("UPDATE ls.parts.old_layout SET score = 10 WHERE id = 1");
        testing.sql("MERGE INTO ls.parts.old_layout t USING (SELECT * FROM VALUES (2L, 'us', 20), (4L, 'ap', 4)"
                + " AS s(id, region, score)) s ON t.id = s.id AND t.region = s.region"
                + " WHEN MATCHED THEN UPDATE SET t.score = s.score WHEN NOT MATCHED THEN INSERT *");
        testing.sql("DELETE FROM ls.parts.old_layout WHERE id = 3");
        List<List<Object>> expected = List.of(row(1L, "eu", 10), row(2L, "us", 20), row(4L, "ap", 4));
        assertScores("old_layout", expected);
        assertThat(rows(testing.sql("SELECT count(*), count(partition) FROM ls.parts.`old_layout$offsets`")))
                .containsExactly(row(2L, 0L));
        tier("old_layout");
        assertScores("`old_layout$lake`", expected);
        assertThat(SparkTables.load(NS, "old_layout").log().latestSnapshot().partitions())
                .isEmpty();
    }

    /** {@code CREATE TABLE AS} of a partitioned table writes its rows into the partitions' logs. */
    @Test
    void createTableAsSelectWritesAPartitionedLog() {
        testing.sql("CREATE TABLE ls.parts.ctas PARTITIONED BY (region) TBLPROPERTIES ('bucket.num'='2') AS"
                + " SELECT * FROM VALUES (1L, 'eu', 'a'), (2L, 'us', 'b'), (3L, 'eu', 'c') AS t(id, region, v)");
        assertThat(SparkTables.load(NS, "ctas").log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactlyInAnyOrder("region=eu", "region=us");
        assertThat(rows(testing.sql("SELECT partition, sum(log_end_offset) FROM ls.parts.`ctas$offsets`"
                        + " GROUP BY partition ORDER BY partition")))
                .containsExactly(row("region=eu", 2L), row("region=us", 1L));
        List<List<Object>> expected = List.of(row(1L, "eu", "a"), row(2L, "us", "b"), row(3L, "eu", "c"));
        assertRows("ctas", expected);
        tier("ctas");
        assertRows("`ctas$lake`", expected);
    }

    @Test
    void partitioningsTheTableCannotTake() {
        assertThatThrownBy(
                        () -> testing.sql("CREATE TABLE ls.parts.bad_pk (id BIGINT NOT NULL, region STRING, v STRING)"
                                + " PARTITIONED BY (region) TBLPROPERTIES ('primary-key'='id')"))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.PARTITIONING_NOT_ALLOWED))
                .hasMessageContaining("must be a primary-key column");
        testing.sql("CREATE TABLE ls.parts.dyn (id BIGINT NOT NULL, region STRING, v STRING)"
                + " PARTITIONED BY (region) TBLPROPERTIES ('primary-key'='id,region')");
        testing.sql("INSERT INTO ls.parts.dyn VALUES (1, 'eu', 'a'), (2, 'us', 'b')");
        testing.spark().conf().set("spark.sql.sources.partitionOverwriteMode", "dynamic");
        try {
            assertThatThrownBy(() -> testing.sql("INSERT OVERWRITE ls.parts.dyn VALUES (3, 'eu', 'c')"))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.UNSUPPORTED_OPERATION))
                    .hasMessageContaining("Dynamic partition overwrite");
        } finally {
            testing.spark().conf().unset("spark.sql.sources.partitionOverwriteMode");
        }
        assertRows("dyn", List.of(row(1L, "eu", "a"), row(2L, "us", "b")));
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    private void assertRows(String table, List<List<Object>> expected) {
        assertThat(rows(testing.sql("SELECT id, region, v FROM ls.parts.%s ORDER BY id".formatted(table))))
                .containsExactlyElementsOf(expected);
    }

    private void assertScores(String table, List<List<Object>> expected) {
        assertThat(rows(testing.sql("SELECT id, region, score FROM ls.parts.%s ORDER BY id".formatted(table))))
                .containsExactlyElementsOf(expected);
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }
}
