package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Column comments and structs as map keys across the engines: a comment set in one engine is shown by the other
 * and by Trino's stock Iceberg connector (it is the Iceberg field's doc); a map with struct keys written by either
 * engine is read by both, from the log and after tiering from the lake, and by the stock connector.
 */
final class TestCrossEngineColumnTypes {
    private final CrossEngine engines = CrossEngine.get();

    @Test
    void commentsSetInOneEngineAreShownInTheOther() {
        String schema = "column_comments";
        String table = engines.createSchema(schema) + ".t";
        // Trino's union catalog may see another process's schema change up to its staleness later: the exact one at
        // once
        String exactTable = table.replace(TrinoEngine.CATALOG + ".", TrinoEngine.EXACT_LAKE_CATALOG + ".");
        engines.spark(
                "CREATE TABLE %s (id BIGINT, c INT COMMENT 'from spark', s STRUCT<f: INT COMMENT 'field', g: STRING>)"
                        .formatted(table));
        assertThat(trinoComments(schema)).containsExactly(row("id", null), row("c", "from spark"), row("s", null));

        engines.trino("COMMENT ON COLUMN %s.c IS 'from trino'".formatted(exactTable));
        assertThat(sparkComments(table)).containsExactly(row("id", null), row("c", "from trino"), row("s", null));

        engines.spark("ALTER TABLE %s ALTER COLUMN c COMMENT 'altered in spark'".formatted(table));
        engines.spark("ALTER TABLE %s ALTER COLUMN s.g COMMENT 'field altered'".formatted(table));
        assertThat(trinoComments(schema))
                .containsExactly(row("id", null), row("c", "altered in spark"), row("s", null));
        assertThat(engines.lake(schema, "t").schema().findField("s.g").doc()).isEqualTo("field altered");
        assertThat(engines.lake(schema, "t").schema().findField("s.f").doc()).isEqualTo("field");
        assertThat(engines.trino(
                        "SELECT column_name, comment FROM iceberg.information_schema.columns WHERE table_schema = '%s'"
                                        .formatted(schema)
                                + " AND table_name = 't' ORDER BY ordinal_position"))
                .containsExactly(row("id", null), row("c", "altered in spark"), row("s", null));

        engines.trino("COMMENT ON COLUMN %s.c IS NULL".formatted(exactTable));
        assertThat(sparkComments(table)).containsExactly(row("id", null), row("c", null), row("s", null));
    }

    @Test
    void structMapKeysWrittenByEitherEngine() {
        String schema = "struct_map_keys";
        String table = engines.createSchema(schema) + ".t";
        engines.trino("CREATE TABLE %s (id bigint, m map(row(a integer, b varchar), bigint))".formatted(table)
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        engines.trino(
                "INSERT INTO %s VALUES (1, MAP(ARRAY[ROW(1, 'x'), ROW(2, 'y')], ARRAY[10, 20]))".formatted(table));
        engines.spark("INSERT INTO %s VALUES (2, map(named_struct('a', 1, 'b', 'x'), 11L))".formatted(table));
        List<List<Object>> rows = List.of(row(1L, 2L, 10L, 20L), row(2L, 1L, 11L, null));
        assertBothRead(table, rows);
        engines.tier(schema, "t");
        assertBothRead(table, rows);
        assertThat(engines.trino(trinoRead("iceberg.%s.t".formatted(schema)))).isEqualTo(rows);
        // an upsert from each engine over the lake's rows
        engines.spark("INSERT INTO %s VALUES (1, map(named_struct('a', 2, 'b', 'y'), 21L))".formatted(table));
        engines.trino("INSERT INTO %s VALUES (2, MAP(ARRAY[ROW(1, 'x')], ARRAY[12]))".formatted(table));
        assertBothRead(table, List.of(row(1L, 1L, null, 21L), row(2L, 1L, 12L, null)));
    }

    private void assertBothRead(String table, List<List<Object>> rows) {
        assertThat(engines.trino(trinoRead(table))).isEqualTo(rows);
        List<List<Object>> spark = engines.spark(
                "SELECT id, CAST(cardinality(m) AS BIGINT), m[named_struct('a', 1, 'b', 'x')], m[named_struct('a', 2, 'b', 'y')]"
                        + " FROM %s ORDER BY id".formatted(table));
        assertThat(spark).isEqualTo(rows);
    }

    private static String trinoRead(String table) {
        return "SELECT id, CAST(cardinality(m) AS bigint), element_at(m, ROW(1, 'x')), element_at(m, ROW(2, 'y'))"
                + " FROM %s ORDER BY id".formatted(table);
    }

    private List<List<Object>> trinoComments(String schema) {
        return engines.trino(("SELECT column_name, comment FROM %s.information_schema.columns WHERE table_schema = '%s'"
                        + " AND table_name = 't' ORDER BY ordinal_position")
                .formatted(TrinoEngine.EXACT_LAKE_CATALOG, schema));
    }

    private List<List<Object>> sparkComments(String table) {
        return engines.spark("DESCRIBE TABLE " + table).stream()
                .filter(row -> !((String) row.getFirst()).isEmpty() && !((String) row.getFirst()).startsWith("#"))
                .map(row -> row(row.get(0), row.get(2)))
                .toList();
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }
}
