package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.plan.LakeFile;
import io.lakestream.plan.UnionSplit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Predicates on fields of struct columns ({@code WHERE r.a = 5}, which Spark pushes as a reference to {@code r.a})
 * prune lake data files (planning by the field's column metrics) and Parquet row groups; Spark still applies them
 * to every row. Union, lake and changes reads of append-only and primary-key tables equal the rows the test wrote
 * filtered by Spark itself (a {@code VALUES} list of them under the same {@code WHERE}), with nulls at every level and
 * a primary-key tail that replaces and deletes lake rows; the lake files planned and the column chunks read are
 * counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkNestedFilter {
    private static final String NS = "nested_filter";
    private static final String R = "STRUCT<a: BIGINT, b: STRING, c: STRUCT<d: INT, e: STRING>>";
    private static final List<String> FILTERS = List.of(
            "r.a = 15",
            "r.a BETWEEN 20 AND 45",
            "r.a IS NULL",
            "r.c.e >= 'e6'",
            "r.c.d IN (1, 3)",
            "r.b = 'b2' OR r.b IS NULL",
            "r.a = 17 AND id = 17");

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /** Row {@code id}'s {@code r}, with nulls at every level for some ids; {@code a} is {@code id + shift}. */
    private static String r(long id, long shift) {
        return switch ((int) (id % 10)) {
            case 1 -> "CAST(NULL AS " + R + ")";
            case 2 -> "CAST(named_struct('a', NULL, 'b', 'b2', 'c', named_struct('d', NULL, 'e', NULL)) AS " + R + ")";
            case 3 -> "CAST(named_struct('a', %s, 'b', NULL, 'c', NULL) AS %s)".formatted(id + shift, R);
            default ->
                "CAST(named_struct('a', %s, 'b', 'b%s', 'c', named_struct('d', %s, 'e', 'e%s')) AS %s)"
                        .formatted(id + shift, id % 5, id % 7, id, R);
        };
    }

    /** The table's rows, the lake's, and the log's changes as the test wrote them: the oracle. */
    private static final class Written {
        final Map<Long, String> table = new LinkedHashMap<>();
        final Map<Long, String> lake = new LinkedHashMap<>();
        /** {@code id, r} of each log change; a delete carries the key alone. */
        final List<String> changes = new ArrayList<>();

        void tiered() {
            lake.clear();
            lake.putAll(table);
        }
    }

    @Test
    void appendOnlyRowsEqualTheEngineFilter() {
        String table = "ls.%s.appended".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT NOT NULL, r %s) TBLPROPERTIES ('bucket.num'='2', 'bucket.key'='id')"
                .formatted(table, R));
        Written written = new Written();
        insert(table, written, 1, 30, 0);
        tier("appended", written);
        insert(table, written, 31, 50, 0);
        tier("appended", written);
        insert(table, written, 51, 70, 0);
        assertViewsEqualTheOracle("appended", written);
    }

    @Test
    void primaryKeyRowsEqualTheEngineFilter() {
        String table = "ls.%s.keyed".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, r %s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')"
                .formatted(table, R));
        Written written = new Written();
        insert(table, written, 1, 30, 0);
        tier("keyed", written);
        insert(table, written, 31, 50, 0);
        tier("keyed", written);
        // the tail: new rows, new versions of lake rows that leave (15) or enter (44 -> a = 15) a filter's range,
        // and deletes of lake rows that match one (17, 45)
        insert(table, written, 51, 70, 0);
        insert(table, written, 15, 15, 1000);
        insert(table, written, 44, 44, -29);
        testing.sql("DELETE FROM %s WHERE id IN (17, 45)".formatted(table));
        for (long id : List.of(17L, 45L)) {
            written.table.remove(id);
            written.changes.add("(%sL, CAST(NULL AS %s))".formatted(id, R));
        }
        assertViewsEqualTheOracle("keyed", written);
    }

    /**
     * Two lake files ({@code r.a = id}: 1..1000 and 1001..2000) of small row groups: a predicate on {@code r.a}
     * plans the one file whose metrics can match and reads only row groups whose statistics can; a primary-key
     * tail's new versions and deletes are applied.
     */
    @Test
    void lakeFilesAndRowGroupsPrunedByAField() {
        for (boolean primaryKey : List.of(false, true)) {
            String name = primaryKey ? "counted_pk" : "counted_append";
            String table = "ls.%s.%s".formatted(NS, name);
            testing.sql(
                    "CREATE TABLE %s (id BIGINT NOT NULL, r STRUCT<a: BIGINT, b: STRING>) TBLPROPERTIES (%s, 'bucket.num'='1')"
                            .formatted(table, primaryKey ? "'primary-key'='id'" : "'bucket.key'='id'"));
            // a row group per 100 rows: the writer checks the size every 100 rows, and any size is past one byte
            SparkTables.load(NS, name)
                    .lake()
                    .updateProperties()
                    .set("write.parquet.row-group-size-bytes", "1")
                    .commit();
            for (int from : List.of(1, 1001)) {
                testing.sql("INSERT INTO %s SELECT id, named_struct('a', id, 'b', 'b') FROM range(%s, %s)"
                        .formatted(table, from, from + 1000));
                testing.tiering().tier(SparkTables.load(NS, name));
            }
            List<Long> expected =
                    new ArrayList<>(List.of(150L, 151L, 152L, 153L, 154L, 155L, 156L, 157L, 158L, 159L, 160L));
            if (primaryKey) {
                // key 150 leaves the range, key 1500 (of the other file) enters it, key 152 is deleted
                testing.sql("INSERT INTO %s VALUES (150L, named_struct('a', 5000L, 'b', 'x')),".formatted(table)
                        + " (1500L, named_struct('a', 155L, 'b', 'x'))");
                testing.sql("DELETE FROM %s WHERE id = 152".formatted(table));
                expected.removeAll(List.of(150L, 152L));
                expected.add(1500L);
            }
            Dataset<Row> frame = testing.sql("SELECT id FROM %s WHERE r.a BETWEEN 150 AND 160".formatted(table));
            assertThat(rows(frame).stream().map(row -> (Long) row.getFirst()).toList())
                    .as(name)
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(lakeFilesPlanned(frame)).as(name).isEqualTo(1);
            // Spark's Parquet reader (merged with the tail on the primary-key table) reads every lake split (the
            // append-only table's file is planned as a split per row group) and skips the row groups (about 100 rows
            // each) of the planned file that cannot hold 150..160: at most 2 of its 10 are read
            long lakeSplits = ((LakestreamScan) SparkTables.scan(frame).scan())
                    .splitsToRead().stream()
                            .filter(split -> !split.lakeFiles().isEmpty())
                            .count();
            assertThat(SparkTables.metric(
                            frame,
                            primaryKey
                                    ? LakestreamMetrics.PARQUET_MERGE_SPLITS
                                    : LakestreamMetrics.LAKE_PARQUET_SPLITS))
                    .as(name)
                    .isEqualTo(lakeSplits);
            assertThat(SparkTables.metric(frame, LakestreamMetrics.PARQUET_ROW_GROUPS_SKIPPED))
                    .as(name)
                    .isBetween(8L, 9L);

            // a predicate Spark cannot push (a function of the field), the same rows: nothing pruned
            Dataset<Row> whole = testing.sql("SELECT id FROM %s WHERE abs(r.a) BETWEEN 150 AND 160".formatted(table));
            assertThat(rows(whole)).as(name).hasSameSizeAs(expected);
            assertThat(lakeFilesPlanned(whole)).as(name).isEqualTo(2);
            assertThat(SparkTables.metric(whole, LakestreamMetrics.PARQUET_ROW_GROUPS_SKIPPED))
                    .as(name)
                    .isZero();
        }
    }

    /** Lake data files the scan's splits hold (each file once). */
    private static long lakeFilesPlanned(Dataset<Row> frame) {
        return ((LakestreamScan) SparkTables.scan(frame).scan())
                .splitsToRead().stream()
                        .map(UnionSplit::lakeFiles)
                        .flatMap(List::stream)
                        .map(LakeFile::path)
                        .distinct()
                        .count();
    }

    private void insert(String table, Written written, long from, long to, long shift) {
        List<String> rows = new ArrayList<>();
        for (long id = from; id <= to; id++) {
            written.table.put(id, r(id, shift));
            String row = "(%sL, %s)".formatted(id, r(id, shift));
            written.changes.add(row);
            rows.add(row);
        }
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, String.join(", ", rows)));
    }

    private void tier(String name, Written written) {
        testing.tiering().tier(SparkTables.load(NS, name));
        written.tiered();
    }

    /** Every filter on every view returns the rows written that Spark's own filter keeps (one query per filter). */
    private void assertViewsEqualTheOracle(String name, Written written) {
        Map<String, List<String>> views = Map.of(
                "ls.%s.%s".formatted(NS, name), valuesOf(written.table),
                "ls.%s.`%s$lake`".formatted(NS, name), valuesOf(written.lake),
                "ls.%s.`%s$changes`".formatted(NS, name), written.changes);
        for (String filter : FILTERS) {
            List<String> actual = new ArrayList<>();
            List<String> oracle = new ArrayList<>();
            views.forEach((view, rows) -> {
                String columns = "SELECT '%s' AS view, id, r.a, r.b, r.c.d, r.c.e FROM ".formatted(view);
                actual.add(columns + view + " WHERE " + filter);
                oracle.add(columns + "VALUES " + String.join(", ", rows) + " AS v(id, r) WHERE " + filter);
            });
            assertThat(rows(testing.sql(String.join(" UNION ALL ", actual))))
                    .as(name + " WHERE " + filter)
                    .containsExactlyInAnyOrderElementsOf(rows(testing.sql(String.join(" UNION ALL ", oracle))));
        }
    }

    private static List<String> valuesOf(Map<Long, String> rows) {
        return rows.entrySet().stream()
                .map(row -> "(%sL, %s)".formatted(row.getKey(), row.getValue()))
                .toList();
    }
}
