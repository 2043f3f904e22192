package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedRow;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Table statistics through {@code SHOW STATS}: the row count is the lake's plus the log tail's, column
 * statistics come from the lake's file metrics, and value ranges are given only when no log tail
 * can hold values outside them.
 */
final class TestLakestreamStatistics extends AbstractLakestreamSqlTest {
    /** Estimates from a given lake: the first read after a tiering round must read the new lake. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void primaryKeyTable() {
        assertUpdate("CREATE TABLE pk_stats (id bigint, name varchar, score integer, price double) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertThat(rowCount("pk_stats")).isEqualTo(0.0);

        assertUpdate(
                "INSERT INTO pk_stats SELECT x, 'name-' || CAST(x AS varchar), "
                        + "CASE WHEN x <= 2 THEN NULL ELSE CAST(x * 10 AS integer) END, x * 1.5 "
                        + "FROM UNNEST(sequence(1, 10)) t(x)",
                10);
        // before tiering only the log tail's size is known
        assertThat(rowCount("pk_stats")).isEqualTo(10.0);
        assertThat(stats("pk_stats", "score").getField(NULLS_FRACTION)).isNull();
        assertThat(stats("pk_stats", "id").getField(DISTINCT_VALUES)).isEqualTo(10.0);

        tables.tier("pk_stats");
        assertThat(rowCount("pk_stats")).isEqualTo(10.0);
        assertThat(stats("pk_stats", "score").getField(NULLS_FRACTION)).isEqualTo(0.2);
        assertThat(stats("pk_stats", "id").getField(NULLS_FRACTION)).isEqualTo(0.0);
        assertRange("pk_stats", "id", "1", "10");
        assertRange("pk_stats", "score", "30", "100");
        assertRange("pk_stats", "price", "1.5", "15.0");
        assertThat((Double) stats("pk_stats", "name").getField(DATA_SIZE)).isPositive();
        assertRange("pk_stats", "name", null, null);

        assertUpdate("INSERT INTO pk_stats SELECT x, 'new', x, 1.0 FROM UNNEST(sequence(11, 15)) t(x)", 5);
        assertThat(rowCount("pk_stats")).isEqualTo(15.0);
        assertThat(rowCount("\"pk_stats$lake\"")).isEqualTo(10.0);
        // the log tail may hold values outside the lake's range: no range for the union read
        assertRange("pk_stats", "id", null, null);
        assertRange("\"pk_stats$lake\"", "id", "1", "10");
        // the lake's null fraction stands for the whole table
        assertThat(stats("pk_stats", "score").getField(NULLS_FRACTION)).isEqualTo(0.2);
        assertThat(stats("pk_stats", "id").getField(DISTINCT_VALUES)).isEqualTo(15.0);
        // the optimizer sees the estimate
        assertThat((String) computeScalar("EXPLAIN SELECT * FROM pk_stats")).contains("rows: 15 ");

        tables.tier("pk_stats");
        assertThat(rowCount("pk_stats")).isEqualTo(15.0);
        assertRange("pk_stats", "id", "1", "15");

        // the changelog's size is the log's: every change it holds
        assertUpdate("INSERT INTO pk_stats VALUES (1, 'again', 1, 1.0)", 1);
        assertThat(rowCount("\"pk_stats$changes\"")).isEqualTo(16.0);
        // a new version of a tiered key counts as a row until tiering and compaction fold it in: an estimate
        assertThat(rowCount("pk_stats")).isEqualTo(16.0);
        assertThat(computeScalar("SELECT count(*) FROM pk_stats")).isEqualTo(15L);

        // a filter on the bucket counts that bucket's lake files and log tail only
        long bucketZero = (Long) computeScalar("SELECT count(*) FROM pk_stats WHERE \"$bucket\" = 0");
        long bucketOne = (Long) computeScalar("SELECT count(*) FROM pk_stats WHERE \"$bucket\" = 1");
        double bucketZeroEstimate = rowCount("(SELECT * FROM pk_stats WHERE \"$bucket\" = 0)");
        double bucketOneEstimate = rowCount("(SELECT * FROM pk_stats WHERE \"$bucket\" = 1)");
        assertThat(bucketZeroEstimate + bucketOneEstimate).isEqualTo(16.0);
        assertThat(bucketZeroEstimate).isBetween((double) bucketZero, bucketZero + 1.0);
        assertThat(bucketOneEstimate).isBetween((double) bucketOne, bucketOne + 1.0);
    }

    @Test
    void appendOnlyTable() {
        assertUpdate("CREATE TABLE ao_stats (id bigint, kind varchar) WITH (bucket_count = 3)");
        assertUpdate("INSERT INTO ao_stats VALUES (1, 'a'), (2, NULL), (3, 'c')", 3);
        assertUpdate("INSERT INTO ao_stats VALUES (4, 'd'), (4, 'd')", 2);
        assertThat(rowCount("ao_stats")).isEqualTo(5.0);

        tables.tier("ao_stats");
        assertUpdate("INSERT INTO ao_stats SELECT x, 'e' FROM UNNEST(sequence(5, 8)) t(x)", 4);
        // an append-only table's estimate is exact: every change is a row
        assertThat(rowCount("ao_stats")).isEqualTo(9.0);
        assertThat(rowCount("\"ao_stats$lake\"")).isEqualTo(5.0);
        assertThat(stats("\"ao_stats$lake\"", "kind").getField(NULLS_FRACTION)).isEqualTo(0.2);
        assertRange("\"ao_stats$lake\"", "id", "1", "4");

        // time travel: the statistics of the pinned versions
        assertThat(rowCount("(SELECT * FROM ao_stats FOR VERSION AS OF 1)")).isEqualTo(3.0);
        assertThat(rowCount("(SELECT * FROM ao_stats FOR VERSION AS OF 2)")).isEqualTo(5.0);
        // a filter that matches nothing
        assertThat(rowCount("(SELECT * FROM ao_stats WHERE id = 1 AND id = 2)")).isEqualTo(0.0);
    }

    private static final int DATA_SIZE = 1;
    private static final int DISTINCT_VALUES = 2;
    private static final int NULLS_FRACTION = 3;
    private static final int ROW_COUNT = 4;
    private static final int LOW_VALUE = 5;
    private static final int HIGH_VALUE = 6;

    private double rowCount(String relation) {
        return (Double) stats(relation, null).getField(ROW_COUNT);
    }

    private void assertRange(String relation, String column, String low, String high) {
        MaterializedRow row = stats(relation, column);
        assertThat(row.getField(LOW_VALUE)).isEqualTo(low);
        assertThat(row.getField(HIGH_VALUE)).isEqualTo(high);
    }

    /** The {@code SHOW STATS} row of a column, or with {@code null} the summary row (the row count). */
    private MaterializedRow stats(String relation, String column) {
        return computeActual("SHOW STATS FOR " + relation).getMaterializedRows().stream()
                .filter(row -> column == null ? row.getField(0) == null : column.equals(row.getField(0)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no statistics row for " + column));
    }
}
