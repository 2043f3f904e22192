package io.lakestream.trino;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The merge on Trino's pages ({@link io.lakestream.merge.LakeReadPath#LAKE_PARQUET_MERGE}): a primary-key bucket
 * with a log tail. Lake files with delete files: {@link TestLakestreamLakeDeletes}. Every query is checked against expected rows and
 * against the union split reader, and the connector metrics prove which path ran and that both paths
 * count the same merge.
 */
@ExtendWith(Seeds.class)
final class TestLakestreamParquetMerge extends AbstractReadPathTest {
    /**
     * One server: what is tested is the merge inside a split's page source, not how splits are spread over
     * nodes ({@link TestLakestreamMultiNode}); a second server doubled the start-up time of the class on a loaded
     * machine.
     */
    @Override
    protected LakestreamQueryRunner.Builder customize(LakestreamQueryRunner.Builder builder) {
        return builder.setWorkerCount(0);
    }

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
        Scan merged = assertSameRowsAndCountersOnBothPaths(all);
        assertThat(merged.count(LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(4);
        assertThat(merged.count(LakestreamMetrics.FAST_PATH_SPLITS)).isZero();
        assertThat(merged.count(LakestreamMetrics.LAKE_ROWS)).isEqualTo(200);
        // ids 1..20 updated, 21..30 and 40 deleted
        assertThat(merged.count(LakestreamMetrics.LAKE_ROWS_HIDDEN)).isEqualTo(31);
        assertThat(merged.count(LakestreamMetrics.LOG_ROWS)).isEqualTo(44);

        assertQuery(
                "SELECT count(*), count_if(v = 'lake'), count_if(v = 'upd'), count_if(v = 'upd2'), "
                        + "count_if(v = 'new'), count_if(v = 'back') FROM tailed",
                "VALUES (199, 169, 19, 1, 9, 1)");
        assertQuery(
                "SELECT v, n FROM tailed WHERE id IN (5, 6, 25, 40, 41, 201)",
                "VALUES ('upd2', 5), ('upd', 100), ('lake', 1), ('back', 1)");
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
        MaterializedResult limited = computeActual(all + " LIMIT 5");
        assertThat(limited.getRowCount()).isEqualTo(5);
        assertThat(merged.rows()).containsAll(limited.getMaterializedRows());

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
        assertMergedOnPages(assertSameRowsAndCountersOnBothPaths("SELECT * FROM by_int"), 2);

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
        assertMergedOnPages(assertSameRowsAndCountersOnBothPaths("SELECT * FROM by_day"), 2);
    }

    /**
     * Keys of every key type and of two columns: the lake rows read by Trino's Parquet reader are found
     * in the tail's index only if Trino's values encode to the same key bytes as the log's, which the
     * hidden-row counter and the comparison with the union split reader prove.
     */
    @Test
    void everyKeyTypeMergesOnPages() {
        Map<String, String> keys = new java.util.LinkedHashMap<>();
        keys.put("varchar", "'k' || CAST(x AS varchar)");
        keys.put("varbinary", "to_utf8('k' || CAST(x AS varchar))");
        keys.put("decimal(10, 2)", "CAST(x AS decimal(10, 2)) / 4");
        // beyond 64 bits for |x| >= 10
        keys.put(
                "decimal(30, 5)",
                "CAST(CAST(x AS decimal(30, 5)) * DECIMAL '1000000000000000000.5' AS decimal(30, 5))");
        keys.put("timestamp(6)", "TIMESTAMP '2024-01-01 00:00:00.000001' + x * INTERVAL '1' HOUR");
        keys.put("timestamp(6) with time zone", "TIMESTAMP '2024-01-01 00:00:00.000001 UTC' + x * INTERVAL '1' HOUR");
        keys.put("time(6)", "TIME '12:00:00.000001' + x * INTERVAL '1' MINUTE");
        keys.put("uuid", "CAST('12151fd2-7586-11e9-8f9e-' || lpad(CAST(x + 100 AS varchar), 12, '0') AS uuid)");
        int number = 0;
        for (Map.Entry<String, String> key : keys.entrySet()) {
            String table = "key_" + number++;
            assertUpdate("CREATE TABLE %s (k %s, v bigint) WITH (primary_key = ARRAY['k'], bucket_count = 2)"
                    .formatted(table, key.getKey()));
            assertKeyedTableMerges(table, key.getValue() + ", x");
        }
        assertUpdate("CREATE TABLE key_pair (a bigint, b varchar, v bigint) "
                + "WITH (primary_key = ARRAY['a', 'b'], bucket_count = 2)");
        assertKeyedTableMerges("key_pair", "x % 3, 'b' || CAST(x AS varchar), x");
    }

    /**
     * Writes 41 rows (x from -20 to 20, {@code v = x}), compacts them into the lake, then in the tail
     * updates 11 of them and adds 5 (one commit), and deletes 6; checks the union read on both paths.
     *
     * @param columns the columns of a row made from {@code x}, the last one {@code v}
     */
    private void assertKeyedTableMerges(String table, String columns) {
        assertUpdate("INSERT INTO %s SELECT %s FROM UNNEST(sequence(-20, 20)) t(x)".formatted(table, columns), 41);
        tierAndCompact(table);
        assertUpdate(
                "INSERT INTO %s SELECT %s + IF(x < 0, 1000, 0) FROM UNNEST(sequence(-20, -10) || sequence(21, 25)) t(x)"
                        .formatted(table, columns),
                16);
        assertUpdate("DELETE FROM %s WHERE v BETWEEN 15 AND 20".formatted(table), 6);

        Scan merged = assertSameRowsAndCountersOnBothPaths("SELECT * FROM " + table);
        assertMergedOnPages(merged, 2);
        assertThat(merged.count(LakestreamMetrics.LAKE_ROWS_HIDDEN)).as(table).isEqualTo(17);
        List<Long> values = new ArrayList<>();
        IntStream.rangeClosed(-20, 25)
                .filter(x -> x < 15 || x > 20)
                .forEach(x -> values.add(x + (x <= -10 ? 1000L : 0L)));
        assertThat(merged.rows().stream().map(row -> (Long) row.getField(row.getFieldCount() - 1)))
                .as(table)
                .containsExactlyInAnyOrderElementsOf(values);
    }

    /**
     * Random upserts and deletes through SQL, tiering (with and without compaction) at random points:
     * after every round the union read equals an in-memory oracle, and both read paths agree on random
     * filters and projections.
     */
    @Test
    void randomizedAgainstAnOracle() {
        long seed = Seeds.seed(20261202);
        Random random = new Random(seed);
        assertUpdate(
                "CREATE TABLE random_merge (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        Map<Long, Long> oracle = new TreeMap<>();
        for (int round = 0; round < 20; round++) {
            changeKeysAtRandom(random, "random_merge", distinctKeys(random, 1 + random.nextInt(30)), oracle);
            switch (random.nextInt(5)) {
                case 0 -> tables.tier("random_merge");
                case 1 -> tierAndCompact("random_merge");
                default -> {}
            }
            String context = "seed " + seed + ", round " + round;
            String all = "SELECT id, v FROM random_merge";
            Scan table = scan(getSession(), all);
            assertEqualsOracle(table, oracle, context);
            // tiered without compaction, the lake has equality delete files: they are applied on the pages too
            if (!oracle.isEmpty()) {
                assertReadByTrinoParquetReader(all, table);
            }
            long low = random.nextInt(200);
            String filter;
            BiPredicate<Long, Long> matches;
            switch (random.nextInt(3)) {
                case 0 -> {
                    long high = low + random.nextInt(100);
                    filter = "id BETWEEN " + low + " AND " + high;
                    matches = (id, v) -> id >= low && id <= high;
                }
                case 1 -> {
                    long bound = random.nextInt(1000);
                    filter = "v < " + bound;
                    matches = (id, v) -> v < bound;
                }
                default -> {
                    filter = "v % 2 = 0 AND id > " + low;
                    matches = (id, v) -> v % 2 == 0 && id > low;
                }
            }
            boolean withValues = !random.nextBoolean();
            String sql = "SELECT " + (withValues ? "v, id" : "id") + " FROM random_merge WHERE " + filter;
            // the filtered rows equal the oracle's (not only the other read path's)
            assertThat(assertSameOnBothPaths(sql).rows().stream().map(MaterializedRow::getFields))
                    .as(context + ": " + sql)
                    .containsExactlyInAnyOrderElementsOf(oracle.entrySet().stream()
                            .filter(row -> matches.test(row.getKey(), row.getValue()))
                            .map(row -> withValues
                                    ? List.<Object>of(row.getValue(), row.getKey())
                                    : List.<Object>of(row.getKey()))
                            .toList());
        }
        // compacted lake files and a tail in exactly one bucket: that bucket is merged on the pages
        tierAndCompact("random_merge");
        assertUpdate("INSERT INTO random_merge VALUES (1000000, 1)", 1);
        oracle.put(1000000L, 1L);
        Scan last = scan(getSession(), "SELECT id, v FROM random_merge");
        assertThat(last.count(LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(1);
        assertThat(last.count(LakestreamMetrics.FAST_PATH_SPLITS)).isEqualTo(2);
        assertEqualsOracle(last, oracle, "seed " + seed);
    }

    /**
     * A lake written out of key order (tiered as inserted) takes the hash probe; once compaction has
     * sorted it by key, the merge walks it in key order ({@link LakestreamMetrics#LAKE_ROWS_IN_KEY_ORDER}).
     * Random updates, deletes and new keys in the tail; every read equals an oracle and the union split
     * reader, with and without filters.
     */
    @Test
    void keyOrderedLakeAndUnorderedLakeAgainstAnOracle() {
        long seed = Seeds.seed(20261203);
        Random random = new Random(seed);
        assertUpdate("CREATE TABLE key_order (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        Map<Long, Long> oracle = new TreeMap<>();
        List<Long> shuffled =
                new ArrayList<>(IntStream.range(0, 1500).mapToObj(Long::valueOf).toList());
        Collections.shuffle(shuffled, random);
        shuffled.forEach(key -> oracle.put(key, key));
        assertUpdate(
                "INSERT INTO key_order VALUES "
                        + shuffled.stream()
                                .map(key -> "(" + key + ", " + key + ")")
                                .collect(joining(", ")),
                shuffled.size());
        // tiered as inserted: no delete files, keys out of order
        tables.tier("key_order");
        String context = "seed " + seed;
        Scan unordered = changeTailAtRandom(random, oracle, context);
        assertThat(unordered.count(LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(2);
        assertThat(unordered.count(LakestreamMetrics.LAKE_ROWS_IN_KEY_ORDER)).isZero();

        // compaction sorts each bucket by key
        tierAndCompact("key_order");
        for (int round = 0; round < 3; round++) {
            Scan ordered = changeTailAtRandom(random, oracle, context + ", round " + round);
            assertThat(ordered.count(LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(2);
            // Trino's reader starts each file with pages of 1, 2, 4 and 8 rows, too few to check their order
            assertThat(ordered.count(LakestreamMetrics.LAKE_ROWS_IN_KEY_ORDER))
                    .as(context)
                    .isEqualTo(ordered.count(LakestreamMetrics.LAKE_ROWS) - 2 * 15);
        }
    }

    /**
     * Upserts, deletes and new keys in the tail; then the union read equals the oracle, and the union split
     * reader's rows and counters, with and without filters. Returns the unfiltered scan of Trino's Parquet
     * reader.
     */
    private Scan changeTailAtRandom(Random random, Map<Long, Long> oracle, String context) {
        List<String> rows = new ArrayList<>();
        for (long key : random.longs(150, 0, 1650).distinct().boxed().toList()) {
            long value = -random.nextInt(1000);
            oracle.put(key, value);
            rows.add("(" + key + ", " + value + ")");
        }
        assertUpdate("INSERT INTO key_order VALUES " + String.join(", ", rows), rows.size());
        List<Long> deleted = random.longs(50, 0, 1650).distinct().boxed().toList();
        assertUpdate(
                "DELETE FROM key_order WHERE id IN ("
                        + deleted.stream().map(String::valueOf).collect(joining(", ")) + ")",
                deleted.stream().filter(oracle::containsKey).count());
        deleted.forEach(oracle::remove);

        Scan all = assertSameRowsAndCountersOnBothPaths("SELECT id, v FROM key_order");
        assertEqualsOracle(all, oracle, context);
        long low = random.nextInt(1500);
        for (String filter : List.of("v < 0", "id BETWEEN " + low + " AND " + (low + 250), "v % 3 = 0")) {
            assertSameOnBothPaths("SELECT id, v FROM key_order WHERE " + filter);
        }
        return all;
    }

    /** The rows {@code (id, v)} of a scan are exactly the oracle's. */
    private static void assertEqualsOracle(Scan scan, Map<Long, Long> oracle, String context) {
        assertThat(scan.rows().stream().map(row -> Map.entry((Long) row.getField(0), (Long) row.getField(1))))
                .as(context)
                .containsExactlyInAnyOrderElementsOf(oracle.entrySet());
    }

    private static List<Long> distinctKeys(Random random, int count) {
        return random.longs(count * 2L, 0, 300).distinct().limit(count).boxed().toList();
    }

    /** Every split went through Trino's Parquet reader, at least one with a log tail merged on its pages. */
    private static void assertMergedOnPages(Scan scan, int splits) {
        assertThat(scan.count(LakestreamMetrics.PARQUET_MERGE_SPLITS)).isPositive();
        assertThat(scan.count(LakestreamMetrics.PARQUET_MERGE_SPLITS) + scan.count(LakestreamMetrics.FAST_PATH_SPLITS))
                .isEqualTo(splits);
    }
}
