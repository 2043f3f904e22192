package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.lake.LakePosition;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.WallClock;
import io.lakestream.write.LakestreamWriter;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Primary-key tables through Spark SQL and DataFrames: INSERT as upsert, union reads across the
 * tiering boundary, filters on columns changed in the log tail, read modes, time travel, metrics,
 * bucket pruning, and bad rows that must leave nothing behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkPrimaryKey {
    private static final String NS = "pk";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    private void createTable(String name, int buckets) {
        testing.sql(("CREATE TABLE ls.%s.%s (id BIGINT, name STRING, score INT) USING lakestream "
                        + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='%s')")
                .formatted(NS, name, buckets));
    }

    private List<List<Object>> query(String sql) {
        return rows(testing.sql(sql));
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    @Test
    void insertIsAnUpsertAcrossTiering() {
        createTable("upsert", 4);
        testing.sql("INSERT INTO ls.pk.upsert VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
        assertThat(query("SELECT id, name, score FROM ls.pk.upsert ORDER BY id"))
                .containsExactly(List.of(1L, "a", 10), List.of(2L, "b", 20), List.of(3L, "c", 30));

        testing.sql("INSERT INTO ls.pk.upsert VALUES (2, 'b2', 25)");
        assertThat(query("SELECT id, name, score FROM ls.pk.upsert ORDER BY id"))
                .containsExactly(List.of(1L, "a", 10), List.of(2L, "b2", 25), List.of(3L, "c", 30));

        tier("upsert");
        assertThat(query("SELECT id, name, score FROM ls.pk.upsert ORDER BY id"))
                .as("after tiering, the lake alone holds the same state")
                .containsExactly(List.of(1L, "a", 10), List.of(2L, "b2", 25), List.of(3L, "c", 30));

        // a delete through the Java writer and an upsert through Spark, both in the log tail over the lake
        LakestreamTable table = SparkTables.load(NS, "upsert");
        try (LakestreamWriter writer =
                new LakestreamWriter(table, testing.warehouse().allocator())) {
            writer.delete(Map.of("id", 3L));
            writer.commit();
        }
        testing.sql("INSERT INTO ls.pk.upsert VALUES (1, 'a2', 5), (4, 'd', 40)");
        assertThat(query("SELECT id, name, score FROM ls.pk.upsert ORDER BY id"))
                .containsExactly(List.of(1L, "a2", 5), List.of(2L, "b2", 25), List.of(4L, "d", 40));
        assertThat(query("SELECT count(*) FROM ls.pk.upsert")).containsExactly(List.of(3L));
    }

    @Test
    void compositeKey() {
        testing.sql("CREATE TABLE ls.pk.composite (id BIGINT, region STRING, name STRING) "
                + "TBLPROPERTIES ('primary-key'='id,region', 'bucket.num'='4')");
        testing.sql("INSERT INTO ls.pk.composite VALUES (1, 'eu', 'a'), (1, 'us', 'b'), (2, 'eu', 'c')");
        tier("composite");
        testing.sql("INSERT INTO ls.pk.composite VALUES (1, 'us', 'b2'), (2, 'us', 'd')");

        assertThat(testing.spark().table("ls.pk.composite").columns())
                .as("the hidden bucket column of a multi-column key is not a user column")
                .containsExactly("id", "region", "name");
        assertThat(query("SELECT id, region, name FROM ls.pk.composite ORDER BY id, region"))
                .containsExactly(
                        List.of(1L, "eu", "a"),
                        List.of(1L, "us", "b2"),
                        List.of(2L, "eu", "c"),
                        List.of(2L, "us", "d"));
        Dataset<Row> one = testing.sql("SELECT name FROM ls.pk.composite WHERE id = 1 AND region = 'us'");
        assertThat(rows(one)).containsExactly(List.of("b2"));
        assertThat(SparkTables.scan(one).inputPartitions().size()).isEqualTo(1);
    }

    @Test
    void filterOnAColumnChangedInTheLogTail() {
        createTable("filtered", 2);
        testing.sql("INSERT INTO ls.pk.filtered VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
        tier("filtered");
        // the lake has (1, a, 10), which passes score >= 10; the newer version (1, a2, 5) does not and must hide it
        testing.sql("INSERT INTO ls.pk.filtered VALUES (1, 'a2', 5), (3, 'c2', 35)");

        assertThat(query("SELECT id, name, score FROM ls.pk.filtered WHERE score >= 10 ORDER BY id"))
                .containsExactly(List.of(2L, "b", 20), List.of(3L, "c2", 35));
        assertThat(query("SELECT id, name FROM ls.pk.filtered WHERE score < 10"))
                .containsExactly(List.of(1L, "a2"));
        assertThat(query("SELECT id FROM ls.pk.filtered WHERE name = 'a'")).isEmpty();
        assertThat(query("SELECT id FROM ls.pk.filtered WHERE name LIKE 'c%' AND NOT (score = 30)"))
                .containsExactly(List.of(3L));
        // projection without the key and the filter column: both are read anyway
        assertThat(query("SELECT name FROM ls.pk.filtered WHERE score > 6 ORDER BY name"))
                .containsExactly(List.of("b"), List.of("c2"));
    }

    @Test
    void unionReadMetricsCountHiddenLakeRows() {
        createTable("metrics", 1);
        testing.sql("INSERT INTO ls.pk.metrics VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)");
        tier("metrics");
        testing.sql("INSERT INTO ls.pk.metrics VALUES (2, 'b2', 22)");

        Dataset<Row> frame = testing.sql("SELECT * FROM ls.pk.metrics");
        assertThat(rows(frame)).hasSize(3);
        assertThat(SparkTables.metric(frame, LakestreamMetrics.LAKE_ROWS)).isEqualTo(3);
        assertThat(SparkTables.metric(frame, LakestreamMetrics.LOG_ROWS)).isEqualTo(1);
        assertThat(SparkTables.metric(frame, LakestreamMetrics.LAKE_ROWS_HIDDEN))
                .isEqualTo(1);
    }

    @Test
    void readModesAndChangelog() {
        createTable("modes", 2);
        testing.sql("INSERT INTO ls.pk.modes VALUES (1, 'a', 10), (2, 'b', 20)");
        tier("modes");
        testing.sql("INSERT INTO ls.pk.modes VALUES (1, 'a2', 11)");

        assertThat(rows(testing.spark()
                        .read()
                        .option("read-mode", "lake")
                        .table("ls.pk.modes")
                        .select("id", "name")
                        .orderBy("id")))
                .as("read-mode=lake sees the committed lake only")
                .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
        assertThat(query("SELECT id, name FROM ls.pk.`modes$lake` ORDER BY id"))
                .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
        assertThat(query("SELECT id, name FROM ls.pk.modes WITH ('read-mode' = 'union') ORDER BY id"))
                .containsExactly(List.of(1L, "a2"), List.of(2L, "b"));
        testing.spark().conf().set("spark.lakestream.read-mode", "lake");
        try {
            assertThat(query("SELECT id, name FROM ls.pk.modes ORDER BY id"))
                    .as("session default")
                    .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
            assertThat(query("SELECT id, name FROM ls.pk.modes WITH ('read-mode' = 'union') ORDER BY id"))
                    .as("the read option wins over the session")
                    .containsExactly(List.of(1L, "a2"), List.of(2L, "b"));
        } finally {
            testing.spark().conf().unset("spark.lakestream.read-mode");
        }

        assertThat(query(
                        "SELECT _change_type, id, name FROM ls.pk.`modes$changes` ORDER BY _commit_timestamp, _offset"))
                .containsExactlyInAnyOrder(
                        List.of("upsert", 1L, "a"), List.of("upsert", 2L, "b"), List.of("upsert", 1L, "a2"));
        assertThat(rows(testing.spark()
                        .read()
                        .format("lakestream")
                        .option("catalog", "ls")
                        .option("table", "pk.modes")
                        .option("read-mode", "changes")
                        .option("changes-after-version", "1")
                        .load()
                        .select("_change_type", "id", "name")))
                .as("only the changes after log version 1")
                .containsExactly(List.of("upsert", 1L, "a2"));

        assertThatThrownBy(() -> testing.spark()
                        .read()
                        .option("read-mode", "changes")
                        .table("ls.pk.modes")
                        .collectAsList())
                .hasMessageContaining("modes$changes");
    }

    @Test
    void offsetsTableShowsHowFarTheLakeLags() {
        createTable("lag", 2);
        testing.sql("INSERT INTO ls.pk.lag SELECT id, 'a', 1 FROM range(10)");
        assertThat(query("SELECT sum(lake_offset), sum(log_end_offset), sum(records_behind), count(*), "
                        + "count(oldest_untiered_change), min(lake_snapshot_id) FROM ls.pk.`lag$offsets`"))
                .containsExactly(Arrays.asList(0L, 10L, 10L, 2L, 2L, null));
        long versionBeforeTiering = SparkTables.logVersion(NS, "lag");
        tier("lag");
        testing.sql("INSERT INTO ls.pk.lag VALUES (1, 'b', 2), (2, 'b', 2), (3, 'b', 2)");
        assertThat(query("SELECT sum(lake_offset), sum(log_end_offset), sum(records_behind), max(log_version) "
                        + "FROM ls.pk.`lag$offsets`"))
                .containsExactly(List.of(10L, 13L, 3L, SparkTables.logVersion(NS, "lag")));
        assertThat(query("SELECT count(*) FROM ls.pk.`lag$offsets` WHERE lake_snapshot_id IS NOT NULL"))
                .containsExactly(List.of(2L));

        // the rows come from the planner's freshness: the same as a planned read's, without planning one
        LakestreamTable table = SparkTables.load(NS, "lag");
        ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE));
        LakestreamOffsetsScan.Rows rows = LakestreamOffsetsScan.rows(table, ReadOptions.UNION);
        assertThat(rows.buckets()).isEqualTo(plan.freshness());
        assertThat(rows.logVersion()).isEqualTo(plan.logVersion());
        assertThat(rows.lakeSnapshotId()).isEqualTo(plan.lakeSnapshotId());

        // as of the version tiering took: the log ended at 10 then, and the lake snapshot tiered from it holds all of
        // it
        assertThat(query("SELECT sum(lake_offset), sum(log_end_offset), sum(records_behind), min(log_version) "
                        + "FROM ls.pk.`lag$offsets` VERSION AS OF " + versionBeforeTiering))
                .containsExactly(List.of(10L, 10L, 0L, versionBeforeTiering));
    }

    /**
     * A read pinned at a log version whose segments retention removed afterwards (as a query pinned before
     * retention ran and read after it): a coded error that says to re-run, not a corrupt log.
     */
    @Test
    void readOfAVersionWhoseSegmentsRetentionRemovedSaysToRerun() {
        createTable("retained", 2);
        testing.sql("INSERT INTO ls.pk.retained VALUES (1, 'a', 10), (2, 'b', 20)");
        long pinned = SparkTables.logVersion(NS, "retained");
        testing.sql("INSERT INTO ls.pk.retained VALUES (3, 'c', 30)");
        tier("retained");
        // what the tiering service's retention does once the tiered segments are old enough
        LakestreamTable table = SparkTables.load(NS, "retained");
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        assertThat(query("SELECT id, name FROM ls.pk.retained ORDER BY id"))
                .containsExactly(List.of(1L, "a"), List.of(2L, "b"), List.of(3L, "c"));
        assertThatThrownBy(() -> query("SELECT id, name FROM ls.pk.retained VERSION AS OF " + pinned))
                .hasStackTraceContaining("LOG_RANGE_REMOVED")
                .hasStackTraceContaining("removed by retention while this read ran")
                .hasStackTraceContaining("Re-run the query");
    }

    @Test
    void timeTravel() {
        createTable("travel", 2);
        testing.sql("INSERT INTO ls.pk.travel VALUES (1, 'a', 10), (2, 'b', 20)");
        long version = SparkTables.logVersion(NS, "travel");
        long committed = SparkTables.commitMillis(NS, "travel");
        // the catalog's log dates commits with the system clock: the next commit waits for it to pass the first
        Instant between = Instant.ofEpochMilli(committed);
        WallClock.awaitPast(committed);
        testing.sql("INSERT INTO ls.pk.travel VALUES (1, 'a2', 11), (3, 'c', 30)");
        assertThat(SparkTables.commitMillis(NS, "travel")).isGreaterThan(committed);
        tier("travel");

        assertThat(query("SELECT id, name FROM ls.pk.travel VERSION AS OF %s ORDER BY id".formatted(version)))
                .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
        assertThat(query("SELECT id, name FROM ls.pk.travel TIMESTAMP AS OF '%s' ORDER BY id".formatted(between)))
                .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
        assertThat(query("SELECT id, name FROM ls.pk.travel ORDER BY id"))
                .containsExactly(List.of(1L, "a2"), List.of(2L, "b"), List.of(3L, "c"));
        assertThat(rows(testing.spark()
                        .read()
                        .format("lakestream")
                        .option("catalog", "ls")
                        .option("table", "pk.travel")
                        .option("versionAsOf", version)
                        .load()
                        .select("id", "name")
                        .orderBy("id")))
                .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
        assertThat(rows(testing.spark()
                        .read()
                        .option("timestampAsOf", between.toString())
                        .table("ls.pk.travel")
                        .select("id", "name")
                        .orderBy("id")))
                .containsExactly(List.of(1L, "a"), List.of(2L, "b"));
        assertThatThrownBy(() -> query("SELECT * FROM ls.pk.travel VERSION AS OF 999"))
                .hasMessageContaining("Log version 999");
    }

    @Test
    void equalityOnTheKeyReadsOneBucket() {
        createTable("pruned", 8);
        testing.sql("INSERT INTO ls.pk.pruned SELECT id, concat('n', id), CAST(id AS INT) FROM range(200)");
        tier("pruned");
        testing.sql("INSERT INTO ls.pk.pruned SELECT id, concat('m', id), CAST(id AS INT) FROM range(100, 300)");

        Dataset<Row> one = testing.sql("SELECT id, name FROM ls.pk.pruned WHERE id = 150");
        assertThat(rows(one)).containsExactly(List.of(150L, "m150"));
        assertThat(SparkTables.scan(one).inputPartitions().size()).isEqualTo(1);
        assertThat(SparkTables.scan(one).scan().readSchema().fieldNames()).containsExactly("id", "name");
        assertThat(SparkTables.filtersAboveScan(one))
                .as("every predicate was pushed exactly, Spark does not filter again")
                .isZero();
        Dataset<Row> residual = testing.sql("SELECT id FROM ls.pk.pruned WHERE id = 150 AND score + 1 > 0");
        assertThat(rows(residual)).containsExactly(List.of(150L));
        assertThat(SparkTables.filtersAboveScan(residual)).isOne();
        Dataset<Row> all = testing.sql("SELECT * FROM ls.pk.pruned");
        assertThat(rows(all)).hasSize(300);
        assertThat(SparkTables.scan(all).inputPartitions().size()).isEqualTo(8);
    }

    @Test
    void dataFrameReadsAndWrites() throws Exception {
        createTable("frames", 3);
        testing.spark()
                .sql(
                        "SELECT CAST(id AS BIGINT) AS id, concat('x', id) AS name, CAST(id * 2 AS INT) AS score FROM range(5)")
                .writeTo("ls.pk.frames")
                .append();
        // by name: the columns in another order
        testing.spark()
                .sql("SELECT 44 AS score, 'four' AS name, 4L AS id")
                .writeTo("ls.pk.frames")
                .append();
        testing.spark()
                .sql("SELECT 3L AS id, 'three' AS name, 6 AS score")
                .write()
                .format("lakestream")
                .option("catalog", "ls")
                .option("table", "pk.frames")
                .mode("append")
                .save();

        List<List<Object>> expected = List.of(
                List.of(0L, "x0"), List.of(1L, "x1"), List.of(2L, "x2"), List.of(3L, "three"), List.of(4L, "four"));
        assertThat(rows(testing.spark()
                        .table("ls.pk.frames")
                        .select("id", "name")
                        .orderBy("id")))
                .isEqualTo(expected);
        assertThat(rows(testing.spark()
                        .read()
                        .table("ls.pk.frames")
                        .select("id", "name")
                        .orderBy("id")))
                .isEqualTo(expected);
        assertThat(rows(testing.spark()
                        .read()
                        .format("lakestream")
                        .option("catalog", "ls")
                        .option("table", "pk.frames")
                        .load()
                        .select("id", "name")
                        .orderBy("id")))
                .isEqualTo(expected);
        assertThat(rows(testing.spark()
                        .read()
                        .format("lakestream")
                        .option("table", "pk.frames")
                        .load()
                        .where("score = 44")
                        .select("id")))
                .as("the default catalog of format(\"lakestream\") is 'lakestream'")
                .containsExactly(List.of(4L));
    }

    @Test
    void nullKeyFailsAndCommitsNothing() {
        createTable("nullkey", 2);
        testing.sql("INSERT INTO ls.pk.nullkey VALUES (1, 'a', 10)");
        long version = SparkTables.logVersion(NS, "nullkey");
        long segments = SparkTables.segmentFiles(NS, "nullkey");

        assertThatThrownBy(() -> testing.sql(
                                "INSERT INTO ls.pk.nullkey SELECT * FROM VALUES (2L, 'b', 20), (CAST(NULL AS BIGINT), 'x', 0) AS v(id, name, score)")
                        .collectAsList())
                .hasStackTraceContaining("NULL value appeared in non-nullable field")
                .hasStackTraceContaining("id");
        assertThat(SparkTables.logVersion(NS, "nullkey")).isEqualTo(version);
        SparkTables.assertSegmentsUnchanged(NS, "nullkey", segments);
        assertThat(query("SELECT id, name FROM ls.pk.nullkey")).containsExactly(List.of(1L, "a"));
    }

    @Test
    void failedTaskAbortsTheWholeJob() {
        createTable("aborted", 4);
        testing.sql("INSERT INTO ls.pk.aborted VALUES (1, 'a', 10)");
        long version = SparkTables.logVersion(NS, "aborted");
        long segments = SparkTables.segmentFiles(NS, "aborted");

        // four tasks; the one holding id 150 fails after the others staged their segments
        assertThatThrownBy(() -> testing.sql(
                        "INSERT INTO ls.pk.aborted SELECT CASE WHEN id = 150 THEN raise_error('boom') ELSE id END, 'x', 0 "
                                + "FROM range(0, 200, 1, 4)"))
                .hasStackTraceContaining("boom");
        assertThat(SparkTables.logVersion(NS, "aborted")).isEqualTo(version);
        // Segment files are not compared here: Spark does not interrupt the failed job's other running
        // tasks, and one that finishes after the abort leaves its staged segments behind. They are never
        // committed, so never read; sweeping such orphans is an open item (see docs/spark.md).
        assertThat(SparkTables.segmentFiles(NS, "aborted")).isGreaterThanOrEqualTo(segments);
        assertThat(query("SELECT id, name FROM ls.pk.aborted")).containsExactly(List.of(1L, "a"));
    }

    @Test
    void valueThatDoesNotFitIsAnAnalysisError() {
        createTable("badvalue", 1);
        assertThatThrownBy(() -> testing.sql("INSERT INTO ls.pk.badvalue VALUES ('not a number', 'a', 10)"))
                .isInstanceOf(AnalysisException.class);
        assertThatThrownBy(() -> testing.sql("INSERT INTO ls.pk.badvalue (id, nope) VALUES (1, 2)"))
                .isInstanceOf(AnalysisException.class)
                .hasMessageContaining("nope");
        assertThat(SparkTables.logVersion(NS, "badvalue")).isZero();
    }
}
