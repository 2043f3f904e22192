package io.lakestream.trino;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.trino.spi.metrics.Metrics;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The merge on Trino's pages ({@link LakestreamReadPath#LAKE_PARQUET_MERGE}): a primary-key bucket
 * with a log tail over lake files without deletes. Every query is checked against expected rows and
 * against the union split reader, and the connector metrics prove which path ran and that both paths
 * count the same merge.
 */
final class TestLakestreamParquetMerge extends AbstractReadPathTest {
    private static final List<String> MERGE_COUNTERS = List.of(
            LakestreamMetrics.LAKE_ROWS,
            LakestreamMetrics.LOG_ROWS,
            LakestreamMetrics.LAKE_ROWS_HIDDEN,
            LakestreamMetrics.LOG_ROWS_SUPERSEDED);

    @Test
    void updatesDeletesAndNewKeysInTheTail() {
        assertUpdate("CREATE TABLE tailed (id bigint, v varchar, n integer) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate(
                "INSERT INTO tailed SELECT x, 'lake', CAST(x % 10 AS integer) FROM UNNEST(sequence(1, 200)) t(x)", 200);
        tierAndCompact("tailed");

        assertUpdate("INSERT INTO tailed SELECT x, 'upd', 100 FROM UNNEST(sequence(1, 20)) t(x)", 20);
        assertUpdate("DELETE FROM tailed WHERE id BETWEEN 21 AND 30", 10);
        assertUpdate("INSERT INTO tailed SELECT x, 'new', 7 FROM UNNEST(sequence(201, 210)) t(x)", 10);
        // several changes of one key: only the last counts
        assertUpdate("INSERT INTO tailed VALUES (5, 'upd2', 5)", 1);
        assertUpdate("DELETE FROM tailed WHERE id = 201", 1);
        assertUpdate("INSERT INTO tailed VALUES (201, 'back', 1)", 1);
        assertUpdate("DELETE FROM tailed WHERE id = 40", 1);

        String all = "SELECT * FROM tailed";
        Metrics metrics = scanMetrics(getSession(), all);
        assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(4);
        assertThat(count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)).isZero();
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS)).isEqualTo(200);
        // ids 1..20 updated, 21..30 and 40 deleted
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS_HIDDEN)).isEqualTo(31);
        assertThat(count(metrics, LakestreamMetrics.LOG_ROWS)).isEqualTo(44);
        assertSameCountersOnBothPaths(all);

        assertQuery(
                "SELECT count(*), count_if(v = 'lake'), count_if(v = 'upd'), count_if(v = 'upd2'), "
                        + "count_if(v = 'new'), count_if(v = 'back') FROM tailed",
                "VALUES (199, 169, 19, 1, 9, 1)");
        assertQuery(
                "SELECT v, n FROM tailed WHERE id IN (5, 6, 25, 40, 41, 201)",
                "VALUES ('upd2', 5), ('upd', 100), ('lake', 1), ('back', 1)");
        assertSameOnBothPaths(all);
        assertSameOnBothPaths("SELECT count(*) FROM tailed");
        assertSameOnBothPaths("SELECT n FROM tailed");
        // a new version that fails the filter still hides the old one
        assertQueryReturnsEmptyResult("SELECT id FROM tailed WHERE v = 'lake' AND id <= 30");
        assertQuery("SELECT count(*) FROM tailed WHERE n = 5", "VALUES 18");
        for (String filter :
                List.of("v = 'lake' AND id <= 30", "n = 5", "id BETWEEN 18 AND 45", "v <> 'lake'", "n IS NULL")) {
            assertSameOnBothPaths("SELECT id, v FROM tailed WHERE " + filter);
        }
        // hidden columns: $bucket is constant per split, $offset is null for lake rows
        assertSameOnBothPaths("SELECT id, \"$bucket\", \"$offset\" FROM tailed");
        assertQuery("SELECT count(*) FROM tailed WHERE \"$offset\" IS NOT NULL", "VALUES 30");
        assertQuery("SELECT count(*) FROM tailed WHERE \"$offset\" IS NULL AND v = 'lake'", "VALUES 169");

        // a limit: a few valid rows
        MaterializedResult full = computeActual(all);
        MaterializedResult limited = computeActual(all + " LIMIT 5");
        assertThat(limited.getRowCount()).isEqualTo(5);
        assertThat(full.getMaterializedRows()).containsAll(limited.getMaterializedRows());

        // a DELETE reads its row ids through the merge
        assertThat(count(
                        scanMetrics(getSession(), "SELECT id FROM tailed WHERE v = 'upd'"),
                        LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(4);
        assertUpdate("DELETE FROM tailed WHERE v = 'upd'", 19);
        assertQuery("SELECT count(*), count_if(v = 'upd') FROM tailed", "VALUES (180, 0)");
        assertSameOnBothPaths(all);
    }

    @Test
    void integerAndDateKeys() {
        assertUpdate("CREATE TABLE by_int (k integer, v varchar) WITH (primary_key = ARRAY['k'], bucket_count = 2)");
        assertUpdate("INSERT INTO by_int SELECT CAST(x AS integer), 'lake' FROM UNNEST(sequence(-50, 50)) t(x)", 101);
        tierAndCompact("by_int");
        assertUpdate("INSERT INTO by_int VALUES (-50, 'log'), (0, 'log'), (1000, 'log')", 3);
        assertUpdate("DELETE FROM by_int WHERE k = 50", 1);
        assertQuery("SELECT count(*), count_if(v = 'log'), min(k), max(k) FROM by_int", "VALUES (101, 3, -50, 1000)");
        assertMergedOnPages("SELECT * FROM by_int", 2);
        assertSameOnBothPaths("SELECT * FROM by_int");
        assertSameCountersOnBothPaths("SELECT * FROM by_int");

        assertUpdate("CREATE TABLE by_day (d date, v bigint) WITH (primary_key = ARRAY['d'], bucket_count = 2)");
        assertUpdate(
                "INSERT INTO by_day SELECT DATE '1969-12-01' + x * INTERVAL '1' DAY, x FROM UNNEST(sequence(0, 99)) t(x)",
                100);
        tierAndCompact("by_day");
        assertUpdate("INSERT INTO by_day VALUES (DATE '1969-12-01', -1), (DATE '1970-01-01', -2)", 2);
        assertUpdate("DELETE FROM by_day WHERE d = DATE '1969-12-31'", 1);
        assertQuery(
                "SELECT count(*), sum(v), min(v) FROM by_day",
                "VALUES (99, " + (IntStream.range(0, 100).sum() - 30 - 31 - 0 - 1 - 2) + ", -2)");
        assertMergedOnPages("SELECT * FROM by_day", 2);
        assertSameOnBothPaths("SELECT * FROM by_day");
    }

    @Test
    void otherKeysAndLakeDeletesUseTheUnionSplitReader() {
        assertUpdate(
                "CREATE TABLE by_name (name varchar, v bigint) WITH (primary_key = ARRAY['name'], bucket_count = 2)");
        assertUpdate("INSERT INTO by_name VALUES ('a', 1), ('b', 2), ('c', 3)", 3);
        tierAndCompact("by_name");
        assertUpdate("INSERT INTO by_name VALUES ('a', 10)", 1);
        assertQuery("SELECT name, v FROM by_name", "VALUES ('a', 10), ('b', 2), ('c', 3)");
        assertThat(count(scanMetrics(getSession(), "SELECT * FROM by_name"), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isZero();

        assertUpdate(
                "CREATE TABLE pair (a bigint, b bigint, v bigint) WITH (primary_key = ARRAY['a', 'b'], bucket_count = 2)");
        assertUpdate("INSERT INTO pair VALUES (1, 1, 1), (1, 2, 2)", 2);
        tierAndCompact("pair");
        assertUpdate("INSERT INTO pair VALUES (1, 2, 20)", 1);
        assertQuery("SELECT a, b, v FROM pair", "VALUES (1, 1, 1), (1, 2, 20)");
        assertThat(count(scanMetrics(getSession(), "SELECT * FROM pair"), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isZero();

        // tiered updates leave equality delete files: the union split reader applies them
        assertUpdate("CREATE TABLE deleted (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO deleted VALUES (1, 1), (2, 2)", 2);
        tables.tier("deleted");
        assertUpdate("INSERT INTO deleted VALUES (1, 10)", 1);
        tables.tier("deleted");
        assertUpdate("INSERT INTO deleted VALUES (2, 20)", 1);
        assertQuery("SELECT id, v FROM deleted", "VALUES (1, 10), (2, 20)");
        assertThat(count(scanMetrics(getSession(), "SELECT * FROM deleted"), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isZero();
    }

    /**
     * Random upserts and deletes through SQL, tiering (with and without compaction) at random points:
     * after every round the union read equals an in-memory oracle, and both read paths agree on random
     * filters and projections.
     */
    @Test
    void randomizedAgainstAnOracle() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        assertUpdate(
                "CREATE TABLE random_merge (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        Map<Long, Long> oracle = new TreeMap<>();
        for (int round = 0; round < 20; round++) {
            List<Long> keys = distinctKeys(random, 1 + random.nextInt(30));
            if (random.nextInt(4) == 0 && !oracle.isEmpty()) {
                String in = keys.stream().map(String::valueOf).collect(joining(", "));
                long present = keys.stream().filter(oracle::containsKey).count();
                assertUpdate("DELETE FROM random_merge WHERE id IN (" + in + ")", present);
                keys.forEach(oracle::remove);
            } else {
                List<String> rows = new ArrayList<>();
                for (long key : keys) {
                    long value = random.nextInt(1000);
                    oracle.put(key, value);
                    rows.add("(" + key + ", " + value + ")");
                }
                assertUpdate("INSERT INTO random_merge VALUES " + String.join(", ", rows), rows.size());
            }
            switch (random.nextInt(5)) {
                case 0 -> tables.tier("random_merge");
                case 1 -> tierAndCompact("random_merge");
                default -> {}
            }
            String context = "seed " + seed + ", round " + round;
            List<MaterializedRow> actual =
                    computeActual("SELECT id, v FROM random_merge").getMaterializedRows();
            assertThat(actual.stream().map(row -> Map.entry((Long) row.getField(0), (Long) row.getField(1))))
                    .as(context)
                    .containsExactlyInAnyOrderElementsOf(oracle.entrySet());
            long low = random.nextInt(200);
            String filter = switch (random.nextInt(3)) {
                case 0 -> "id BETWEEN " + low + " AND " + (low + random.nextInt(100));
                case 1 -> "v < " + random.nextInt(1000);
                default -> "v % 2 = 0 AND id > " + low;
            };
            assertSameOnBothPaths(
                    "SELECT " + (random.nextBoolean() ? "id" : "v, id") + " FROM random_merge WHERE " + filter);
        }
        // compacted lake files and a tail in exactly one bucket: that bucket is merged on the pages
        tierAndCompact("random_merge");
        assertUpdate("INSERT INTO random_merge VALUES (1000000, 1)", 1);
        oracle.put(1000000L, 1L);
        Metrics metrics = scanMetrics(getSession(), "SELECT * FROM random_merge");
        assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(1);
        assertThat(count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)).isEqualTo(2);
        assertQuery(
                "SELECT count(*), sum(v) FROM random_merge",
                "VALUES (%s, %s)"
                        .formatted(
                                oracle.size(),
                                oracle.values().stream()
                                        .mapToLong(Long::longValue)
                                        .sum()));
    }

    private static List<Long> distinctKeys(Random random, int count) {
        return random.longs(count * 2L, 0, 300).distinct().limit(count).boxed().toList();
    }

    /** Every split goes through Trino's Parquet reader, at least one with a log tail merged on its pages. */
    private void assertMergedOnPages(String sql, int splits) {
        Metrics metrics = scanMetrics(getSession(), sql);
        assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isPositive();
        assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)
                        + count(metrics, LakestreamMetrics.FAST_PATH_SPLITS))
                .isEqualTo(splits);
    }

    /** Both read paths count the same merge: lake rows read and hidden, log rows read and superseded. */
    private void assertSameCountersOnBothPaths(String sql) {
        Metrics merged = scanMetrics(getSession(), sql);
        Metrics reference = scanMetrics(unionSplitReader(), sql);
        for (String counter : MERGE_COUNTERS) {
            assertThat(count(merged, counter)).as(counter).isEqualTo(count(reference, counter));
        }
    }
}
