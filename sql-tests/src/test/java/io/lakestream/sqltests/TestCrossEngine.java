package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * End-to-end scenarios on one warehouse: what one engine writes the other reads, before and after
 * the real tiering service moves it into the lake, and both engines' union reads agree.
 */
final class TestCrossEngine {
    private final CrossEngine engines = CrossEngine.get();

    @Test
    void sparkInsertTrinoSelectAcrossTiering() {
        String s = engines.createSchema("spark_to_trino");
        engines.spark("CREATE TABLE " + s
                + ".events (id BIGINT NOT NULL, kind STRING) TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='3')");
        engines.spark("INSERT INTO " + s + ".events VALUES (1, 'a'), (2, 'b'), (3, 'c')");

        // before tiering: the rows are only in the log; Trino's union read sees them, its lake read does not
        assertThat(engines.trino("SELECT id, kind FROM " + s + ".events ORDER BY id"))
                .isEqualTo(List.of(List.of(1L, "a"), List.of(2L, "b"), List.of(3L, "c")));
        assertThat(engines.trino("SELECT count(*) FROM " + s + ".\"events$lake\""))
                .isEqualTo(List.of(List.of(0L)));

        engines.tier("spark_to_trino", "events");
        assertThat(engines.trino("SELECT count(*) FROM " + s + ".\"events$lake\""))
                .isEqualTo(List.of(List.of(3L)));
        engines.spark("INSERT INTO " + s + ".events VALUES (4, 'd'), (1, 'a')");
        // after tiering: lake rows plus the new log tail, an append-only table keeps the repeated row
        assertThat(engines.trino("SELECT id, kind FROM " + s + ".events ORDER BY id, kind"))
                .isEqualTo(List.of(
                        List.of(1L, "a"), List.of(1L, "a"), List.of(2L, "b"), List.of(3L, "c"), List.of(4L, "d")));
        assertSameUnionRead("SELECT id, kind FROM " + s + ".events");
    }

    @Test
    void trinoInsertSparkRead() {
        String s = engines.createSchema("trino_to_spark");
        engines.trino("CREATE TABLE " + s + ".users (id bigint, name varchar, score integer)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertThat(engines.trino("INSERT INTO " + s + ".users VALUES (1, 'ann', 10), (2, 'bob', 20), (3, NULL, 30)"))
                .isEqualTo(List.of(List.of(3L)));
        assertThat(engines.spark("SELECT id, name, score FROM " + s + ".users ORDER BY id"))
                .isEqualTo(rows(row(1L, "ann", 10), row(2L, "bob", 20), row(3L, null, 30)));

        engines.tier("trino_to_spark", "users");
        engines.trino("INSERT INTO " + s + ".users VALUES (2, 'bo', 21), (4, 'dan', 40)");
        assertThat(engines.spark("SELECT id, name, score FROM " + s + ".users ORDER BY id"))
                .isEqualTo(rows(row(1L, "ann", 10), row(2L, "bo", 21), row(3L, null, 30), row(4L, "dan", 40)));
        // Spark's lake read: only what tiering committed
        assertThat(engines.spark("SELECT id, name FROM " + s + ".`users$lake` ORDER BY id"))
                .isEqualTo(rows(row(1L, "ann"), row(2L, "bob"), row(3L, null)));
        assertSameUnionRead("SELECT id, name, score FROM " + s + ".users");
    }

    @Test
    void upsertsAndDeletesOnPrimaryKeyTableVisibleToBothBeforeTiering() {
        String s = engines.createSchema("pk_changes");
        engines.spark("CREATE TABLE " + s + ".accounts (id BIGINT, owner STRING, balance BIGINT)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        engines.spark("INSERT INTO " + s + ".accounts VALUES (1, 'ann', 100), (2, 'bob', 200), (3, 'cy', 300)");
        engines.tier("pk_changes", "accounts");

        // changes after tiering, from all three writers, none of them tiered yet
        engines.trino("INSERT INTO " + s + ".accounts VALUES (1, 'ann', 150), (4, 'dee', 400)");
        engines.spark("INSERT INTO " + s + ".accounts VALUES (2, 'bob', 250), (4, 'dee', 410)");
        engines.delete("pk_changes", "accounts", List.of(Map.of("id", 3L)));

        List<List<Object>> expected = rows(row(1L, "ann", 150L), row(2L, "bob", 250L), row(4L, "dee", 410L));
        String query = "SELECT id, owner, balance FROM " + s + ".accounts ORDER BY id";
        assertThat(engines.trino(query)).isEqualTo(expected);
        assertThat(engines.spark(query)).isEqualTo(expected);
        // the lake still holds the old versions (and the deleted row) until the next tiering round
        assertThat(engines.trino("SELECT id, balance FROM " + s + ".\"accounts$lake\" ORDER BY id"))
                .isEqualTo(rows(row(1L, 100L), row(2L, 200L), row(3L, 300L)));
        // a filter on a changed column: the new version that fails it hides the lake version that passes it
        String filtered = "SELECT id FROM " + s + ".accounts WHERE balance < 210 ORDER BY id";
        assertThat(engines.trino(filtered)).isEqualTo(rows(row(1L)));
        assertThat(engines.spark(filtered)).isEqualTo(rows(row(1L)));

        engines.tier("pk_changes", "accounts");
        assertThat(engines.trino(query)).isEqualTo(expected);
        assertThat(engines.spark(query)).isEqualTo(expected);
        assertThat(engines.spark("SELECT id, owner, balance FROM " + s + ".`accounts$lake` ORDER BY id"))
                .isEqualTo(expected);
    }

    @Test
    void offsetsLagFallsToZeroAfterTiering() {
        String s = engines.createSchema("offsets_lag");
        engines.trino(
                "CREATE TABLE " + s + ".lag (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        engines.trino("INSERT INTO " + s + ".lag VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
        engines.spark("INSERT INTO " + s + ".lag VALUES (1, 'a2'), (5, 'e')");

        String trinoLag = "SELECT count(*), sum(log_end_offset), sum(records_behind), sum(lake_offset) FROM " + s
                + ".\"lag$offsets\"";
        String sparkLag = "SELECT count(*), sum(log_end_offset), sum(records_behind), sum(lake_offset) FROM " + s
                + ".`lag$offsets`";
        // 6 changes in the log, none in the lake
        assertThat(engines.trino(trinoLag)).isEqualTo(rows(row(3L, 6L, 6L, 0L)));
        assertThat(engines.spark(sparkLag)).isEqualTo(rows(row(3L, 6L, 6L, 0L)));
        assertSameRows(
                "SELECT bucket, lake_offset, log_end_offset, records_behind FROM " + s + ".\"lag$offsets\"",
                "SELECT bucket, lake_offset, log_end_offset, records_behind FROM " + s + ".`lag$offsets`");

        engines.tier("offsets_lag", "lag");
        assertThat(engines.trino(trinoLag)).isEqualTo(rows(row(3L, 6L, 0L, 6L)));
        assertThat(engines.spark(sparkLag)).isEqualTo(rows(row(3L, 6L, 0L, 6L)));

        engines.spark("INSERT INTO " + s + ".lag VALUES (6, 'f')");
        assertThat(engines.trino(trinoLag)).isEqualTo(rows(row(3L, 7L, 1L, 6L)));
        engines.tier("offsets_lag", "lag");
        assertThat(engines.trino(trinoLag)).isEqualTo(rows(row(3L, 7L, 0L, 7L)));
        assertThat(engines.spark(sparkLag)).isEqualTo(rows(row(3L, 7L, 0L, 7L)));
    }

    @Test
    void trinoRunsThePluginFromItsPluginDirectory() {
        // the same class loading a Trino server uses for plugin/lakestream/*.jar, not the test class path
        ClassLoader loader = engines.trinoConnectorClassLoader();
        assertThat(loader.getClass().getName()).isEqualTo("io.trino.server.PluginClassLoader");
        assertThat(loader).isNotSameAs(TestCrossEngine.class.getClassLoader());
    }

    @Test
    void stockIcebergConnectorSeesTheLakeCatchUp() {
        String s = engines.createSchema("stock_iceberg");
        engines.spark("CREATE TABLE " + s + ".items (id BIGINT, name STRING, qty INT)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        engines.spark("INSERT INTO " + s + ".items VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
        String stock = "SELECT id, name, qty FROM iceberg." + s.substring(s.indexOf('.') + 1) + ".items ORDER BY id";
        String lake = "SELECT id, name, qty FROM " + s + ".\"items$lake\" ORDER BY id";
        // the lake-only reader sees nothing before tiering; the union read sees the log
        assertThat(engines.trino(stock)).isEmpty();
        assertThat(engines.trino("SELECT count(*) FROM " + s + ".items")).isEqualTo(rows(row(3L)));

        engines.tier("stock_iceberg", "items");
        assertThat(engines.trino(stock))
                .isEqualTo(rows(row(1L, "a", 10), row(2L, "b", 20), row(3L, "c", 30)))
                .isEqualTo(engines.trino(lake));

        // an update and a delete from Trino reach the stock reader only with the next tiering round
        engines.trino("UPDATE " + s + ".items SET qty = 11 WHERE id = 1");
        engines.trino("DELETE FROM " + s + ".items WHERE id = 2");
        assertThat(engines.trino(stock)).isEqualTo(rows(row(1L, "a", 10), row(2L, "b", 20), row(3L, "c", 30)));
        engines.tier("stock_iceberg", "items");
        assertThat(engines.trino(stock))
                .isEqualTo(rows(row(1L, "a", 11), row(3L, "c", 30)))
                .isEqualTo(engines.trino(lake))
                .isEqualTo(engines.trino("SELECT id, name, qty FROM " + s + ".items ORDER BY id"));
    }

    private void assertSameUnionRead(String sql) {
        assertSameRows(sql, sql);
    }

    private void assertSameRows(String trinoSql, String sparkSql) {
        List<String> trino = Values.format(engines.trino(trinoSql), false);
        List<String> spark = Values.format(engines.spark(sparkSql), false);
        assertThat(trino).isNotEmpty().isEqualTo(spark);
    }

    private static List<Object> row(Object... values) {
        return java.util.Arrays.asList(values);
    }

    @SafeVarargs
    private static List<List<Object>> rows(List<Object>... rows) {
        return List.of(rows);
    }
}
