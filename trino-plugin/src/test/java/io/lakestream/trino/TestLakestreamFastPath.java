package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.spi.metrics.Metrics;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The fast path ({@link io.lakestream.merge.LakeReadPath#LAKE_PARQUET}): splits without a log tail are read by
 * Trino's Parquet reader (delete files: {@link TestLakestreamLakeDeletes}). Every query is checked against expected rows and
 * against the union split reader (the session property turned off), and the fast-path counter
 * proves which path ran. Splits with a log tail: {@link TestLakestreamParquetMerge}.
 */
final class TestLakestreamFastPath extends AbstractReadPathTest {
    @Test
    void everyColumnTypeOnTheFastPath() {
        assertUpdate("CREATE TABLE typed (id bigint, b boolean, i integer, r real, d double, dec_short decimal(10, 2), "
                + "dec_long decimal(30, 5), dt date, tm time(6), ts timestamp(6), tstz timestamp(6) with time zone, "
                + "s varchar, u uuid, bin varbinary) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate(
                "INSERT INTO typed VALUES "
                        + "(1, true, 7, REAL '1.5', 2.25, DECIMAL '12345678.91', DECIMAL '1234567890123456789012345.12345', "
                        + "DATE '2024-02-29', TIME '12:34:56.123456', TIMESTAMP '2024-01-02 03:04:05.123456', "
                        + "TIMESTAMP '2024-01-02 03:04:05.123456 UTC', 'héllo', UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', X'00ff10'), "
                        + "(2, false, -7, REAL '-0.0', -1e300, DECIMAL '-0.01', DECIMAL '-0.00001', DATE '1969-12-31', "
                        + "TIME '00:00:00.000001', TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP '1970-01-01 00:00:00.000001 UTC', "
                        + "'', UUID '00000000-0000-0000-0000-000000000000', X''), "
                        + "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
                3);
        tables.tier("typed");

        String all = "SELECT * FROM typed";
        assertThat(query(all))
                .matches("VALUES "
                        + "(BIGINT '1', true, 7, REAL '1.5', DOUBLE '2.25', CAST(DECIMAL '12345678.91' AS decimal(10, 2)), "
                        + "CAST(DECIMAL '1234567890123456789012345.12345' AS decimal(30, 5)), DATE '2024-02-29', TIME '12:34:56.123456', "
                        + "TIMESTAMP '2024-01-02 03:04:05.123456', TIMESTAMP '2024-01-02 03:04:05.123456 UTC', VARCHAR 'héllo', "
                        + "UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', X'00ff10'), "
                        + "(BIGINT '2', false, -7, REAL '-0.0', DOUBLE '-1e300', CAST(DECIMAL '-0.01' AS decimal(10, 2)), "
                        + "CAST(DECIMAL '-0.00001' AS decimal(30, 5)), DATE '1969-12-31', TIME '00:00:00.000001', "
                        + "TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP '1970-01-01 00:00:00.000001 UTC', VARCHAR '', "
                        + "UUID '00000000-0000-0000-0000-000000000000', X''), "
                        + "(BIGINT '3', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)");
        assertSameOnBothPaths(all);
        assertThat(fastPathSplits(all)).isEqualTo(2);
        // every column on its own (projection), and count(*) reading no column at all
        for (String column :
                List.of("b", "i", "r", "d", "dec_short", "dec_long", "dt", "tm", "ts", "tstz", "s", "u", "bin")) {
            assertSameOnBothPaths("SELECT " + column + " FROM typed");
            assertSameOnBothPaths("SELECT id FROM typed WHERE " + column + " IS NULL");
        }
        assertQuery("SELECT count(*) FROM typed", "VALUES 3");
        assertThat(fastPathSplits("SELECT count(*) FROM typed")).isEqualTo(2);
        assertQuery("SELECT count(*) FROM \"typed$lake\"", "VALUES 3");
        assertThat(fastPathSplits("SELECT * FROM \"typed$lake\"")).isEqualTo(2);

        // enforced filters of every enforced type, with NULLs (a NULL passes only IS NULL)
        for (String filter : List.of(
                "b",
                "NOT b",
                "b IS NULL",
                "i > 0",
                "i IS NULL OR i < 0",
                "dec_short = DECIMAL '-0.01'",
                "dec_long > 0",
                "dt < DATE '2000-01-01'",
                "ts >= TIMESTAMP '2024-01-01 00:00:00'",
                "tstz > TIMESTAMP '1970-01-01 00:00:00 UTC'",
                "s = ''",
                "s IN ('héllo', 'x')",
                "s IS NOT NULL",
                "id IN (1, 3)",
                "id BETWEEN 2 AND 3 AND s IS NULL",
                "i = 7 AND b")) {
            String sql = "SELECT id FROM typed WHERE " + filter;
            assertThat(query(sql)).isFullyPushedDown();
            assertSameOnBothPaths(sql);
        }
        assertQuery("SELECT id FROM typed WHERE b IS NULL", "VALUES 3");
        assertQuery("SELECT id FROM typed WHERE i IS NULL OR i < 0", "VALUES 2, 3");
        assertQuery("SELECT id FROM typed WHERE s IN ('héllo', 'x')", "VALUES 1");
        assertQuery("SELECT id FROM typed WHERE s = ''", "VALUES 2");
        assertQuery("SELECT id FROM typed WHERE dec_long > 0", "VALUES 1");
        // filters Trino applies itself (floating point) still see the right values
        assertQuery("SELECT id FROM typed WHERE d < 0", "VALUES 2");
        assertQueryReturnsEmptyResult("SELECT id FROM typed WHERE i = 7 AND i = 8");
    }

    @Test
    void limitAndRowGroupPruning() {
        assertUpdate("CREATE TABLE many (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        // small row groups, so that the filter can skip some of them
        Table lake = tables.load("many").lake();
        lake.updateProperties().set("write.parquet.row-group-size-bytes", "1").commit();
        assertUpdate("INSERT INTO many SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(1, 5000)) t(x)", 5000);
        tables.tier("many");

        assertQuery("SELECT count(*), sum(id), min(v), max(v) FROM many", "VALUES (5000, 12502500, 'v1', 'v999')");
        assertThat(computeActual("SELECT * FROM many LIMIT 7").getRowCount()).isEqualTo(7);
        assertThat(fastPathSplits("SELECT * FROM many LIMIT 7")).isEqualTo(1);

        String range = "SELECT id, v FROM many WHERE id BETWEEN 100 AND 120";
        assertQuery(
                "SELECT count(*), min(id), max(id), min(v), max(v) FROM many WHERE id BETWEEN 100 AND 120",
                "VALUES (21, 100, 120, 'v100', 'v120')");
        assertSameOnBothPaths(range);
        Metrics metrics = scanMetrics(getSession(), range);
        assertThat(count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)).isEqualTo(1);
        // row groups that cannot hold ids 100..120 are not read
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS)).isLessThan(5000);
    }

    @Test
    void renamedAndAddedColumns() {
        assertUpdate(
                "CREATE TABLE evolving (id bigint, v varchar, n integer) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO evolving VALUES (1, 'a', 10), (2, 'b', NULL), (3, NULL, 30)", 3);
        tables.tier("evolving");
        tables.load("evolving")
                .lake()
                .updateSchema()
                .renameColumn("v", "label")
                .addColumn("extra", Types.StringType.get())
                .commit();

        assertQuery(
                "SELECT id, label, n, extra FROM evolving",
                "VALUES (1, 'a', 10, NULL), (2, 'b', NULL, NULL), (3, NULL, 30, NULL)");
        assertQuery("SELECT label FROM evolving WHERE label = 'b'", "VALUES 'b'");
        assertQuery("SELECT count(*) FROM evolving WHERE extra IS NULL", "VALUES 3");
        assertQueryReturnsEmptyResult("SELECT id FROM evolving WHERE extra = 'x'");
        assertQuery("SELECT id FROM evolving WHERE extra IS NULL AND label IS NOT NULL", "VALUES 1, 2");
        assertSameOnBothPaths("SELECT * FROM evolving");
        assertSameOnBothPaths("SELECT id, extra FROM evolving WHERE extra IS NULL AND n > 5");
        assertThat(fastPathSplits("SELECT * FROM evolving")).isEqualTo(2);
    }

    @Test
    void bucketsWithAndWithoutALogTailInOneQuery() {
        assertUpdate("CREATE TABLE mixed (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate("INSERT INTO mixed SELECT x, 'lake' FROM UNNEST(sequence(1, 40)) t(x)", 40);
        tables.tier("mixed");
        // one new version in the log tail: its bucket is merged on the Parquet reader's pages, the
        // other three take the fast path
        assertUpdate("INSERT INTO mixed VALUES (7, 'log')", 1);

        assertQuery("SELECT count(*), count_if(v = 'log') FROM mixed", "VALUES (40, 1)");
        assertQuery("SELECT v FROM mixed WHERE id = 7", "VALUES 'log'");
        assertQuery("SELECT count(*) FROM mixed WHERE v = 'lake'", "VALUES 39");
        Metrics metrics = scanMetrics(getSession(), "SELECT * FROM mixed");
        assertThat(count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)).isEqualTo(3);
        assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(1);
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS)).isEqualTo(40);
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS_HIDDEN)).isEqualTo(1);
        assertSameOnBothPaths("SELECT * FROM mixed");

        // a DELETE reads its row ids through both paths
        assertUpdate("DELETE FROM mixed WHERE id IN (7, 8, 9)", 3);
        assertQuery("SELECT count(*) FROM mixed WHERE id BETWEEN 6 AND 10", "VALUES 2");

        // after tiering, deletes of earlier lake rows are Iceberg equality delete files, applied on the
        // Parquet reader's pages; compaction rewrites the files without deletes
        tables.tier("mixed");
        assertQuery("SELECT count(*) FROM mixed", "VALUES 37");
        assertThat(fastPathSplits("SELECT * FROM mixed")).isEqualTo(4);
        assertSameOnBothPaths("SELECT * FROM mixed");
        tierAndCompact("mixed");
        assertQuery("SELECT count(*), count_if(v = 'log') FROM mixed", "VALUES (37, 0)");
        assertThat(fastPathSplits("SELECT * FROM mixed")).isEqualTo(4);
        assertSameOnBothPaths("SELECT * FROM mixed");
        // the hidden $bucket column is constant per split: the fast path serves it, and a filter on it
        // (enforced by choosing splits) too
        assertThat(fastPathSplits("SELECT id, \"$bucket\" FROM mixed")).isEqualTo(4);
        assertSameOnBothPaths("SELECT id, \"$bucket\" FROM mixed");
        assertThat(fastPathSplits("SELECT id FROM mixed WHERE \"$bucket\" = 1 AND id > 3"))
                .isEqualTo(1);
        assertSameOnBothPaths("SELECT id, \"$bucket\" FROM mixed WHERE \"$bucket\" = 1 AND id > 3");
    }

    @Test
    void appendOnlyLakeFiles() {
        assertUpdate("CREATE TABLE appended (id bigint, v varchar) WITH (bucket_count = 2)");
        assertUpdate("INSERT INTO appended VALUES (1, 'a'), (2, 'b'), (1, 'a')", 3);
        tables.tier("appended");
        assertUpdate("INSERT INTO appended VALUES (3, 'c')", 1);
        assertQuery("SELECT id, v FROM appended", "VALUES (1, 'a'), (2, 'b'), (1, 'a'), (3, 'c')");
        assertThat(fastPathSplits("SELECT * FROM appended")).isGreaterThanOrEqualTo(1);
        assertSameOnBothPaths("SELECT * FROM appended");
    }
}
