package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.LakeDeleteFiles;
import io.trino.spi.metrics.Metrics;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * Lake files with Iceberg delete files are read by Trino's Parquet reader, the deletes applied on its
 * pages ({@link io.lakestream.merge.LakeRowSelector}): equality deletes (which tiering writes for every updated or deleted
 * key) on keys of every layout, and position deletes (which another engine's DELETE on the lake writes),
 * with and without a log tail. Every query is checked against expected rows and against the union split
 * reader, and both paths count the same rows.
 */
final class TestLakestreamLakeDeletes extends AbstractReadPathTest {
    @Test
    void equalityDeletesOfTieredChangesAreAppliedOnPages() {
        assertUpdate(
                "CREATE TABLE eq (id bigint, v bigint, s varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO eq SELECT x, x, 'lake' FROM UNNEST(sequence(1, 200)) t(x)", 200);
        tables.tier("eq");
        assertUpdate("INSERT INTO eq SELECT x, -x, 'upd' FROM UNNEST(sequence(1, 30)) t(x)", 30);
        assertUpdate("DELETE FROM eq WHERE id BETWEEN 31 AND 40", 10);
        tables.tier("eq");
        assertThat(lakeDeleteFiles("eq")).isPositive();

        // no log tail: every split on Trino's Parquet reader, the equality deletes applied on its pages
        // sum(v): 1..200, minus 1..40, plus -1..-30
        assertQuery("SELECT count(*), count_if(s = 'upd'), sum(v) FROM eq", "VALUES (190, 30, 18815)");
        assertQuery("SELECT count(*) FROM eq WHERE id BETWEEN 1 AND 40", "VALUES 30");
        assertQuery("SELECT count(*) FROM \"eq$lake\"", "VALUES 190");
        List<String> queries = List.of(
                "SELECT * FROM eq",
                "SELECT id FROM eq WHERE v < 0",
                "SELECT s, count(*) FROM eq GROUP BY s",
                "SELECT * FROM \"eq$lake\"",
                "SELECT id, \"$bucket\" FROM eq WHERE id BETWEEN 25 AND 45",
                // the key is not read: the lake files' keys come from the key cache
                "SELECT sum(v), count(s) FROM eq");
        for (String sql : queries) {
            assertSameOnBothPaths(sql);
            assertSameCountersOnBothPaths(sql);
            assertReadByTrinoParquetReader(sql);
        }
        // one split per bucket, none with a tail
        assertThat(fastPathSplits("SELECT * FROM eq")).isEqualTo(2);
        Metrics cached = scanMetrics(getSession(), "SELECT sum(v) FROM eq");
        assertThat(count(cached, LakestreamMetrics.LAKE_ROWS)).isEqualTo(190);
        assertThat(count(cached, LakestreamMetrics.LAKE_KEY_CACHE_HITS)
                        + count(cached, LakestreamMetrics.LAKE_KEY_CACHE_MISSES))
                .isPositive();

        // a log tail on top: merged on the same pages
        assertUpdate("INSERT INTO eq VALUES (5, 500, 'tail'), (35, 35, 'tail'), (300, 300, 'tail')", 3);
        assertUpdate("DELETE FROM eq WHERE id IN (50, 60)", 2);
        assertQuery(
                "SELECT count(*), count_if(s = 'tail'), sum(v) FROM eq",
                "VALUES (190, 3, 18815 + 505 + 35 + 300 - 110)");
        assertQuery("SELECT v FROM eq WHERE id IN (5, 35, 50)", "VALUES 500, 35");
        for (String sql : queries) {
            assertSameOnBothPaths(sql);
        }
        // without a filter: with one, this path counts only the hidden rows that pass it
        assertSameCountersOnBothPaths("SELECT * FROM eq");
        assertSameCountersOnBothPaths("SELECT sum(v), count(s) FROM eq");
        assertReadByTrinoParquetReader("SELECT * FROM eq");
        assertThat(count(scanMetrics(getSession(), "SELECT * FROM eq"), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(2);
    }

    @Test
    void equalityDeletesOnEncodedKeys() {
        assertEqualityDeletesOnKey("by_name", "k varchar, v bigint", "ARRAY['k']", "'key-' || CAST(x AS varchar)");
        assertEqualityDeletesOnKey(
                "by_pair",
                "k integer, d date, v bigint",
                "ARRAY['k', 'd']",
                "CAST(x % 7 AS integer), DATE '2024-01-01' + x * INTERVAL '1' DAY");
    }

    /** Tiered rows, tiered updates and deletes (equality deletes on the key), then a tail; both paths agree. */
    private void assertEqualityDeletesOnKey(String table, String columns, String key, String keyValues) {
        assertUpdate("CREATE TABLE %s (%s) WITH (primary_key = %s, bucket_count = 2)".formatted(table, columns, key));
        assertUpdate("INSERT INTO %s SELECT %s, x FROM UNNEST(sequence(1, 100)) t(x)".formatted(table, keyValues), 100);
        tables.tier(table);
        assertUpdate("INSERT INTO %s SELECT %s, -x FROM UNNEST(sequence(1, 20)) t(x)".formatted(table, keyValues), 20);
        assertUpdate("DELETE FROM %s WHERE v BETWEEN 21 AND 30".formatted(table), 10);
        tables.tier(table);
        assertThat(lakeDeleteFiles(table)).isPositive();
        String all = "SELECT * FROM " + table;
        assertQuery("SELECT count(*), count_if(v < 0), sum(v) FROM " + table, "VALUES (90, 20, 4375)");
        assertSameOnBothPaths(all);
        assertSameCountersOnBothPaths(all);
        assertThat(fastPathSplits(all)).isEqualTo(2);

        assertUpdate("DELETE FROM %s WHERE v IN (-1, 50)".formatted(table), 2);
        assertQuery("SELECT count(*), sum(v) FROM " + table, "VALUES (88, 4326)");
        assertSameOnBothPaths(all);
        assertSameCountersOnBothPaths(all);
        assertReadByTrinoParquetReader(all);
    }

    @Test
    void positionDeletesWrittenByAnotherEngineAreApplied() {
        assertUpdate("CREATE TABLE pos (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO pos SELECT x, 'lake' FROM UNNEST(sequence(1, 100)) t(x)", 100);
        tables.tier("pos");
        Table lake = tables.load("pos").lake();
        DataFile dataFile = onlyDataFile(lake);
        List<Long> ids = idsInFileOrder(lake, dataFile);
        // rows 0, 1 and 50 of the data file, as an engine's merge-on-read DELETE writes them, and a row of
        // another file that must not apply
        LakeDeleteFiles.writePositionDeletes(lake, dataFile, List.of(0L, 1L, 50L));
        List<Long> deleted = List.of(ids.get(0), ids.get(1), ids.get(50));
        String deletedIds = deleted.stream().map(String::valueOf).collect(Collectors.joining(", "));

        assertQuery("SELECT count(*) FROM pos", "VALUES 97");
        assertQuery("SELECT count(*) FROM pos WHERE id IN (" + deletedIds + ")", "VALUES 0");
        assertQuery("SELECT count(*) FROM \"pos$lake\"", "VALUES 97");
        assertQuery("SELECT count(*) FROM (SELECT id FROM pos LIMIT 1000)", "VALUES 97");
        List<String> queries = List.of(
                "SELECT * FROM pos",
                "SELECT id FROM pos WHERE id > 10",
                "SELECT * FROM \"pos$lake\"",
                "SELECT count(*), max(v) FROM pos");
        for (String sql : queries) {
            assertSameOnBothPaths(sql);
            assertSameCountersOnBothPaths(sql);
            assertThat(fastPathSplits(sql)).as(sql).isEqualTo(1);
        }

        // a log tail: a deleted row's key comes back with a newer version, another row is deleted
        assertUpdate("INSERT INTO pos VALUES (%d, 'back')".formatted(deleted.getFirst()), 1);
        assertUpdate("DELETE FROM pos WHERE id = %d".formatted(ids.get(10)), 1);
        assertQuery("SELECT count(*), count_if(v = 'back') FROM pos", "VALUES (97, 1)");
        assertQuery("SELECT v FROM pos WHERE id IN (" + deletedIds + ")", "VALUES 'back'");
        for (String sql : queries) {
            assertSameOnBothPaths(sql);
        }
        // without a filter: with one, this path counts only the hidden rows that pass it
        assertSameCountersOnBothPaths("SELECT * FROM pos");
        assertSameCountersOnBothPaths("SELECT count(*), max(v) FROM pos");
        // count(*), max(v) does not read the key: its keys come from the key cache, rows found by position
        assertReadByTrinoParquetReader("SELECT count(*), max(v) FROM pos");
        assertThat(count(scanMetrics(getSession(), "SELECT * FROM pos"), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(1);
    }

    private long lakeDeleteFiles(String table) {
        return Long.parseLong(
                tables.load(table).lake().currentSnapshot().summary().getOrDefault("total-delete-files", "0"));
    }

    private static DataFile onlyDataFile(Table lake) {
        List<DataFile> files = LakeDeleteFiles.dataFiles(lake);
        assertThat(files).hasSize(1);
        return files.getFirst();
    }

    /** The primary keys of a data file's rows, in file order, read by Iceberg's own reader. */
    private static List<Long> idsInFileOrder(Table lake, DataFile file) {
        return LakeDeleteFiles.valuesInFileOrder(lake, file, "id").stream()
                .map(Long.class::cast)
                .toList();
    }
}
