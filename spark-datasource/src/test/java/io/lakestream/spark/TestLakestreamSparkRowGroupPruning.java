package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import io.lakestream.tiering.TableTiering;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Row groups skipped by the pushed filter on Spark's Parquet paths ({@link LakeRowGroupPruner}): a
 * primary-key table whose lake files hold many small row groups (keys and the other columns ascending
 * together, so statistics can prune), read with random filters (ranges, equalities, IN lists, null
 * checks, OR) on key and non-key columns of several types, without a log tail and with one (updates,
 * deletes, new keys), compared with an oracle; a selective filter must have skipped row groups, one
 * that every row passes none.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkRowGroupPruning {
    private static final String NS = "rg";
    private static final String TABLE = "ls.rg.t";
    private static final String COLUMNS =
            "k BIGINT, i INT, s STRING, d DATE, dec DECIMAL(10, 2), b BOOLEAN, nul INT, tag STRING";
    private static final int ROWS = 600;
    private static final LocalDate EPOCH = LocalDate.of(2020, 1, 1);

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    private final TableTiering tiering = SparkTables.tiering(threads, 1, 2);
    /** row number -> SQL literal of its current row */
    private final Map<Integer, String> oracle = new TreeMap<>();

    @BeforeAll
    void createTable() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        // a row group every 10 rows: the size is checked every 10 rows and always exceeded
        testing.sql(("CREATE TABLE %s (%s) TBLPROPERTIES ('primary-key'='k', 'bucket.num'='2', "
                        + "'write.parquet.row-group-size-bytes'='1', "
                        + "'write.parquet.row-group-check-min-record-count'='10', "
                        + "'write.parquet.row-group-check-max-record-count'='10')")
                .formatted(TABLE, COLUMNS));
        upsert(0, ROWS, 0);
        SparkTables.tierAll(tiering, SparkTables.load(NS, "t"));
    }

    @AfterAll
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void filtersSkipRowGroupsWithoutAndWithATail() {
        // the files' statistics pass (so the plan keeps them), no row group's do: no row has both
        Dataset<Row> nothing = testing.sql("SELECT * FROM %s WHERE k < 1000 AND i > 1000".formatted(TABLE));
        assertThat(SparkTesting.rows(nothing)).isEmpty();
        // (nearly) every one of the many row groups skipped
        long rowGroups = SparkTables.metric(nothing, LakestreamMetrics.PARQUET_ROW_GROUPS_SKIPPED);
        assertThat(rowGroups).isGreaterThanOrEqualTo(40);
        assertThat(SparkTables.metric(nothing, LakestreamMetrics.LAKE_ROWS)).isZero();
        // every row group holds tags 'a' and 'c': statistics cannot rule out 'b', the dictionaries can
        Dataset<Row> notInDictionary = testing.sql("SELECT k FROM %s WHERE tag = 'b'".formatted(TABLE));
        assertThat(SparkTesting.rows(notInDictionary)).isEmpty();
        assertThat(SparkTables.metric(notInDictionary, LakestreamMetrics.PARQUET_ROW_GROUPS_SKIPPED))
                .isEqualTo(rowGroups);

        Random random = Seeds.random(7_2026);
        assertRandomFilters(random, LakestreamMetrics.LAKE_PARQUET_SPLITS);
        assertUnselectiveFiltersSkipNothing(LakestreamMetrics.LAKE_PARQUET_SPLITS);

        // the tail: updates whose i, s and nul differ from the lake's, deletes, new keys
        upsert(100, 130, 1);
        upsert(400, 405, 1);
        delete(200, 220);
        delete(590, 600);
        upsert(ROWS, ROWS + 20, 1);
        assertRandomFilters(random, LakestreamMetrics.PARQUET_MERGE_SPLITS);
        assertUnselectiveFiltersSkipNothing(LakestreamMetrics.PARQUET_MERGE_SPLITS);
    }

    private void assertRandomFilters(Random random, String pathMetric) {
        for (int round = 0; round < 25; round++) {
            String filter = random.nextInt(5) == 0
                    ? "(%s) OR (%s)".formatted(randomFilter(random), randomFilter(random))
                    : randomFilter(random);
            String projection = random.nextBoolean() ? "*" : "k, s";
            Dataset<Row> actual = testing.sql("SELECT %s FROM %s WHERE %s".formatted(projection, TABLE, filter));
            List<String> expected = SparkOracle.expected(testing, oracle, COLUMNS, projection, filter);
            assertThat(SparkOracle.normalized(actual)).as(filter).isEqualTo(expected);
            // the path was taken (an equality on the key reads one bucket only)
            assertThat(SparkTables.metric(actual, pathMetric)).as(filter).isPositive();
            long lakeRows = SparkTables.metric(actual, LakestreamMetrics.LAKE_ROWS);
            if (expected.size() * 4 <= oracle.size()) {
                // rows are clustered by every column: a quarter of them leaves whole row groups out,
                // unless the plan left out the files already (their statistics)
                assertThat(lakeRows).as(filter).isLessThan(ROWS);
                if (lakeRows > 0) {
                    assertThat(SparkTables.metric(actual, LakestreamMetrics.PARQUET_ROW_GROUPS_SKIPPED))
                            .as(filter)
                            .isPositive();
                }
            }
        }
    }

    private void assertUnselectiveFiltersSkipNothing(String pathMetric) {
        for (String filter : List.of("k >= 0", "i > -1000 AND s >= 's'", "nul IS NULL OR d >= DATE'2020-01-01'")) {
            Dataset<Row> actual = testing.sql("SELECT * FROM %s WHERE %s".formatted(TABLE, filter));
            assertThat(SparkOracle.normalized(actual))
                    .as(filter)
                    .isEqualTo(SparkOracle.expected(testing, oracle, COLUMNS, "*", filter));
            assertThat(SparkTables.metric(actual, pathMetric)).as(filter).isEqualTo(2);
            assertThat(SparkTables.metric(actual, LakestreamMetrics.PARQUET_ROW_GROUPS_SKIPPED))
                    .as(filter)
                    .isZero();
        }
    }

    private static String randomFilter(Random random) {
        String column = List.of("k", "i", "s", "d", "dec", "b", "nul").get(random.nextInt(7));
        int row = random.nextInt(ROWS + 20);
        int shape = switch (column) {
            case "b" -> random.nextInt(2);
            case "nul" -> random.nextInt(5);
            default -> random.nextInt(3) + 2;
        };
        return switch (shape) {
            case 0 -> column.equals("b") ? "b" : "nul IS NULL";
            case 1 -> column.equals("b") ? "NOT b" : "nul IS NOT NULL";
            case 2 ->
                "%1$s >= %2$s AND %1$s < %3$s"
                        .formatted(column, literal(column, row), literal(column, row + 1 + random.nextInt(ROWS / 4)));
            case 3 -> "%s = %s".formatted(column, literal(column, row));
            default ->
                "%s IN (%s, %s, %s)"
                        .formatted(
                                column,
                                literal(column, row),
                                literal(column, random.nextInt(ROWS)),
                                literal(column, random.nextInt(ROWS)));
        };
    }

    /** The SQL literal of a column's value in row number {@code row} (version 0). */
    private static String literal(String column, int row) {
        return switch (column) {
            case "k" -> Long.toString(row * 10L);
            case "i", "nul" -> Integer.toString(row * 3 - 500);
            case "s" -> "'s%05d'".formatted(row);
            case "d" -> "DATE'%s'".formatted(EPOCH.plusDays(row));
            case "dec" -> "%s.%02d".formatted(row / 4, row % 4 * 25);
            default -> throw new IllegalArgumentException(column);
        };
    }

    /**
     * Row number {@code row} at a version: every column ascends with the row number, except tag, which
     * alternates between 'a' and 'c' (a dictionary-encoded column); nul is NULL in every other run of
     * 60 rows; a newer version moves i and s and nulls nul.
     */
    private static String row(int row, int version) {
        String nul = version > 0 || row / 60 % 2 == 1 ? "NULL" : Integer.toString(row * 3 - 500);
        return "(%s, %s, %s, %s, %s, %s, %s, '%s')"
                .formatted(
                        literal("k", row),
                        row * 3 - 500 + version * 7,
                        version > 0 ? "'s%05d-u'".formatted(row) : literal("s", row),
                        literal("d", row),
                        literal("dec", row),
                        row / 100 % 2 == 0,
                        nul,
                        row % 2 == 0 ? "a" : "c");
    }

    private void upsert(int from, int to, int version) {
        List<String> rows = new ArrayList<>();
        for (int row = from; row < to; row++) {
            rows.add(row(row, version));
            oracle.put(row, row(row, version));
        }
        testing.sql("INSERT INTO %s VALUES %s".formatted(TABLE, String.join(", ", rows)));
    }

    private void delete(int from, int to) {
        testing.sql("DELETE FROM %s WHERE k >= %s AND k < %s".formatted(TABLE, from * 10L, to * 10L));
        for (int row = from; row < to; row++) {
            oracle.remove(row);
        }
    }
}
