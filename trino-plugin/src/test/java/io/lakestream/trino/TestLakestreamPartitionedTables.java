package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.write.LakestreamWriter;
import io.trino.operator.OperatorStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.MaterializedResult;
import java.util.Map;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * Tables partitioned by their columns as well as bucketed ({@code partitioning = ARRAY['day(ts)', 'region']}):
 * the lake's spec (the user's fields, then the bucket field), tiering into partitions, union, {@code $lake} and
 * stock Iceberg reads with the exact rows, {@code UPDATE}/{@code DELETE} on primary-key tables, lake files pruned
 * by a filter on a partition column, and the coded errors of partitionings the table cannot take.
 */
final class TestLakestreamPartitionedTables extends AbstractStockIcebergSqlTest {
    /** The file counts of a read right after tiering: the read must pin that lake. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    /**
     * {@code CREATE TABLE} of a partitioned table keeps its log per (partition, bucket): rows written by the Java
     * writer and by Trino's INSERT land in their partitions' logs, read back exactly (union, {@code $lake}) before and
     * after tiering, and {@code $offsets} has one row per (partition, bucket) with the partition path.
     */
    @Test
    void tableWithAPartitionedLogReadsBackAndShowsPartitionsInOffsets() {
        assertUpdate("CREATE TABLE plog (id bigint NOT NULL, region varchar NOT NULL, score integer)"
                + " WITH (primary_key = ARRAY['id', 'region'], partitioning = ARRAY['region'], bucket_count = 2)");
        LakestreamTable table = tables.load("plog");
        assertThat(table.log().isPartitionedLog()).isTrue();
        try (LakestreamWriter writer = new LakestreamWriter(table, tables.allocator())) {
            for (long id = 1; id <= 4; id++) {
                writer.upsert(Map.of("id", id, "region", "eu", "score", (int) id));
            }
            writer.upsert(Map.of("id", 1L, "region", "us", "score", 10));
            writer.commit();
        }
        assertUpdate("INSERT INTO plog VALUES (5, 'ap', 50), (2, 'us', 20)", 2);
        String all = "VALUES (1, 'eu', 1), (2, 'eu', 2), (3, 'eu', 3), (4, 'eu', 4), (1, 'us', 10), (2, 'us', 20),"
                + " (5, 'ap', 50)";
        assertThat(tables.load("plog").log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactly("region=eu", "region=us", "region=ap");

        assertQuery("SELECT id, region, score FROM plog", all);
        assertQuery("SELECT id FROM plog WHERE region = 'us'", "VALUES 1, 2");
        assertQuery(
                "SELECT partition, sum(log_end_offset), sum(records_behind) FROM \"plog$offsets\" GROUP BY partition",
                "VALUES ('region=eu', 4, 4), ('region=us', 2, 2), ('region=ap', 1, 1)");
        assertQuery("SELECT count(*), count(partition) FROM \"plog$offsets\"", "VALUES (6, 6)");
        // a segment per (partition, bucket) each commit touched; a filter on the partition column opens only its own
        long allSegments =
                tables.load("plog").log().latestSnapshot().liveSegments().size();
        long usSegments = tables.load("plog").log().latestSnapshot().liveSegments().stream()
                .filter(segment -> segment.partition().equals(java.util.Optional.of("region=us")))
                .count();
        assertThat(metric("SELECT * FROM plog", LakestreamMetrics.LOG_SEGMENTS)).isEqualTo(allSegments);
        assertThat(metric("SELECT * FROM plog WHERE region = 'us'", LakestreamMetrics.LOG_SEGMENTS))
                .isEqualTo(usSegments)
                .isLessThan(allSegments);

        // UPDATE and DELETE through Trino's merge sink, into the partitions' logs
        assertUpdate("UPDATE plog SET score = 0 WHERE region = 'eu' AND id <= 2", 2);
        assertUpdate("DELETE FROM plog WHERE id = 1 AND region = 'us'", 1);
        all = "VALUES (1, 'eu', 0), (2, 'eu', 0), (3, 'eu', 3), (4, 'eu', 4), (2, 'us', 20), (5, 'ap', 50)";
        assertQuery("SELECT id, region, score FROM plog", all);
        assertThat(tables.load("plog").log().latestSnapshot().bucketCount()).isEqualTo(2);
        assertThat(tables.load("plog")
                        .log()
                        .latestSnapshot()
                        .endOffsets()
                        .offsets()
                        .values())
                .allSatisfy(end -> assertThat(end).isZero());

        tables.tier("plog");
        assertQuery("SELECT id, region, score FROM plog", all);
        assertQuery("SELECT id, region, score FROM \"plog$lake\"", all);
        assertQuery(
                "SELECT partition, sum(lake_offset), sum(records_behind) FROM \"plog$offsets\" GROUP BY partition",
                // eu: 4 upserts, then the UPDATE's delete and upsert of 2 rows; us: 2 upserts and the DELETE
                "VALUES ('region=eu', 8, 0), ('region=us', 3, 0), ('region=ap', 1, 0)");
    }

    /**
     * A partitioned table whose log is kept per bucket, as every partitioned table created before partitioned logs
     * were the default (its identity record does not name the layout): it keeps that log, and Trino's INSERT, UPDATE,
     * MERGE and DELETE, tiering, union, {@code $lake} and {@code $offsets} (one row per bucket, no partition) work on
     * it as before.
     */
    @Test
    void partitionedTableFromBeforePartitionedLogsKeepsItsPerBucketLog() {
        LakestreamTable table = tables.catalog()
                .createTable(
                        TableIdentifier.of(LakestreamQueryRunner.SCHEMA, "old_layout"),
                        PartitionedScores.perBucketLogSpec(2));
        assertThat(table.log().identity().orElseThrow().partitionedLog()).isFalse();
        assertUpdate("INSERT INTO old_layout VALUES (1, 'eu', 1), (2, 'us', 2), (3, 'eu', 3)", 3);
        tables.tier("old_layout");
        assertUpdate("UPDATE old_layout SET score = 10 WHERE id = 1", 1);
        assertUpdate(
                "MERGE INTO old_layout t USING (VALUES (2, 'us', 20), (4, 'ap', 4)) s(id, region, score)"
                        + " ON t.id = s.id AND t.region = s.region WHEN MATCHED THEN UPDATE SET score = s.score"
                        + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.region, s.score)",
                2);
        assertUpdate("DELETE FROM old_layout WHERE id = 3", 1);
        String expected = "VALUES (1, 'eu', 10), (2, 'us', 20), (4, 'ap', 4)";
        assertQuery("SELECT id, region, score FROM old_layout", expected);
        assertQuery(
                "SELECT count(*), count(partition), sum(log_end_offset) FROM \"old_layout$offsets\"",
                "VALUES (2, 0, 9)");
        tables.tier("old_layout");
        assertQuery("SELECT id, region, score FROM old_layout", expected);
        assertQuery("SELECT id, region, score FROM \"old_layout$lake\"", expected);
        assertThat(tables.load("old_layout").log().latestSnapshot().partitions())
                .isEmpty();
        assertThat(tables.load("old_layout").log().isPartitionedLog()).isFalse();
    }

    @Test
    void appendOnlyTablePartitionedByDayAndRegion() {
        assertUpdate("CREATE TABLE ao_days (id bigint NOT NULL, ts timestamp(6), region varchar, v varchar)"
                + " WITH (partitioning = ARRAY['day(ts)', 'region'], bucket_key = ARRAY['id'], bucket_count = 2)");
        assertThat((String) computeScalar("SHOW CREATE TABLE ao_days"))
                .contains("partitioning = ARRAY['day(ts)','region']");
        assertThat(tables.load("ao_days").lake().spec().fields())
                .extracting(PartitionField::name)
                .containsExactly("ts_day", "region", "id_bucket");
        assertThat(tables.load("ao_days").log().isPartitionedLog()).isTrue();

        assertUpdate(
                "INSERT INTO ao_days VALUES"
                        + " (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a'), (2, TIMESTAMP '2026-11-30 23:59:59', 'us', 'b'),"
                        + " (3, TIMESTAMP '2026-12-01 00:00:00', 'eu', 'c'), (4, TIMESTAMP '2026-12-01 12:00:00', 'eu', 'd')",
                4);
        tables.tier("ao_days");
        assertUpdate("INSERT INTO ao_days VALUES (5, TIMESTAMP '2026-12-02 08:00:00', 'us', 'e')", 1);
        String all =
                "VALUES (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a'), (2, TIMESTAMP '2026-11-30 23:59:59', 'us', 'b'),"
                        + " (3, TIMESTAMP '2026-12-01 00:00:00', 'eu', 'c'), (4, TIMESTAMP '2026-12-01 12:00:00', 'eu', 'd'),"
                        + " (5, TIMESTAMP '2026-12-02 08:00:00', 'us', 'e')";
        assertQuery("SELECT id, ts, region, v FROM ao_days", all);
        assertQuery(
                "SELECT id FROM ao_days WHERE ts >= TIMESTAMP '2026-12-01 00:00:00' AND region = 'eu'", "VALUES 3, 4");
        tables.tier("ao_days");
        assertQuery("SELECT id, ts, region, v FROM ao_days", all);
        assertQuery("SELECT id, ts, region, v FROM \"ao_days$lake\"", all);
        assertStock("ao_days", "id, ts, region, v");
        // the stock connector sees the partitions: day and region of every row, per bucket of its id
        assertThat(
                        computeScalar(
                                "SELECT count(DISTINCT (partition.ts_day, partition.region)) FROM iceberg.tests.\"ao_days$partitions\""))
                .isEqualTo(4L);
        assertQuery("SELECT sum(records_behind) FROM \"ao_days$offsets\"", "VALUES 0");

        // the spec names source field ids: a renamed partition column keeps partitioning and reads
        assertUpdate("ALTER TABLE ao_days RENAME COLUMN region TO area");
        assertThat((String) computeScalar("SHOW CREATE TABLE ao_days"))
                .contains("partitioning = ARRAY['day(ts)','area']");
        assertUpdate("INSERT INTO ao_days VALUES (6, TIMESTAMP '2026-12-02 09:00:00', 'eu', 'f')", 1);
        tables.tier("ao_days");
        assertQuery("SELECT id FROM ao_days WHERE area = 'eu'", "VALUES 1, 3, 4, 6");
        assertStock("ao_days", "id, ts, area, v");
    }

    /** {@code CREATE TABLE AS} of a partitioned table writes its rows into the partitions' logs. */
    @Test
    void createTableAsSelectWritesAPartitionedLog() {
        assertUpdate(
                "CREATE TABLE ctas_parts WITH (partitioning = ARRAY['region'], bucket_count = 2) AS"
                        + " SELECT * FROM (VALUES (1, 'eu', 'a'), (2, 'us', 'b'), (3, 'eu', 'c')) t(id, region, v)",
                3);
        assertThat(tables.load("ctas_parts").log().latestSnapshot().partitions())
                .extracting(partition -> partition.path())
                .containsExactlyInAnyOrder("region=eu", "region=us");
        assertQuery(
                "SELECT partition, sum(log_end_offset) FROM \"ctas_parts$offsets\" GROUP BY partition",
                "VALUES ('region=eu', 2), ('region=us', 1)");
        assertQuery("SELECT id, v FROM ctas_parts WHERE region = 'eu'", "VALUES (1, 'a'), (3, 'c')");
        tables.tier("ctas_parts");
        assertQuery(
                "SELECT id, region, v FROM \"ctas_parts$lake\"",
                "VALUES (1, 'eu', 'a'), (2, 'us', 'b'), (3, 'eu', 'c')");
    }

    @Test
    void partitioningChangedOutsideLakestreamIsRefused() {
        assertUpdate("CREATE TABLE respec (id bigint NOT NULL, ts timestamp(6), v varchar)"
                + " WITH (partitioning = ARRAY['day(ts)'], bucket_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO respec VALUES (1, TIMESTAMP '2026-12-01 10:00:00', 'a')", 1);
        tables.tier("respec");
        assertUpdate(
                "ALTER TABLE iceberg.tests.respec SET PROPERTIES partitioning = ARRAY['month(ts)', 'bucket(id, 2)']");
        assertThat(query("SELECT * FROM respec"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_LAKE_LAYOUT_MISMATCH)
                .hasMessageContaining("make spec 0, with the fields ['day(ts)', 'bucket(id, 2)'] in this order");
        // the same fields in another order are another layout (the bucket field must be last): still refused
        assertUpdate(
                "ALTER TABLE iceberg.tests.respec SET PROPERTIES partitioning = ARRAY['day(ts)', 'bucket(id, 2)']");
        assertThat(query("SELECT * FROM respec"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_LAKE_LAYOUT_MISMATCH);
        // the lake alone stays readable
        assertQuery("SELECT id, v FROM \"respec$lake\"", "VALUES (1, 'a')");
    }

    @Test
    void primaryKeyTablePartitionedByKeyColumns() {
        // the bucket key defaults to the three-column primary key: the bucket is the hidden __bucket field
        assertPrimaryKeyTable("pk_days", "", false);
        // a single-column bucket key: the bucket field is bucket(2, id)
        assertPrimaryKeyTable("pk_days_by_id", ", bucket_key = ARRAY['id']", true);
    }

    private void assertPrimaryKeyTable(String table, String bucketKey, boolean compact) {
        assertUpdate(("CREATE TABLE %s (id bigint, ts timestamp(6), region varchar, v varchar)"
                        + " WITH (primary_key = ARRAY['id', 'ts', 'region'], partitioning = ARRAY['day(ts)', 'region'],"
                        + " bucket_count = 2%s)")
                .formatted(table, bucketKey));
        assertThat(tables.load(table).log().isPartitionedLog()).isTrue();
        assertUpdate(
                ("INSERT INTO %s VALUES (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a'),"
                                + " (2, TIMESTAMP '2026-11-30 11:00:00', 'us', 'b'), (3, TIMESTAMP '2026-12-01 09:00:00', 'eu', 'c'),"
                                + " (4, TIMESTAMP '2026-12-02 09:00:00', 'us', 'd')")
                        .formatted(table),
                4);
        tables.tier(table);
        // a new version of a key in the lake, a delete of one, an update of one, a new key
        assertUpdate("INSERT INTO %s VALUES (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a2')".formatted(table), 1);
        assertUpdate("DELETE FROM %s WHERE id = 2".formatted(table), 1);
        assertUpdate("UPDATE %s SET v = 'c2' WHERE region = 'eu' AND id = 3".formatted(table), 1);
        assertUpdate("INSERT INTO %s VALUES (5, TIMESTAMP '2026-12-02 10:00:00', 'eu', 'e')".formatted(table), 1);
        String expected =
                "VALUES (1, TIMESTAMP '2026-11-30 10:00:00', 'eu', 'a2'), (3, TIMESTAMP '2026-12-01 09:00:00', 'eu', 'c2'),"
                        + " (4, TIMESTAMP '2026-12-02 09:00:00', 'us', 'd'), (5, TIMESTAMP '2026-12-02 10:00:00', 'eu', 'e')";
        assertQuery("SELECT id, ts, region, v FROM " + table, expected);
        assertQuery(
                "SELECT id, v FROM %s WHERE CAST(ts AS date) = DATE '2026-12-02'".formatted(table),
                "VALUES (4, 'd'), (5, 'e')");
        tables.tier(table);
        assertQuery("SELECT id, ts, region, v FROM " + table, expected);
        // the equality deletes landed in the partitions of their keys: Iceberg applies them there
        assertQuery("SELECT id, ts, region, v FROM \"%s$lake\"".formatted(table), expected);
        assertStock(table, "id, ts, region, v");
        // an UPDATE after tiering, read from the lake files and the tail
        assertUpdate("UPDATE %s SET v = 'd2' WHERE id = 4".formatted(table), 1);
        assertQuery("SELECT id, v FROM %s WHERE region = 'us'".formatted(table), "VALUES (4, 'd2')");
        if (!compact) {
            return;
        }
        // compaction rewrites each bucket's rows into their partitions, with the deletes applied
        tables.tier(table);
        computeActual("ALTER TABLE %s EXECUTE compact".formatted(table));
        String compacted = expected.replace("'us', 'd')", "'us', 'd2')");
        assertQuery("SELECT id, ts, region, v FROM \"%s$lake\"".formatted(table), compacted);
        assertStock(table, "id, ts, region, v");
        assertThat(computeScalar("SELECT count(*) FROM iceberg.tests.\"%s$files\" WHERE content <> 0".formatted(table)))
                .isEqualTo(0L);
        assertThat(computeScalar(("SELECT count(DISTINCT (partition.ts_day, partition.region))"
                                + " FROM iceberg.tests.\"%s$partitions\"")
                        .formatted(table)))
                .isEqualTo(4L);
    }

    @Test
    void filterOnAPartitionColumnOpensOnlyItsLakeFiles() {
        assertUpdate("CREATE TABLE pruned (id bigint NOT NULL, ts timestamp(6), v varchar)"
                + " WITH (partitioning = ARRAY['day(ts)'], bucket_key = ARRAY['id'], bucket_count = 1)");
        // one tiering round over four days: one data file per day
        assertUpdate(
                "INSERT INTO pruned SELECT x, TIMESTAMP '2026-11-28 12:00:00' + x * INTERVAL '1' DAY, 'v' || CAST(x AS varchar)"
                        + " FROM UNNEST(sequence(0, 3)) t(x)",
                4);
        tables.tier("pruned");
        assertThat(lakeFiles("SELECT * FROM pruned")).isEqualTo(4);
        assertThat(lakeFiles("SELECT v FROM pruned WHERE ts >= TIMESTAMP '2026-11-30 00:00:00'"
                        + " AND ts < TIMESTAMP '2026-12-01 00:00:00'"))
                .isEqualTo(1);
        assertQuery(
                "SELECT v FROM pruned WHERE ts >= TIMESTAMP '2026-11-30 00:00:00' AND ts < TIMESTAMP '2026-12-01 00:00:00'",
                "VALUES 'v2'");
        assertThat(lakeFiles("SELECT v FROM pruned WHERE CAST(ts AS date) > DATE '2026-11-29'"))
                .isEqualTo(2);
    }

    @Test
    void partitioningsTheTableCannotTake() {
        assertThat(query("CREATE TABLE bad_pk (id bigint, region varchar, v varchar)"
                        + " WITH (primary_key = ARRAY['id'], partitioning = ARRAY['region'])"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITIONING_NOT_ALLOWED)
                .hasMessageContaining("must be a primary-key column");
        assertThat(
                        query(
                                "CREATE TABLE bad_transform (id bigint, ts timestamp(6)) WITH (partitioning = ARRAY['week(ts)'])"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITIONING_NOT_ALLOWED)
                .hasMessageContaining("supported terms are");
        assertThat(query(
                        "CREATE TABLE bad_type (id bigint, region varchar) WITH (partitioning = ARRAY['day(region)'])"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_PARTITIONING_NOT_ALLOWED)
                .hasMessageContaining("cannot apply day to column 'region'");
        assertThat(query("SHOW TABLES LIKE 'bad_%'")).returnsEmptyResult();
    }

    private void assertStock(String table, String columns) {
        MaterializedResult lake = computeActual("SELECT %s FROM \"%s$lake\"".formatted(columns, table));
        MaterializedResult stock = computeActual("SELECT %s FROM iceberg.tests.%s".formatted(columns, table));
        assertThat(stock.getMaterializedRows()).containsExactlyInAnyOrderElementsOf(lake.getMaterializedRows());
    }

    /** The lake data files the query's table scan opened, summed over its splits. */
    private long lakeFiles(String sql) {
        return metric(sql, LakestreamMetrics.LAKE_FILES);
    }

    private long metric(String sql, String name) {
        Metrics[] result = new Metrics[1];
        assertQueryStats(
                getSession(),
                sql,
                stats -> result[0] = stats.getOperatorSummaries().stream()
                        .map(OperatorStats::getConnectorMetrics)
                        .reduce(Metrics.EMPTY, Metrics::mergeWith),
                rows -> {});
        assertThat(result[0].getMetrics()).containsKey(name);
        return ((LongCount) result[0].getMetrics().get(name)).getTotal();
    }
}
