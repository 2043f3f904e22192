package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.tiering.TableTiering;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiPredicate;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code LIMIT} through Spark ({@link LakestreamScanBuilder#pushLimit}) on tables with rows in the lake and in the log
 * tail (updates and deletes, so primary-key splits take the merge): every returned row is one the oracle of the
 * written rows says is live (no deleted or superseded version passes a limit), as many as asked, and the work is
 * counted: a limit that the first splits surely hold plans only those ({@link io.lakestream.merge.SplitsForLimit}), and
 * a limit met in a split's lake rows never reads its tail. The limit sits under a sort, so Spark runs every partition
 * of the scan (a plain collect would stop after the first partition, limit or not).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkLimits {
    private static final String NS = "lim";

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final TableTiering compacting = SparkTables.tiering(threads, 1, 2);

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @AfterAll
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void primaryKeyTableWithATail() {
        String table = "ls.lim.pk";
        testing.sql("CREATE TABLE %s (id BIGINT, v STRING) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')"
                .formatted(table));
        Map<Long, String> oracle = new HashMap<>();
        insert(table, oracle, 1, 400, "lake");
        // one file per bucket, no delete files: every lake row of a split is sure to be read
        SparkTables.tierAll(compacting, SparkTables.load(NS, "pk"));
        testing.sql("UPDATE %s SET v = 'upd' WHERE id %% 10 = 0".formatted(table));
        oracle.replaceAll((id, v) -> id % 10 == 0 ? "upd" : v);
        testing.sql("DELETE FROM %s WHERE id %% 10 = 5".formatted(table));
        oracle.keySet().removeIf(id -> id % 10 == 5);
        insert(table, oracle, 401, 440, "new");

        // 4 buckets of about 100 lake rows and 40 changes each: the first split alone surely holds 7 rows
        Dataset<Row> limited = sortedLimit(table, "true", 7);
        assertLive(limited, oracle, 7);
        assertThat(SparkTables.metric(limited, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .as("splits read")
                .isEqualTo(1);
        // the limit was met in the lake rows: the tail's winners were never read from the log
        assertThat(SparkTables.metric(limited, LakestreamMetrics.TAILS_OPENED))
                .as("tails opened")
                .isZero();
        assertThat(SparkTables.metric(limited, LakestreamMetrics.LOG_ROWS)).isZero();
        // without the limit, every split reads its tail after its lake rows (no sort: Spark would scan twice)
        Dataset<Row> all = testing.sql("SELECT id, v FROM %s".formatted(table));
        assertLive(all, oracle, oracle.size());
        assertThat(SparkTables.metric(all, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(4);
        assertThat(SparkTables.metric(all, LakestreamMetrics.TAILS_OPENED))
                .as("tails opened without a limit")
                .isEqualTo(4);
        assertThat(SparkTables.metric(all, LakestreamMetrics.LOG_ROWS)).isPositive();

        assertAllRowsForLargeLimits(table, oracle);
        // filters: every split is read (a filtered split may return nothing), and the tail hides what it changed
        assertFilteredLimit(table, oracle, "v = 'upd'", (id, v) -> v.equals("upd"), 5);
        assertFilteredLimit(table, oracle, "v = 'lake'", (id, v) -> v.equals("lake"), 1000);
        assertFilteredLimit(table, oracle, "id > 390", (id, v) -> id > 390, 1000);
        assertThat(testing.sql("SELECT * FROM %s LIMIT 0".formatted(table)).collectAsList())
                .isEmpty();
    }

    @Test
    void appendOnlyTableWithATail() {
        String table = "ls.lim.ao";
        testing.sql("CREATE TABLE %s (id BIGINT, v STRING) TBLPROPERTIES ('bucket.num'='4')".formatted(table));
        Map<Long, String> oracle = new HashMap<>();
        insert(table, oracle, 1, 100, "lake");
        insert(table, oracle, 101, 200, "lake");
        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "ao"));
        insert(table, oracle, 201, 300, "log");

        Dataset<Row> limited = sortedLimit(table, "true", 3);
        assertLive(limited, oracle, 3);
        // the first lake file alone holds 3 rows: no other file and no log range is read
        assertThat(SparkTables.metric(limited, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .as("splits read")
                .isEqualTo(1);
        assertThat(SparkTables.metric(limited, LakestreamMetrics.LOG_ROWS)).isZero();

        assertAllRowsForLargeLimits(table, oracle);
        assertFilteredLimit(table, oracle, "v = 'log'", (id, v) -> v.equals("log"), 10);
        assertFilteredLimit(table, oracle, "id > 150", (id, v) -> id > 150, 1000);
        assertThat(testing.sql("SELECT * FROM %s LIMIT 0".formatted(table)).collectAsList())
                .isEmpty();
    }

    /** A limit at, just above and far above the row count returns every live row once. */
    private void assertAllRowsForLargeLimits(String table, Map<Long, String> oracle) {
        for (long limit : List.of((long) oracle.size(), oracle.size() + 1L, 1_000_000L)) {
            assertLive(sortedLimit(table, "true", limit), oracle, oracle.size());
        }
    }

    private void assertFilteredLimit(
            String table, Map<Long, String> oracle, String filter, BiPredicate<Long, String> matches, long limit) {
        Map<Long, String> matching = new HashMap<>();
        oracle.forEach((id, v) -> {
            if (matches.test(id, v)) {
                matching.put(id, v);
            }
        });
        Dataset<Row> read = sortedLimit(table, filter, limit);
        assertLive(read, matching, Math.min(limit, matching.size()));
        assertThat(SparkTables.filtersAboveScan(read))
                .as("the filter %s is pushed, so the limit is too", filter)
                .isZero();
    }

    /** The first {@code limit} rows of the scan that pass {@code filter}, sorted (so every partition is read). */
    private Dataset<Row> sortedLimit(String table, String filter, long limit) {
        return testing.sql("SELECT id, v FROM (SELECT id, v FROM %s WHERE %s LIMIT %s) ORDER BY id"
                .formatted(table, filter, limit));
    }

    /** The frame's rows are {@code expected} rows, distinct and live in the oracle, with the oracle's value. */
    private static void assertLive(Dataset<Row> frame, Map<Long, String> oracle, long expected) {
        List<Row> rows = frame.collectAsList();
        assertThat(rows).hasSize((int) expected);
        Set<Long> seen = new HashSet<>();
        for (Row row : rows) {
            long id = row.getLong(0);
            assertThat(seen.add(id)).as("id %s returned twice", id).isTrue();
            assertThat(oracle).as("id %s", id).containsEntry(id, row.getString(1));
        }
    }

    private void insert(String table, Map<Long, String> oracle, long from, long to, String value) {
        testing.sql("INSERT INTO %s SELECT id, '%s' FROM range(%s, %s)".formatted(table, value, from, to + 1));
        for (long id = from; id <= to; id++) {
            oracle.put(id, value);
        }
    }
}
