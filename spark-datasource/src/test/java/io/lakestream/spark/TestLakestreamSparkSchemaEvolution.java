package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code ALTER TABLE} through Spark between writes, with tiering before and after each change: union reads,
 * {@code t$lake} and {@code t$changes} return exactly the rows written, read with the current schema, whether the
 * older rows are in log segments or lake files.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkSchemaEvolution {
    private static final String NS = "sev";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void primaryKeyTableEvolvesBetweenWrites() {
        testing.sql("CREATE TABLE ls.sev.pk (id BIGINT, a INT, b STRING, f FLOAT, d DECIMAL(5, 2))"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.sev.pk VALUES (1, 10, 'one', 1.5, 1.25), (2, 20, 'two', 2.5, 2.50)");
        tier("pk");
        testing.sql("INSERT INTO ls.sev.pk VALUES (3, 30, 'three', 3.5, 3.75)");

        testing.sql("ALTER TABLE ls.sev.pk ADD COLUMN c STRING COMMENT 'added'");
        testing.sql("INSERT INTO ls.sev.pk VALUES (4, 40, 'four', 4.5, 4.00, 'c4')");
        testing.sql("UPDATE ls.sev.pk SET c = 'c1' WHERE id = 1");
        List<List<Object>> afterAdd = List.of(
                row(1L, 10, "one", 1.5f, dec("1.25"), "c1"),
                row(2L, 20, "two", 2.5f, dec("2.50"), null),
                row(3L, 30, "three", 3.5f, dec("3.75"), null),
                row(4L, 40, "four", 4.5f, dec("4.00"), "c4"));
        assertRows("pk", "id, a, b, f, d, c", afterAdd);
        tier("pk");
        assertRows("pk", "id, a, b, f, d, c", afterAdd);
        assertThat(rows(testing.sql("SELECT id, a, b, f, d, c FROM ls.sev.`pk$lake` ORDER BY id")))
                .containsExactlyElementsOf(afterAdd);

        testing.sql("INSERT INTO ls.sev.pk VALUES (5, 50, 'five', 5.5, 5.50, 'c5')");
        testing.sql("ALTER TABLE ls.sev.pk RENAME COLUMN b TO name");
        testing.sql("ALTER TABLE ls.sev.pk ALTER COLUMN a TYPE BIGINT");
        testing.sql("ALTER TABLE ls.sev.pk ALTER COLUMN f TYPE DOUBLE");
        testing.sql("ALTER TABLE ls.sev.pk ALTER COLUMN d TYPE DECIMAL(12, 2)");
        testing.sql("INSERT INTO ls.sev.pk VALUES (6, 6000000000, 'six', 6.25, 1234567890.12, 'c6')");
        List<List<Object>> afterRetype = List.of(
                row(1L, 10L, "one", 1.5d, dec("1.25"), "c1"),
                row(2L, 20L, "two", 2.5d, dec("2.50"), null),
                row(3L, 30L, "three", 3.5d, dec("3.75"), null),
                row(4L, 40L, "four", 4.5d, dec("4.00"), "c4"),
                row(5L, 50L, "five", 5.5d, dec("5.50"), "c5"),
                row(6L, 6000000000L, "six", 6.25d, dec("1234567890.12"), "c6"));
        assertRows("pk", "id, a, name, f, d, c", afterRetype);
        tier("pk");
        assertRows("pk", "id, a, name, f, d, c", afterRetype);

        testing.sql("INSERT INTO ls.sev.pk VALUES (7, 70, 'seven', 7.5, 7.00, 'c7')");
        testing.sql("ALTER TABLE ls.sev.pk DROP COLUMN f");
        testing.sql("DELETE FROM ls.sev.pk WHERE id = 2");
        List<List<Object>> afterDrop = List.of(
                row(1L, 10L, "one", dec("1.25"), "c1"),
                row(3L, 30L, "three", dec("3.75"), null),
                row(4L, 40L, "four", dec("4.00"), "c4"),
                row(5L, 50L, "five", dec("5.50"), "c5"),
                row(6L, 6000000000L, "six", dec("1234567890.12"), "c6"),
                row(7L, 70L, "seven", dec("7.00"), "c7"));
        assertThat(testing.spark().table("ls.sev.pk").schema().fieldNames())
                .containsExactly("id", "a", "name", "d", "c");
        assertRows("pk", "id, a, name, d, c", afterDrop);
        assertThat(
                        rows(
                                testing.sql(
                                        "SELECT id, a, c FROM ls.sev.`pk$changes` WHERE _change_type = 'upsert' AND id IN (1, 7) ORDER BY _offset")))
                .containsExactlyInAnyOrder(row(1L, 10L, null), row(1L, 10L, "c1"), row(7L, 70L, "c7"));
        tier("pk");
        assertRows("pk", "id, a, name, d, c", afterDrop);
        assertThat(rows(testing.sql("SELECT id, a, name, d, c FROM ls.sev.`pk$lake` ORDER BY id")))
                .containsExactlyElementsOf(afterDrop);
        assertThat(rows(testing.sql("SELECT sum(records_behind) FROM ls.sev.`pk$offsets`")))
                .containsExactly(List.of(0L));
    }

    /**
     * A column renamed away from a name that a column added afterwards takes: the lake files still name the old
     * column by its old name, and Spark's Parquet reader tries a name match before the field id, so the new column
     * must not be requested under that name (found by {@code TestSchemaEvolutionRandomized}, sql-tests).
     */
    @Test
    void addedColumnTakesTheFileNameOfARenamedColumn() {
        testing.sql("CREATE TABLE ls.sev.taken (id BIGINT NOT NULL, c STRING)"
                + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='1')");
        testing.sql("INSERT INTO ls.sev.taken VALUES (1, 'one')");
        tier("taken");
        testing.sql("ALTER TABLE ls.sev.taken RENAME COLUMN c TO r");
        testing.sql("ALTER TABLE ls.sev.taken ADD COLUMN c FLOAT");
        testing.sql("INSERT INTO ls.sev.taken VALUES (2, 'two', 2.5)");
        List<List<Object>> rows = List.of(row(1L, "one", null), row(2L, "two", 2.5f));
        assertRows("taken", "id, r, c", rows);
        assertThat(rows(testing.sql("SELECT id, r, c FROM ls.sev.`taken$lake` ORDER BY id")))
                .containsExactly(row(1L, "one", null));
        tier("taken");
        assertRows("taken", "id, r, c", rows);
    }

    @Test
    void appendOnlyTableEvolvesAndRenames() {
        testing.sql("CREATE TABLE ls.sev.ao (id BIGINT NOT NULL, kind STRING, n INT)"
                + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.sev.ao VALUES (1, 'a', 1), (2, 'b', 2)");
        tier("ao");
        testing.sql("INSERT INTO ls.sev.ao VALUES (3, 'c', 3)");
        testing.sql("ALTER TABLE ls.sev.ao ADD COLUMNS (note STRING)");
        testing.sql("ALTER TABLE ls.sev.ao RENAME COLUMN kind TO category");
        testing.sql("ALTER TABLE ls.sev.ao ALTER COLUMN n TYPE BIGINT");
        testing.sql("INSERT INTO ls.sev.ao VALUES (4, 'd', 4000000000, 'new')");
        List<List<Object>> rows = List.of(
                row(1L, "a", 1L, null),
                row(2L, "b", 2L, null),
                row(3L, "c", 3L, null),
                row(4L, "d", 4000000000L, "new"));
        assertRows("ao", "id, category, n, note", rows);
        tier("ao");
        assertRows("ao", "id, category, n, note", rows);

        testing.sql("ALTER TABLE ls.sev.ao DROP COLUMN category");
        testing.sql("ALTER TABLE ls.sev.ao RENAME TO sev.ao_renamed");
        testing.sql("INSERT INTO ls.sev.ao_renamed VALUES (5, 5, 'five')");
        List<List<Object>> dropped = List.of(
                row(1L, 1L, null),
                row(2L, 2L, null),
                row(3L, 3L, null),
                row(4L, 4000000000L, "new"),
                row(5L, 5L, "five"));
        assertRows("ao_renamed", "id, n, note", dropped);
        tier("ao_renamed");
        assertRows("ao_renamed", "id, n, note", dropped);
        assertThatThrownBy(() -> testing.sql("SELECT * FROM ls.sev.ao")).hasMessageContaining("ao");
    }

    @Test
    void structFieldsEvolveBetweenWrites() {
        testing.sql("CREATE TABLE ls.sev.st (id BIGINT, s STRUCT<a: INT, b: STRING, f: FLOAT>,"
                + " arr ARRAY<STRUCT<x: INT>>, m MAP<STRING, STRUCT<y: INT>>)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.sev.st VALUES (1, named_struct('a', 10, 'b', 'one', 'f', 1.5),"
                + " array(named_struct('x', 1)), map('k', named_struct('y', 1)))");
        tier("st");
        // in the log only, written with the first struct types
        testing.sql(
                "INSERT INTO ls.sev.st VALUES (2, named_struct('a', 20, 'b', 'two', 'f', 2.5),"
                        + " array(named_struct('x', 2), named_struct('x', 22)), map('k', named_struct('y', 2))), (3, NULL, NULL, NULL)");

        testing.sql("ALTER TABLE ls.sev.st ADD COLUMN s.first STRING FIRST");
        testing.sql("ALTER TABLE ls.sev.st ADD COLUMN s.c STRING AFTER a");
        testing.sql("ALTER TABLE ls.sev.st RENAME COLUMN s.b TO name");
        testing.sql("ALTER TABLE ls.sev.st ALTER COLUMN s.a TYPE BIGINT");
        testing.sql("ALTER TABLE ls.sev.st DROP COLUMN s.f");
        testing.sql("ALTER TABLE ls.sev.st ADD COLUMN arr.element.z STRING");
        testing.sql("ALTER TABLE ls.sev.st ALTER COLUMN m.value.y TYPE BIGINT");
        assertThat(testing.spark()
                        .table("ls.sev.st")
                        .schema()
                        .apply("s")
                        .dataType()
                        .sql())
                .isEqualTo("STRUCT<first: STRING, a: BIGINT, c: STRING, name: STRING>");
        testing.sql(
                "INSERT INTO ls.sev.st VALUES (4, named_struct('first', 'p4', 'a', 4000000000, 'c', 'c4', 'name', 'four'),"
                        + " array(named_struct('x', 4, 'z', 'z4')), map('k', named_struct('y', 4000000000)))");
        String columns = "id, s.first, s.a, s.c, s.name, try_element_at(arr, 1).x, try_element_at(arr, 1).z, m['k'].y";
        List<List<Object>> rows = List.of(
                row(1L, null, 10L, null, "one", 1, null, 1L),
                row(2L, null, 20L, null, "two", 2, null, 2L),
                row(3L, null, null, null, null, null, null, null),
                row(4L, "p4", 4000000000L, "c4", "four", 4, "z4", 4000000000L));
        assertRows("st", columns, rows);
        assertThat(rows(testing.sql(
                        "SELECT id, s.a, s.name, try_element_at(arr, 2).x FROM ls.sev.`st$changes` ORDER BY _offset")))
                .containsExactlyInAnyOrder(
                        row(1L, 10L, "one", null),
                        row(2L, 20L, "two", 22),
                        row(3L, null, null, null),
                        row(4L, 4000000000L, "four", null));
        // a log range written with both struct types is tiered into one lake schema
        tier("st");
        assertRows("st", columns, rows);
        assertThat(rows(testing.sql("SELECT %s FROM ls.sev.`st$lake` ORDER BY id".formatted(columns))))
                .containsExactlyElementsOf(rows);
        assertThat(rows(testing.sql("SELECT sum(records_behind) FROM ls.sev.`st$offsets`")))
                .containsExactly(List.of(0L));
    }

    /**
     * Structs inside an array, a map's values and a struct none of whose fields an older lake file has (every field it
     * has was dropped after another was added): the file's list and map entries and struct nulls are kept, the added
     * fields read as nulls, in union reads (Spark's Parquet reader, and merged with a tail) and in {@code t$lake}.
     */
    @Test
    void nestedStructsWhoseFieldsAnOlderFileLacks() {
        testing.sql("CREATE TABLE ls.sev.grown (id BIGINT, arr ARRAY<STRUCT<a: INT>>, m MAP<STRING, STRUCT<a: INT>>,"
                + " s STRUCT<t: STRUCT<a: INT>, x: INT>) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')");
        testing.sql("INSERT INTO ls.sev.grown VALUES"
                + " (1, array(named_struct('a', 1), NULL, named_struct('a', NULL)),"
                + " map('k', named_struct('a', 1), 'n', NULL), named_struct('t', named_struct('a', 1), 'x', 5)),"
                + " (2, NULL, NULL, NULL),"
                + " (3, array(), map(), named_struct('t', NULL, 'x', 6))");
        tier("grown");
        for (String field : List.of("arr.element", "m.value", "s.t")) {
            testing.sql("ALTER TABLE ls.sev.grown ADD COLUMN " + field + ".b INT");
            testing.sql("ALTER TABLE ls.sev.grown DROP COLUMN " + field + ".a");
        }
        // as JSON, which leaves out null fields: {} is a struct of nulls, null a null struct
        String columns = "id, to_json(named_struct('arr', arr, 'm', m, 's', s))";
        List<List<Object>> lakeRows = List.of(
                row(1L, "{\"arr\":[{},null,{}],\"m\":{\"k\":{},\"n\":null},\"s\":{\"t\":{},\"x\":5}}"),
                row(2L, "{}"),
                row(3L, "{\"arr\":[],\"m\":{},\"s\":{\"x\":6}}"));
        assertRows("grown", columns, lakeRows);
        assertThat(rows(testing.sql("SELECT %s FROM ls.sev.`grown$lake` ORDER BY id".formatted(columns))))
                .containsExactlyElementsOf(lakeRows);
        // the added fields alone (s narrowed to s.t.b by Spark's nested schema pruning)
        assertRows(
                "grown",
                "id, to_json(transform(arr, e -> e.b)), to_json(map_values(transform_values(m, (k, v) -> v.b))), s.t.b",
                List.of(
                        row(1L, "[null,null,null]", "[null,null]", null),
                        row(2L, null, null, null),
                        row(3L, "[]", "[]", null)));
        // a tail in the new shape, merged with the older file's rows
        testing.sql("INSERT INTO ls.sev.grown VALUES (4, array(named_struct('b', 40)), map('k', named_struct('b', 41)),"
                + " named_struct('t', named_struct('b', 42), 'x', 7))");
        List<List<Object>> merged = new ArrayList<>(lakeRows);
        merged.add(row(4L, "{\"arr\":[{\"b\":40}],\"m\":{\"k\":{\"b\":41}},\"s\":{\"t\":{\"b\":42},\"x\":7}}"));
        assertRows("grown", columns, merged);
    }

    @Test
    void notNullAndTableComment() {
        testing.sql("CREATE TABLE ls.sev.nn (id BIGINT NOT NULL, v STRING NOT NULL, w STRING)"
                + " TBLPROPERTIES ('primary-key'='id')");
        testing.sql("INSERT INTO ls.sev.nn VALUES (1, 'one', 'w1')");
        tier("nn");
        testing.sql("ALTER TABLE ls.sev.nn ALTER COLUMN v DROP NOT NULL");
        testing.sql("INSERT INTO ls.sev.nn VALUES (2, NULL, 'w2')");
        assertRows("nn", "id, v, w", List.of(row(1L, "one", "w1"), row(2L, null, "w2")));
        tier("nn");
        assertRows("nn", "id, v, w", List.of(row(1L, "one", "w1"), row(2L, null, "w2")));
        assertThatThrownBy(() -> testing.sql("ALTER TABLE ls.sev.nn ALTER COLUMN id DROP NOT NULL"))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.SCHEMA_CHANGE_NOT_ALLOWED));
        // SET NOT NULL: Spark's analyzer refuses it before the catalog (which refuses it too, for the Java API)
        assertThatThrownBy(() -> testing.sql("ALTER TABLE ls.sev.nn ALTER COLUMN w SET NOT NULL"))
                .hasMessageContaining("Cannot change nullable column to non-nullable");

        testing.sql("COMMENT ON TABLE ls.sev.nn IS 'people'");
        assertThat(SparkTables.load(NS, "nn").lake().properties()).containsEntry("comment", "people");
        testing.sql("COMMENT ON TABLE ls.sev.nn IS NULL");
        assertThat(SparkTables.load(NS, "nn").lake().properties()).doesNotContainKey("comment");
        assertRows("nn", "id, v, w", List.of(row(1L, "one", "w1"), row(2L, null, "w2")));
    }

    @Test
    void keyColumnsCannotChange() {
        testing.sql("CREATE TABLE ls.sev.keys (id BIGINT, region STRING, v INT)"
                + " TBLPROPERTIES ('primary-key'='id,region', 'bucket.key'='region', 'bucket.num'='2')");
        for (String change :
                new String[] {"DROP COLUMN id", "RENAME COLUMN region TO area", "ALTER COLUMN id TYPE DECIMAL(20, 0)"
                }) {
            assertThatThrownBy(() -> testing.sql("ALTER TABLE ls.sev.keys " + change))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.SCHEMA_CHANGE_NOT_ALLOWED))
                    .hasMessageContaining("primary-key or bucket-key column");
        }
        assertThatThrownBy(() -> testing.sql("ALTER TABLE ls.sev.keys ALTER COLUMN v TYPE STRING"))
                .hasMessageContaining("v");
        assertThat(testing.spark().table("ls.sev.keys").schema().fieldNames()).containsExactly("id", "region", "v");
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    private void assertRows(String table, String columns, List<List<Object>> expected) {
        assertThat(rows(testing.sql("SELECT %s FROM ls.sev.%s ORDER BY id".formatted(columns, table))))
                .containsExactlyElementsOf(expected);
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    private static BigDecimal dec(String value) {
        return new BigDecimal(value);
    }
}
