package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
    private static final String COLUMNS = "id BIGINT NOT NULL, tags ARRAY<STRING>, attrs MAP<STRING, INT>,"
            + " point STRUCT<x: DOUBLE, label: STRING>, items ARRAY<STRUCT<name: STRING, qty: INT>>,"
            + " groups MAP<STRING, ARRAY<BIGINT>>, score INT";
    /** Each row has nulls at another level: a null array, map or struct, a null element, value or field, empties. */
    private static final String SOURCE = "SELECT * FROM VALUES"
            + " (1L, array('a', 'b'), map('k1', 1, 'k2', 2), named_struct('x', 1.5D, 'label', 'p'),"
            + "  array(named_struct('name', 'x', 'qty', 1), NULL), map('g', array(1L, NULL)), 0),"
            + " (2L, NULL, map(), named_struct('x', CAST(NULL AS DOUBLE), 'label', 'q'), NULL, NULL, 0),"
            + " (3L, array(), NULL, named_struct('x', 2.5D, 'label', CAST(NULL AS STRING)),"
            + "  array(named_struct('name', CAST(NULL AS STRING), 'qty', 3)), map('e', array()), 0),"
            + " (4L, array('c', NULL, 'd'), map('k', CAST(NULL AS INT)), NULL, array(), map('n', NULL), 0)"
            + " AS t(id, tags, attrs, point, items, groups, score)";

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
        String expected = "SELECT id, tags, attrs, point, items, groups, IF(id IN (1, 4), 7, score) AS score"
                + " FROM nested_source WHERE id <> 2";
        assertSameRows("ls.%s.pk".formatted(NS), expected);

        testing.tiering().tier(SparkTables.load(NS, "pk"));
        assertSameRows("ls.%s.pk".formatted(NS), expected);
        testing.sql("UPDATE ls.%s.pk SET score = 9 WHERE id = 3".formatted(NS));
        assertSameRows(
                "ls.%s.pk".formatted(NS),
                "SELECT id, tags, attrs, point, items, groups, CASE id WHEN 3 THEN 9 WHEN 1 THEN 7 WHEN 4 THEN 7"
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
                "(SELECT id, tags, attrs, point, items, groups, score FROM ls.%s.`appended$changes`)".formatted(NS),
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

    /** The table holds exactly the rows of {@code expectedQuery}, compared as JSON lines sorted by id. */
    private void assertSameRows(String table, String expectedQuery) {
        String json = "SELECT id, to_json(struct(*)) FROM %s ORDER BY id, 2";
        assertThat(rows(testing.sql(json.formatted(table))))
                .as(table)
                .containsExactlyElementsOf(rows(testing.sql(json.formatted("(" + expectedQuery + ")"))));
    }
}
