package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.LakeDeleteFiles;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Array, map and struct columns through Spark: {@code CREATE TABLE}, {@code INSERT} (the typed row path),
 * {@code UPDATE} and {@code DELETE} of a primary-key table that keep the nested values, the union read of the
 * log and of the lake after tiering, and the changes mode; nulls at every level. The oracle is Spark's own
 * result of the source query, compared as JSON (maps cannot be compared by Spark's set operations).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkNestedTypes {
    private static final String NS = "nested";
    /** Nesting in nesting: a struct of a struct holding an array of structs, and a map of structs. */
    private static final String DEEP =
            "STRUCT<inner: STRUCT<v: INT, w: ARRAY<STRUCT<z: STRING>>>, m: MAP<STRING, STRUCT<q: INT>>>";

    private static final String COLUMNS = "id BIGINT NOT NULL, tags ARRAY<STRING>, attrs MAP<STRING, INT>,"
            + " point STRUCT<x: DOUBLE, label: STRING>, items ARRAY<STRUCT<name: STRING, qty: INT>>,"
            + " groups MAP<STRING, ARRAY<BIGINT>>, deep " + DEEP + ", score INT";
    /** Each row has nulls at another level: a null array, map or struct, a null element, value or field, empties. */
    private static final String SOURCE = "SELECT * FROM VALUES"
            + " (1L, array('a', 'b'), map('k1', 1, 'k2', 2), named_struct('x', 1.5D, 'label', 'p'),"
            + "  array(named_struct('name', 'x', 'qty', 1), NULL), map('g', array(1L, NULL)),"
            + "  named_struct('inner', named_struct('v', 1, 'w', array(named_struct('z', 'z1'), NULL)),"
            + "   'm', map('a', named_struct('q', 1), 'b', NULL)), 0),"
            + " (2L, NULL, map(), named_struct('x', CAST(NULL AS DOUBLE), 'label', 'q'), NULL, NULL,"
            + "  CAST(NULL AS " + DEEP + "), 0),"
            + " (3L, array(), NULL, named_struct('x', 2.5D, 'label', CAST(NULL AS STRING)),"
            + "  array(named_struct('name', CAST(NULL AS STRING), 'qty', 3)), map('e', array()),"
            + "  named_struct('inner', CAST(NULL AS STRUCT<v: INT, w: ARRAY<STRUCT<z: STRING>>>),"
            + "   'm', CAST(map() AS MAP<STRING, STRUCT<q: INT>>)), 0),"
            + " (4L, array('c', NULL, 'd'), map('k', CAST(NULL AS INT)), NULL, array(), map('n', NULL),"
            + "  named_struct('inner', named_struct('v', CAST(NULL AS INT),"
            + "   'w', array(named_struct('z', CAST(NULL AS STRING)))), 'm', CAST(NULL AS MAP<STRING, STRUCT<q: INT>>)), 0)"
            + " AS t(id, tags, attrs, point, items, groups, deep, score)";

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        testing.spark().sql(SOURCE).createOrReplaceTempView("nested_source");
    }

    @Test
    void primaryKeyTableBeforeAndAfterTiering() {
        testing.sql("CREATE TABLE ls.%s.pk (%s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')"
                .formatted(NS, COLUMNS));
        testing.sql("INSERT INTO ls.%s.pk SELECT * FROM nested_source".formatted(NS));
        assertSameRows("ls.%s.pk".formatted(NS), "SELECT * FROM nested_source");

        testing.sql("UPDATE ls.%s.pk SET score = 7 WHERE id IN (1, 4)".formatted(NS));
        testing.sql("DELETE FROM ls.%s.pk WHERE id = 2".formatted(NS));
        String expected = "SELECT id, tags, attrs, point, items, groups, deep, IF(id IN (1, 4), 7, score) AS score"
                + " FROM nested_source WHERE id <> 2";
        assertSameRows("ls.%s.pk".formatted(NS), expected);

        testing.tiering().tier(SparkTables.load(NS, "pk"));
        assertSameRows("ls.%s.pk".formatted(NS), expected);
        testing.sql("UPDATE ls.%s.pk SET score = 9 WHERE id = 3".formatted(NS));
        assertSameRows(
                "ls.%s.pk".formatted(NS),
                "SELECT id, tags, attrs, point, items, groups, deep, CASE id WHEN 3 THEN 9 WHEN 1 THEN 7 WHEN 4 THEN 7"
                        + " ELSE score END AS score FROM nested_source WHERE id <> 2");
        assertThat(rows(testing.sql(
                        "SELECT id, point.label, tags[0], attrs['k1'] FROM ls.%s.pk WHERE id = 1".formatted(NS))))
                .containsExactly(List.of(1L, "p", "a", 1));
    }

    @Test
    void appendOnlyTableAndChanges() {
        testing.sql("CREATE TABLE ls.%s.appended (%s) TBLPROPERTIES ('bucket.num'='2')".formatted(NS, COLUMNS));
        testing.sql("INSERT INTO ls.%s.appended SELECT * FROM nested_source".formatted(NS));
        assertSameRows("ls.%s.appended".formatted(NS), "SELECT * FROM nested_source");
        assertSameRows(
                "(SELECT id, tags, attrs, point, items, groups, deep, score FROM ls.%s.`appended$changes`)"
                        .formatted(NS),
                "SELECT * FROM nested_source");
        testing.tiering().tier(SparkTables.load(NS, "appended"));
        testing.sql("INSERT INTO ls.%s.appended SELECT * FROM nested_source WHERE id = 1".formatted(NS));
        assertSameRows(
                "ls.%s.appended".formatted(NS),
                "SELECT * FROM nested_source UNION ALL SELECT * FROM nested_source WHERE id = 1");
    }

    @Test
    void nestedKeyIsRefused() {
        assertThatThrownBy(() -> testing.sql(
                        "CREATE TABLE ls.%s.bad (id ARRAY<BIGINT> NOT NULL, v INT) TBLPROPERTIES ('primary-key'='id')"
                                .formatted(NS)))
                .hasMessageContaining("primary key column 'id' has type list<long>, which cannot be a key");
    }

    /**
     * Lake rows of every nested column read by Spark's own Parquet reader: a split without a tail as Spark reads it
     * ({@code LAKE_PARQUET}), with the equality deletes of a second tiering pass, then merged with a tail of updates,
     * deletes and inserts ({@code LAKE_PARQUET_MERGE}: the kept rows selected over struct, array and map vectors),
     * and a query that reads nested fields only (nested schema pruning).
     */
    @Test
    void primaryKeyLakeRowsOfNestedColumnsThroughSparksParquetReader() {
        String table = "ls.%s.pk_parquet".formatted(NS);
        testing.sql(
                "CREATE TABLE %s (%s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')".formatted(table, COLUMNS));
        testing.sql("INSERT INTO %s SELECT * FROM nested_source".formatted(table));
        testing.tiering().tier(SparkTables.load(NS, "pk_parquet"));
        Dataset<Row> lake = assertSameRows(table, "SELECT * FROM nested_source");
        assertThat(SparkTables.metric(lake, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .isEqualTo(1);

        // a second pass writes an equality delete of keys 1 and 2 next to the new version of 1
        testing.sql("UPDATE %s SET score = 5 WHERE id = 1".formatted(table));
        testing.sql("DELETE FROM %s WHERE id = 2".formatted(table));
        testing.tiering().tier(SparkTables.load(NS, "pk_parquet"));
        assertThat(SparkTables.load(NS, "pk_parquet").lake().currentSnapshot().summary())
                .containsKey("added-equality-delete-files");
        String tiered = "SELECT id, tags, attrs, point, items, groups, deep, IF(id = 1, 5, score) AS score"
                + " FROM nested_source WHERE id <> 2";
        Dataset<Row> withDeletes = assertSameRows(table, tiered);
        assertThat(SparkTables.metric(withDeletes, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .isEqualTo(1);

        // the tail: a new version of 3, a delete of 4, a new key 5 with row 1's nested values
        testing.sql("UPDATE %s SET score = 8 WHERE id = 3".formatted(table));
        testing.sql("DELETE FROM %s WHERE id = 4".formatted(table));
        testing.sql("INSERT INTO %s SELECT 5L, tags, attrs, point, items, groups, deep, score FROM nested_source"
                        .formatted(table)
                + " WHERE id = 1");
        String merged = "SELECT id, tags, attrs, point, items, groups, deep, CASE id WHEN 1 THEN 5 WHEN 3 THEN 8"
                + " ELSE score END AS score FROM nested_source WHERE id IN (1, 3)"
                + " UNION ALL SELECT 5L, tags, attrs, point, items, groups, deep, score FROM nested_source WHERE id = 1";
        Dataset<Row> tail = assertSameRows(table, merged);
        assertThat(SparkTables.metric(tail, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(1);
        assertThat(SparkTables.metric(tail, LakestreamMetrics.LAKE_ROWS_HIDDEN)).isEqualTo(2);

        // a pushed filter on a flat column, applied to the lake rows on Spark's batches next to the nested columns
        Dataset<Row> filtered = assertSameRows(
                "(SELECT * FROM %s WHERE score >= 5)".formatted(table),
                "SELECT * FROM (" + merged + ") WHERE score >= 5");
        assertThat(SparkTables.metric(filtered, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(1);

        // nested fields only: the struct columns read narrowed, rows selected around the hidden keys
        String fields = "SELECT id, to_json(named_struct('w', deep.inner.w, 'm', deep.m, 'label', point.label,"
                + " 'names', items.name)) FROM %s";
        Dataset<Row> pruned = testing.sql(fields.formatted(table));
        assertThat(rows(pruned))
                .containsExactlyInAnyOrderElementsOf(rows(testing.sql(fields.formatted("(" + merged + ")"))));
        assertThat(SparkTables.metric(pruned, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(1);
    }

    /**
     * Position delete files (as another engine's DELETE writes them) drop lake rows of nested columns on Spark's
     * batches: without a tail and merged with one.
     */
    @Test
    void positionDeletesOnNestedColumnsThroughSparksParquetReader() {
        String table = "ls.%s.pk_positions".formatted(NS);
        testing.sql(
                "CREATE TABLE %s (%s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')".formatted(table, COLUMNS));
        testing.sql("INSERT INTO %s SELECT * FROM nested_source".formatted(table));
        testing.tiering().tier(SparkTables.load(NS, "pk_positions"));
        Table lake = SparkTables.load(NS, "pk_positions").lake();
        for (DataFile file : LakeDeleteFiles.dataFiles(lake)) {
            List<Object> ids = LakeDeleteFiles.valuesInFileOrder(lake, file, "id");
            List<Long> deleted = new ArrayList<>();
            for (int row = 0; row < ids.size(); row++) {
                if (ids.get(row).equals(2L) || ids.get(row).equals(4L)) {
                    deleted.add((long) row);
                }
            }
            LakeDeleteFiles.writePositionDeletes(lake, file, deleted);
        }
        Dataset<Row> lakeOnly = assertSameRows(table, "SELECT * FROM nested_source WHERE id IN (1, 3)");
        assertThat(SparkTables.metric(lakeOnly, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .isEqualTo(1);

        testing.sql("INSERT INTO %s SELECT 5L, tags, attrs, point, items, groups, deep, score FROM nested_source"
                        .formatted(table)
                + " WHERE id = 3");
        Dataset<Row> merged = assertSameRows(
                table,
                "SELECT * FROM nested_source WHERE id IN (1, 3) UNION ALL"
                        + " SELECT 5L, tags, attrs, point, items, groups, deep, score FROM nested_source WHERE id = 3");
        assertThat(SparkTables.metric(merged, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(1);
    }

    /** An append-only table's lake files with nested columns through Spark's Parquet reader, next to its log tail. */
    @Test
    void appendOnlyLakeRowsOfNestedColumnsThroughSparksParquetReader() {
        String table = "ls.%s.appended_parquet".formatted(NS);
        testing.sql("CREATE TABLE %s (%s) TBLPROPERTIES ('bucket.num'='2')".formatted(table, COLUMNS));
        testing.sql("INSERT INTO %s SELECT * FROM nested_source".formatted(table));
        testing.tiering().tier(SparkTables.load(NS, "appended_parquet"));
        testing.sql("INSERT INTO %s SELECT * FROM nested_source WHERE id IN (1, 4)".formatted(table));

        Dataset<Row> frame = assertSameRows(
                table, "SELECT * FROM nested_source UNION ALL SELECT * FROM nested_source WHERE id IN (1, 4)");
        long lakeSplits = ((LakestreamScan) SparkTables.scan(frame).scan())
                .splitsToRead().stream()
                        .filter(split -> !split.lakeFiles().isEmpty())
                        .count();
        assertThat(lakeSplits).isPositive();
        assertThat(SparkTables.metric(frame, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .isEqualTo(lakeSplits);
        assertThat(SparkTables.metric(frame, LakestreamMetrics.LAKE_ROWS)).isEqualTo(4);
    }

    /**
     * The table holds exactly the rows of {@code expectedQuery}, compared as JSON lines in any order; returns the
     * table's query (for its scan's metrics: it runs once, no sort samples it first).
     */
    private Dataset<Row> assertSameRows(String table, String expectedQuery) {
        String json = "SELECT id, to_json(struct(*)) FROM %s";
        Dataset<Row> frame = testing.sql(json.formatted(table));
        assertThat(rows(frame))
                .as(table)
                .containsExactlyInAnyOrderElementsOf(rows(testing.sql(json.formatted("(" + expectedQuery + ")"))));
        return frame;
    }
}
