package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A map whose keys are structs ({@code MAP<STRUCT<a: INT, b: STRING>, BIGINT>}) through Spark: written to the log
 * (an Arrow map with a struct key), read by union reads from the log, tiered to Parquet and read from the lake and
 * from both layers; a primary-key upsert replaces the whole map.
 */
class TestLakestreamSparkStructMapKeys {
    private final SparkTesting testing = SparkTesting.get();

    @Test
    void structKeysThroughTheLogAndTheLake() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls.mapkeys");
        testing.sql("CREATE TABLE ls.mapkeys.t (id BIGINT, m MAP<STRUCT<a: INT, b: STRING>, BIGINT>)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.mapkeys.t VALUES"
                + " (1, map(named_struct('a', 1, 'b', 'x'), 10L, named_struct('a', 2, 'b', 'y'), 20L)),"
                + " (2, map(named_struct('a', 3, 'b', 'z'), 30L)), (3, NULL)");
        List<List<Object>> written =
                List.of(row(1L, 2, 10L, 20L, null), row(2L, 1, null, null, 30L), row(3L, null, null, null, null));
        assertRows(written);
        testing.tiering().tier(SparkTables.load("mapkeys", "t"));
        assertRows(written);
        assertThat(SparkTesting.rows(testing.sql(
                        "SELECT id, m[named_struct('a', 1, 'b', 'x')] FROM ls.mapkeys.`t$lake` ORDER BY id")))
                .containsExactly(row(1L, 10L), row(2L, null), row(3L, null));
        // an upsert in the log over a row in the lake
        testing.sql("INSERT INTO ls.mapkeys.t VALUES (2, map(named_struct('a', 1, 'b', 'x'), 11L))");
        assertRows(List.of(row(1L, 2, 10L, 20L, null), row(2L, 1, 11L, null, null), row(3L, null, null, null, null)));
        assertThat(SparkTesting.rows(
                        testing.sql("SELECT id, map_keys(m)[0].a, map_keys(m)[0].b FROM ls.mapkeys.t WHERE id = 2")))
                .containsExactly(row(2L, 1, "x"));
    }

    private void assertRows(List<List<Object>> expected) {
        assertThat(
                        SparkTesting.rows(
                                testing.sql(
                                        "SELECT id, cardinality(m), m[named_struct('a', 1, 'b', 'x')],"
                                                + " m[named_struct('a', 2, 'b', 'y')], m[named_struct('a', 3, 'b', 'z')] FROM ls.mapkeys.t ORDER BY id")))
                .containsExactlyElementsOf(expected);
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }
}
