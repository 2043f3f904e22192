package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Array, map and row columns through Trino: {@code CREATE TABLE}, {@code INSERT} into the log, the union read
 * of the log tail and of the lake after tiering, {@code "t$lake"}, {@code "t$changes"}, and Trino's stock Iceberg connector reading
 * the tiered lake; nulls at every level (a null array, a null element, an empty array, a null map value, a null
 * row, a null field). Expected rows are Trino literals of what the test inserted.
 */
final class TestLakestreamNestedTypes extends AbstractStockIcebergSqlTest {
    private static final String COLUMNS = "id, tags, attrs, point";
    private static final String POINT = "row(x double, label varchar)";

    private static String rows(int... ids) {
        StringBuilder values = new StringBuilder("VALUES ");
        for (int i = 0; i < ids.length; i++) {
            values.append(i == 0 ? "" : ", ").append(row(ids[i]));
        }
        return values.toString();
    }

    /** Row {@code id} of the test data: each id has nulls at another level. */
    private static String row(int id) {
        String tags = switch (id) {
            case 1 -> "ARRAY['a', 'b']";
            case 2 -> "CAST(NULL AS array(varchar))";
            case 3 -> "CAST(ARRAY[] AS array(varchar))";
            case 4 -> "ARRAY['c', NULL, 'd']";
            default -> "ARRAY['tail" + id + "']";
        };
        String attrs = switch (id) {
            case 1 -> "MAP(ARRAY['k1', 'k2'], ARRAY[1, 2])";
            case 2 -> "CAST(MAP() AS map(varchar, integer))";
            case 3 -> "CAST(NULL AS map(varchar, integer))";
            case 4 -> "MAP(ARRAY['k'], ARRAY[CAST(NULL AS integer)])";
            default -> "MAP(ARRAY['t'], ARRAY[" + id + "])";
        };
        String point = switch (id) {
            case 1 -> "CAST(ROW(1.5, 'p') AS " + POINT + ")";
            case 2 -> "CAST(ROW(NULL, 'q') AS " + POINT + ")";
            case 3 -> "CAST(ROW(2.5, NULL) AS " + POINT + ")";
            case 4 -> "CAST(NULL AS " + POINT + ")";
            default -> "CAST(ROW(" + id + ", 'tail') AS " + POINT + ")";
        };
        return "(BIGINT '%s', CAST(%s AS array(varchar)), CAST(%s AS map(varchar, integer)), %s)"
                .formatted(id, tags, attrs, point);
    }

    @Test
    void appendOnlyTableBeforeAndAfterTiering() {
        assertUpdate("CREATE TABLE nested_append (id bigint NOT NULL, tags array(varchar), attrs map(varchar, integer),"
                + " point " + POINT + ") WITH (bucket_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO nested_append " + rows(1, 2, 3, 4), 4);
        assertThat(query("SELECT " + COLUMNS + " FROM nested_append")).matches(rows(1, 2, 3, 4));
        assertThat(query("SELECT " + COLUMNS + " FROM \"nested_append$changes\" WHERE _change_type = 'insert'"))
                .matches(rows(1, 2, 3, 4));

        tables.tier("nested_append");
        assertUpdate("INSERT INTO nested_append " + rows(5), 1);
        assertThat(query("SELECT " + COLUMNS + " FROM nested_append")).matches(rows(1, 2, 3, 4, 5));
        assertThat(query("SELECT " + COLUMNS + " FROM \"nested_append$lake\"")).matches(rows(1, 2, 3, 4));
        assertThat(query("SELECT " + COLUMNS + " FROM iceberg.tests.nested_append"))
                .matches(rows(1, 2, 3, 4));

        // element access and filters on the nested values, over lake rows and the log tail
        assertThat(
                        query(
                                "SELECT id, tags[1], element_at(attrs, 't'), point.label FROM nested_append WHERE id IN (1, 5)"))
                .matches("VALUES (BIGINT '1', CAST('a' AS varchar), CAST(NULL AS integer), CAST('p' AS varchar)),"
                        + " (BIGINT '5', CAST('tail5' AS varchar), 5, CAST('tail' AS varchar))");
        assertThat(query("SELECT id FROM nested_append WHERE cardinality(tags) = 0 OR point.x > 2"))
                .matches("VALUES BIGINT '3', BIGINT '5'");
    }

    @Test
    void primaryKeyTableKeepsNestedValuesThroughUpdateDeleteAndMerge() {
        assertUpdate("CREATE TABLE nested_pk (id bigint, tags array(varchar), attrs map(varchar, integer)," + " point "
                + POINT + ", score integer) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO nested_pk SELECT *, 0 FROM (" + rows(1, 2, 3, 4) + ")", 4);
        assertUpdate("UPDATE nested_pk SET score = 7 WHERE id IN (1, 4)", 2);
        assertThat(query("SELECT " + COLUMNS + " FROM nested_pk")).matches(rows(1, 2, 3, 4));

        tables.tier("nested_pk");
        assertUpdate("DELETE FROM nested_pk WHERE id = 2", 1);
        assertUpdate(
                "MERGE INTO nested_pk t USING (" + rows(3, 5) + ") s(id, tags, attrs, point) ON t.id = s.id"
                        + " WHEN MATCHED THEN UPDATE SET score = 9"
                        + " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.tags, s.attrs, s.point, 1)",
                2);
        assertThat(query("SELECT " + COLUMNS + " FROM nested_pk")).matches(rows(1, 3, 4, 5));
        assertThat(query("SELECT id, score FROM nested_pk"))
                .matches("VALUES (BIGINT '1', 7), (BIGINT '3', 9), (BIGINT '4', 7), (BIGINT '5', 1)");

        tables.tier("nested_pk");
        assertThat(query("SELECT " + COLUMNS + " FROM nested_pk")).matches(rows(1, 3, 4, 5));
        assertThat(query("SELECT " + COLUMNS + " FROM iceberg.tests.nested_pk")).matches(rows(1, 3, 4, 5));

        // compaction rewrites the lake files (Iceberg's generic reader and writer) with the deletes applied
        assertUpdate("ALTER TABLE nested_pk EXECUTE compact");
        assertThat(query("SELECT " + COLUMNS + " FROM nested_pk")).matches(rows(1, 3, 4, 5));
        assertThat(query("SELECT " + COLUMNS + " FROM iceberg.tests.nested_pk")).matches(rows(1, 3, 4, 5));
        assertThat(query("SELECT count(*) FROM iceberg.tests.\"nested_pk$files\" WHERE content <> 0"))
                .matches("VALUES BIGINT '0'");
    }

    @Test
    void nestedTypesInsideNestedTypes() {
        assertUpdate("CREATE TABLE nested_deep (id bigint NOT NULL,"
                + " items array(row(name varchar, qty integer)), groups map(varchar, array(bigint)))");
        String expected = "VALUES"
                + " (BIGINT '1', ARRAY[CAST(ROW('x', 1) AS row(name varchar, qty integer)), NULL,"
                + " CAST(ROW(NULL, 3) AS row(name varchar, qty integer))],"
                + " CAST(MAP(ARRAY['a', 'b', 'c'], ARRAY[ARRAY[BIGINT '1', NULL], NULL, ARRAY[]]) AS map(varchar, array(bigint)))),"
                + " (BIGINT '2', NULL, NULL)";
        assertUpdate("INSERT INTO nested_deep " + expected, 2);
        assertThat(query("SELECT * FROM nested_deep")).matches(expected);
        tables.tier("nested_deep");
        assertThat(query("SELECT * FROM nested_deep")).matches(expected);
        assertThat(query("SELECT * FROM iceberg.tests.nested_deep")).matches(expected);
        assertThat(query("SELECT items[1].name, groups['a'][1] FROM nested_deep WHERE id = 1"))
                .matches("VALUES (CAST('x' AS varchar), BIGINT '1')");
    }

    @Test
    void nestedKeyColumnIsRefusedAtCreateTable() {
        assertQueryFails(
                "CREATE TABLE nested_key (id array(bigint), v integer) WITH (primary_key = ARRAY['id'])",
                ".*primary key column 'id' has type list<long>, which cannot be a key; key columns may be .*");
        assertQueryFails(
                "CREATE TABLE nested_bucket (id bigint, p row(a integer)) WITH (bucket_key = ARRAY['p'], bucket_count = 2)",
                ".*bucket key column 'p' has type struct<.*>, which cannot be a key; key columns may be .*");
    }
}
