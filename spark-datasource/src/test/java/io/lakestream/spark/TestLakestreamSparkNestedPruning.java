package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Spark's nested schema pruning ({@code spark.sql.optimizer.nestedSchemaPruning.enabled}) reaches the union read:
 * a query of {@code r.a} reads {@code r} narrowed to {@code a} (the scan's read schema) from the lake's Parquet
 * column of {@code r.a} alone (counted) and from the log's Arrow child of it. Union, lake and changes reads of
 * append-only and primary-key tables return exactly the rows the test wrote, over lake rows and the log tail, with
 * nulls at every level and a struct column added after rows were written, and equal the reads with pruning off.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkNestedPruning {
    private static final String NS = "pruning";
    private static final String R = "STRUCT<a: BIGINT, b: STRING, c: STRUCT<d: DOUBLE, e: STRING>>";
    private static final String PRUNING = "spark.sql.optimizer.nestedSchemaPruning.enabled";

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /** Row {@code id}'s {@code r}: ids 1 to 4 each have a null at another level; later ids have none. */
    private static String r(int id) {
        return switch (id) {
            case 1 -> "named_struct('a', 1L, 'b', 'b1', 'c', named_struct('d', 1.5D, 'e', 'e1'))";
            case 2 -> "CAST(NULL AS " + R + ")";
            case 3 ->
                "named_struct('a', CAST(NULL AS BIGINT), 'b', 'b3', 'c', CAST(NULL AS STRUCT<d: DOUBLE, e: STRING>))";
            case 4 ->
                "named_struct('a', 4L, 'b', CAST(NULL AS STRING), 'c', named_struct('d', CAST(NULL AS DOUBLE), 'e', 'e4'))";
            default ->
                "named_struct('a', %sL, 'b', 'b%s', 'c', named_struct('d', %s.5D, 'e', 'e%s'))"
                        .formatted(id, id, id, id);
        };
    }

    private static String values(int... ids) {
        return String.join(
                ", ",
                Arrays.stream(ids)
                        .mapToObj(id -> "(%sL, %s)".formatted(id, r(id)))
                        .toList());
    }

    /** {@code id, r.a, r.c.e, r.c.d} of row {@code id}, from what the test wrote. */
    private static List<Object> fields(int id) {
        return switch (id) {
            case 1 -> Arrays.asList(1L, 1L, "e1", 1.5);
            case 2, 3 -> Arrays.asList((long) id, null, null, null);
            case 4 -> Arrays.asList(4L, 4L, "e4", null);
            default -> Arrays.asList((long) id, (long) id, "e" + id, id + 0.5);
        };
    }

    private static List<List<Object>> fieldsOf(int... ids) {
        return Arrays.stream(ids)
                .mapToObj(TestLakestreamSparkNestedPruning::fields)
                .toList();
    }

    @Test
    void primaryKeyUnionLakeAndChanges() {
        String table = "ls.%s.pk".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, r %s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')"
                .formatted(table, R));
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, values(1, 2, 3, 4, 7)));
        testing.tiering().tier(SparkTables.load(NS, "pk"));
        // the tail: key 1 gets row 5's values, 6 is new, 7 is deleted
        testing.sql("INSERT INTO %s VALUES (1L, %s), %s".formatted(table, r(5), values(6)));
        testing.sql("DELETE FROM %s WHERE id = 7".formatted(table));

        String select = "SELECT id, r.a, r.c.e, r.c.d FROM ";
        assertRows(
                select + table, List.of(Arrays.asList(1L, 5L, "e5", 5.5), fields(2), fields(3), fields(4), fields(6)));
        assertRows(select + "ls.%s.`pk$lake`".formatted(NS), fieldsOf(1, 2, 3, 4, 7));
        assertRows(
                "SELECT id, r.c.e FROM ls.%s.`pk$changes` WHERE id IN (1, 7)".formatted(NS),
                List.of(
                        Arrays.asList(1L, "e1"),
                        Arrays.asList(7L, "e7"),
                        Arrays.asList(1L, "e5"),
                        Arrays.asList(7L, null)));
        // key 1's lake version matches, its newer tail version does not
        assertRows("SELECT id, r.b FROM %s WHERE r.a = 1".formatted(table), List.of());

        // the scan reads r narrowed to a; the lake split (no tail) is read by Spark's Parquet reader, asked for r.a
        // alone
        Dataset<Row> narrowed = testing.sql("SELECT id, r.a FROM ls.%s.`pk$lake`".formatted(NS));
        narrowed.collectAsList();
        StructType readSchema = SparkTables.scan(narrowed).scan().readSchema();
        assertThat(readSchema.apply("r").dataType().simpleString()).isEqualTo("struct<a:bigint>");
        assertThat(SparkTables.metric(narrowed, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .isEqualTo(1);

        // a tail of 3 changes with a merge index of 2 takes the union split reader (2 passes over the lake file): it
        // reads the lake's Parquet column chunks of id and r.a, not r's four leaves
        String unionRead = "SELECT id, r.a FROM %s WITH ('merge.max-index-rows' = '2')".formatted(table);
        Dataset<Row> unionNarrowed = testing.sql(unionRead);
        unionNarrowed.collectAsList();
        assertThat(SparkTables.metric(unionNarrowed, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isZero();
        assertThat(SparkTables.metric(unionNarrowed, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                .isEqualTo(2 * 2);
        Dataset<Row> whole = withoutPruning(() -> {
            Dataset<Row> frame = testing.sql(unionRead);
            frame.collectAsList();
            return frame;
        });
        assertThat(SparkTables.metric(whole, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                .isEqualTo(2 * 5);
        assertThat(SparkTables.metric(unionNarrowed, LakestreamMetrics.LAKE_COLUMN_BYTES))
                .isLessThan(SparkTables.metric(whole, LakestreamMetrics.LAKE_COLUMN_BYTES));
    }

    /**
     * Struct fields matched by Iceberg field id on Spark's Parquet paths: after lake files were written, {@code s.b}
     * is renamed to {@code x} and a new {@code s.b} is added. The old files' child named {@code b} is read as {@code
     * x}; the new {@code b} reads as nulls there, also when it is the only field a query reads (Spark then tells a
     * null struct from a struct of nulls by another field of the file). Lake rows without a tail ({@code
     * LAKE_PARQUET}) and merged with one ({@code LAKE_PARQUET_MERGE}) equal the rows written.
     */
    @Test
    void structFieldRenamedAndAddedAfterLakeFilesWereWritten() {
        String table = "ls.%s.evolved".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, s STRUCT<a: INT, b: STRING>) TBLPROPERTIES ('primary-key'='id',"
                        .formatted(table)
                + " 'bucket.num'='1')");
        testing.sql("INSERT INTO %s VALUES (1L, named_struct('a', 1, 'b', 'b1')), (2L, NULL),".formatted(table)
                + " (3L, named_struct('a', CAST(NULL AS INT), 'b', 'b3'))");
        testing.tiering().tier(SparkTables.load(NS, "evolved"));
        testing.sql("ALTER TABLE %s RENAME COLUMN s.b TO x".formatted(table));
        testing.sql("ALTER TABLE %s ADD COLUMN s.b STRING".formatted(table));
        testing.sql("INSERT INTO %s VALUES (4L, named_struct('a', 4, 'x', 'x4', 'b', 'b4'))".formatted(table));
        testing.tiering().tier(SparkTables.load(NS, "evolved"));

        List<List<Object>> all = List.of(
                Arrays.asList(1L, false, 1, "b1", null),
                Arrays.asList(2L, true, null, null, null),
                Arrays.asList(3L, false, null, "b3", null),
                Arrays.asList(4L, false, 4, "x4", "b4"));
        String fields = "SELECT id, s IS NULL, s.a, s.x, s.b FROM " + table;
        assertRowsOnPath(fields, all, LakestreamMetrics.LAKE_PARQUET_SPLITS);
        assertRowsOnPath(
                "SELECT id, s IS NULL, s.b FROM " + table,
                all.stream()
                        .map(row -> Arrays.asList(row.get(0), row.get(1), row.get(4)))
                        .toList(),
                LakestreamMetrics.LAKE_PARQUET_SPLITS);

        // the tail: a new version of 3, a delete of 2, a new key 5
        testing.sql("INSERT INTO %s VALUES (3L, named_struct('a', 33, 'x', CAST(NULL AS STRING), 'b', 'b33')),"
                        .formatted(table)
                + " (5L, named_struct('a', 5, 'x', 'x5', 'b', CAST(NULL AS STRING)))");
        testing.sql("DELETE FROM %s WHERE id = 2".formatted(table));
        assertRowsOnPath(
                fields,
                List.of(
                        all.get(0),
                        Arrays.asList(3L, false, 33, null, "b33"),
                        all.get(3),
                        Arrays.asList(5L, false, 5, "x5", null)),
                LakestreamMetrics.PARQUET_MERGE_SPLITS);
    }

    /** {@link #assertRows}, and the table's one split was read on the path counted by {@code pathMetric}. */
    private void assertRowsOnPath(String sql, List<List<Object>> expected, String pathMetric) {
        assertRows(sql, expected);
        Dataset<Row> frame = testing.sql(sql);
        frame.collectAsList();
        assertThat(SparkTables.metric(frame, pathMetric)).as(sql).isEqualTo(1);
    }

    @Test
    void appendOnlyWithAStructColumnAddedLater() {
        String table = "ls.%s.appended".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, r %s) TBLPROPERTIES ('bucket.num'='2')".formatted(table, R));
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, values(1, 2, 3, 4)));
        testing.tiering().tier(SparkTables.load(NS, "appended"));
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, values(5)));
        testing.sql("ALTER TABLE %s ADD COLUMN s STRUCT<x: INT, y: STRING>".formatted(table));
        testing.sql("INSERT INTO %s VALUES (6L, %s, named_struct('x', 6, 'y', 'y6'))".formatted(table, r(6)));

        assertRows("SELECT id, r.a, r.c.e, r.c.d FROM " + table, fieldsOf(1, 2, 3, 4, 5, 6));
        assertRows("SELECT id, r.a, r.c.e, r.c.d FROM ls.%s.`appended$lake`".formatted(NS), fieldsOf(1, 2, 3, 4));
        assertRows(
                "SELECT id, s.y FROM " + table + " WHERE id >= 4",
                List.of(Arrays.asList(4L, null), Arrays.asList(5L, null), Arrays.asList(6L, "y6")));
        testing.tiering().tier(SparkTables.load(NS, "appended"));
        assertRows(
                "SELECT id, s.y, r.c.e FROM ls.%s.`appended$lake` WHERE id >= 5".formatted(NS),
                List.of(Arrays.asList(5L, null, "e5"), Arrays.asList(6L, "y6", "e6")));
    }

    /** The query returns exactly {@code expected} (any order), with nested schema pruning and without it. */
    private void assertRows(String sql, List<List<Object>> expected) {
        assertThat(rows(testing.sql(sql))).as(sql).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(withoutPruning(() -> rows(testing.sql(sql))))
                .as("%s without nested schema pruning", sql)
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private <T> T withoutPruning(Supplier<T> action) {
        testing.spark().conf().set(PRUNING, "false");
        try {
            return action.get();
        } finally {
            testing.spark().conf().unset(PRUNING);
        }
    }
}
