package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code ALTER TABLE} through Spark on fields of structs inside map values and array elements, at any depth ({@code
 * m.value.f}, {@code m.value.t.g}, {@code arr.element.r}, {@code s.mm.value.b}, {@code s.la.element.element.k}):
 * add, rename, drop and widen. These are the paths Trino 483 refuses before the connector (no {@code ADD} or
 * {@code DROP} in a map, no {@code RENAME} in an array or map; {@code TestLakestreamNestedPathEvolution}). Rows
 * written before the changes sit in lake files and in log segments; union reads (whole columns and narrowed
 * fields), {@code t$lake}, {@code t$changes} and the stock Iceberg Spark runtime read them with the new shapes,
 * also after a tiering pass over a log range written with both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkNestedPathEvolution {
    private static final String NS = "nested_paths";
    private static final String WHOLE = "id, to_json(named_struct('m', m, 'arr', arr, 's', s))";
    private static final String FIELDS = "id, m['k'].vv, m['k'].t.w, m['k'].t.g, m['k'].f, try_element_at(arr, 1).qq,"
            + " try_element_at(arr, 1).r, s.mm['k'].aa, s.mm['k'].b, try_element_at(try_element_at(s.la, 1), 1).uu,"
            + " try_element_at(try_element_at(s.la, 1), 1).k";

    private final SparkTesting testing = SparkTesting.get();
    private StockIcebergSpark stock;

    @BeforeAll
    void start() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        stock = new StockIcebergSpark(testing.warehouseDirectory());
    }

    @AfterAll
    void stop() {
        if (stock != null) {
            stock.close();
        }
    }

    @Test
    void fieldsInMapValuesAndArrayElementsEvolveBetweenWrites() {
        String table = "ls.%s.paths".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, m MAP<STRING, STRUCT<v: INT, t: STRUCT<w: INT>>>,".formatted(table)
                + " arr ARRAY<STRUCT<p: INT, q: STRING>>,"
                + " s STRUCT<mm: MAP<STRING, STRUCT<a: INT>>, la: ARRAY<ARRAY<STRUCT<u: INT>>>>)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO %s VALUES".formatted(table)
                + " (1, map('k', named_struct('v', 1, 't', named_struct('w', 11))),"
                + " array(named_struct('p', 12, 'q', 'q1')),"
                + " named_struct('mm', map('k', named_struct('a', 13)), 'la', array(array(named_struct('u', 14))))),"
                + " (2, map('k', named_struct('v', 2, 't', CAST(NULL AS STRUCT<w: INT>)),"
                + " 'n', CAST(NULL AS STRUCT<v: INT, t: STRUCT<w: INT>>)),"
                + " array(CAST(NULL AS STRUCT<p: INT, q: STRING>), named_struct('p', CAST(NULL AS INT), 'q', 'q2')),"
                + " named_struct('mm', CAST(NULL AS MAP<STRING, STRUCT<a: INT>>),"
                + " 'la', array(CAST(array() AS ARRAY<STRUCT<u: INT>>), CAST(NULL AS ARRAY<STRUCT<u: INT>>))))");
        tier("paths");
        // in the log only, written with the first shapes
        testing.sql("INSERT INTO %s VALUES".formatted(table)
                + " (3, map('k', named_struct('v', 3, 't', named_struct('w', 31))),"
                + " array(named_struct('p', 32, 'q', 'q3')),"
                + " named_struct('mm', map('k', named_struct('a', 33)), 'la', array(array(named_struct('u', 34))))),"
                + " (4, NULL, NULL, NULL)");

        testing.sql("ALTER TABLE %s ADD COLUMN m.value.f STRING".formatted(table));
        testing.sql("ALTER TABLE %s ADD COLUMN m.value.t.g STRING".formatted(table));
        testing.sql("ALTER TABLE %s RENAME COLUMN m.value.v TO vv".formatted(table));
        testing.sql("ALTER TABLE %s ALTER COLUMN m.value.t.w TYPE BIGINT".formatted(table));
        testing.sql("ALTER TABLE %s DROP COLUMN arr.element.p".formatted(table));
        testing.sql("ALTER TABLE %s RENAME COLUMN arr.element.q TO qq".formatted(table));
        testing.sql("ALTER TABLE %s ADD COLUMN arr.element.r INT".formatted(table));
        testing.sql("ALTER TABLE %s ADD COLUMN s.mm.value.b STRING".formatted(table));
        testing.sql("ALTER TABLE %s RENAME COLUMN s.mm.value.a TO aa".formatted(table));
        testing.sql("ALTER TABLE %s ADD COLUMN s.la.element.element.k INT".formatted(table));
        testing.sql("ALTER TABLE %s RENAME COLUMN s.la.element.element.u TO uu".formatted(table));
        assertThat(testing.spark().table(table).schema().catalogString())
                .isEqualTo("struct<id:bigint,m:map<string,struct<vv:int,t:struct<w:bigint,g:string>,f:string>>,"
                        + "arr:array<struct<qq:string,r:int>>,"
                        + "s:struct<mm:map<string,struct<aa:int,b:string>>,la:array<array<struct<uu:int,k:int>>>>>");
        testing.sql("INSERT INTO %s VALUES".formatted(table)
                + " (5, map('k', named_struct('vv', 5, 't', named_struct('w', 5000000000L, 'g', 'g5'), 'f', 'f5')),"
                + " array(named_struct('qq', 'q5', 'r', 52)),"
                + " named_struct('mm', map('k', named_struct('aa', 53, 'b', 'b5')),"
                + " 'la', array(array(named_struct('uu', 54, 'k', 55)))))");

        // as JSON, which leaves out null fields: {} is a struct of nulls, null a null struct
        List<List<Object>> lakeRows = List.of(
                row(
                        1L,
                        "{\"m\":{\"k\":{\"vv\":1,\"t\":{\"w\":11}}},\"arr\":[{\"qq\":\"q1\"}],"
                                + "\"s\":{\"mm\":{\"k\":{\"aa\":13}},\"la\":[[{\"uu\":14}]]}}"),
                row(
                        2L,
                        "{\"m\":{\"k\":{\"vv\":2},\"n\":null},\"arr\":[null,{\"qq\":\"q2\"}],\"s\":{\"la\":[[],null]}}"));
        List<List<Object>> all = new ArrayList<>(lakeRows);
        all.add(row(
                3L,
                "{\"m\":{\"k\":{\"vv\":3,\"t\":{\"w\":31}}},\"arr\":[{\"qq\":\"q3\"}],"
                        + "\"s\":{\"mm\":{\"k\":{\"aa\":33}},\"la\":[[{\"uu\":34}]]}}"));
        all.add(row(4L, "{}"));
        all.add(row(
                5L,
                "{\"m\":{\"k\":{\"vv\":5,\"t\":{\"w\":5000000000,\"g\":\"g5\"},\"f\":\"f5\"}},"
                        + "\"arr\":[{\"qq\":\"q5\",\"r\":52}],"
                        + "\"s\":{\"mm\":{\"k\":{\"aa\":53,\"b\":\"b5\"}},\"la\":[[{\"uu\":54,\"k\":55}]]}}"));
        List<List<Object>> fields = List.of(
                row(1L, 1, 11L, null, null, "q1", null, 13, null, 14, null),
                row(2L, 2, null, null, null, null, null, null, null, null, null),
                row(3L, 3, 31L, null, null, "q3", null, 33, null, 34, null),
                row(4L, null, null, null, null, null, null, null, null, null, null),
                row(5L, 5, 5000000000L, "g5", "f5", "q5", 52, 53, "b5", 54, 55));

        assertThat(select(WHOLE, table)).containsExactlyElementsOf(all);
        assertThat(select(FIELDS, table)).containsExactlyElementsOf(fields);
        assertThat(select(WHOLE, "ls.%s.`paths$lake`".formatted(NS))).containsExactlyElementsOf(lakeRows);
        assertStock("paths", lakeRows);
        // the changelog reads every change with the new shapes, also from segments tiered before the changes
        assertThat(rows(testing.sql("SELECT %s FROM ls.%s.`paths$changes` WHERE _change_type = 'upsert' ORDER BY id"
                        .formatted(WHOLE, NS))))
                .containsExactlyElementsOf(all);

        // a log range written with both shapes is tiered into one lake schema
        tier("paths");
        assertThat(rows(testing.sql("SELECT sum(records_behind) FROM ls.%s.`paths$offsets`".formatted(NS))))
                .containsExactly(List.of(0L));
        assertThat(select(WHOLE, table)).containsExactlyElementsOf(all);
        assertThat(select(FIELDS, table)).containsExactlyElementsOf(fields);
        assertThat(select(WHOLE, "ls.%s.`paths$lake`".formatted(NS))).containsExactlyElementsOf(all);
        assertStock("paths", all);

        // and again over lake files that hold the new shapes and the old: a field dropped, one added
        testing.sql("ALTER TABLE %s DROP COLUMN m.value.vv".formatted(table));
        testing.sql("ALTER TABLE %s ADD COLUMN m.value.h INT".formatted(table));
        testing.sql("INSERT INTO %s VALUES (6, map('k', named_struct('t', named_struct('w', 6L, 'g', 'g6'),"
                        .formatted(table)
                + " 'f', 'f6', 'h', 66)), NULL, NULL)");
        List<List<Object>> later = List.of(
                row(1L, "{\"k\":{\"t\":{\"w\":11}}}"),
                row(2L, "{\"k\":{},\"n\":null}"),
                row(3L, "{\"k\":{\"t\":{\"w\":31}}}"),
                row(4L, null),
                row(5L, "{\"k\":{\"t\":{\"w\":5000000000,\"g\":\"g5\"},\"f\":\"f5\"}}"),
                row(6L, "{\"k\":{\"t\":{\"w\":6,\"g\":\"g6\"},\"f\":\"f6\",\"h\":66}}"));
        assertThat(select("id, to_json(m)", table)).containsExactlyElementsOf(later);
        tier("paths");
        assertThat(select("id, to_json(m)", table)).containsExactlyElementsOf(later);
        assertThat(select("id, to_json(m)", "ls.%s.`paths$lake`".formatted(NS))).containsExactlyElementsOf(later);
        stock.execute("REFRESH TABLE %s.%s.paths".formatted(StockIcebergSpark.CATALOG, NS));
        assertThat(stock.query(
                        "SELECT id, to_json(m) FROM %s.%s.paths ORDER BY id".formatted(StockIcebergSpark.CATALOG, NS)))
                .containsExactlyElementsOf(later);
    }

    /**
     * Widening the elements of an array and the values of a map themselves (int to bigint, float to double, decimal
     * precision up): older lake files and log segments are converted, null elements and values kept.
     */
    @Test
    void arrayElementsAndMapValuesWiden() {
        String table = "ls.%s.widened".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, ints ARRAY<INT>, mi MAP<STRING, INT>, mf MAP<STRING, FLOAT>,"
                        .formatted(table)
                + " dd ARRAY<DECIMAL(5, 2)>) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')");
        testing.sql("INSERT INTO %s VALUES (1, array(1, NULL), map('k', 2, 'n', NULL), map('k', CAST(1.5 AS FLOAT)),"
                        .formatted(table)
                + " array(CAST(1.25 AS DECIMAL(5, 2))))");
        tier("widened");
        testing.sql("INSERT INTO %s VALUES (2, array(3), map('k', 4), map('k', CAST(2.5 AS FLOAT)),".formatted(table)
                + " array(CAST(NULL AS DECIMAL(5, 2)), CAST(2.50 AS DECIMAL(5, 2)))), (3, NULL, NULL, NULL, NULL)");
        testing.sql("ALTER TABLE %s ALTER COLUMN ints.element TYPE BIGINT".formatted(table));
        testing.sql("ALTER TABLE %s ALTER COLUMN mi.value TYPE BIGINT".formatted(table));
        testing.sql("ALTER TABLE %s ALTER COLUMN mf.value TYPE DOUBLE".formatted(table));
        testing.sql("ALTER TABLE %s ALTER COLUMN dd.element TYPE DECIMAL(12, 2)".formatted(table));
        testing.sql(
                "INSERT INTO %s VALUES (4, array(5000000000L), map('k', 6000000000L), map('k', 4.25D),".formatted(table)
                        + " array(CAST(1234567890.12 AS DECIMAL(12, 2))))");
        String columns = "id, to_json(ints), to_json(mi), to_json(mf), to_json(dd)";
        List<List<Object>> lakeRows = List.of(row(1L, "[1,null]", "{\"k\":2,\"n\":null}", "{\"k\":1.5}", "[1.25]"));
        List<List<Object>> all = new ArrayList<>(lakeRows);
        all.add(row(2L, "[3]", "{\"k\":4}", "{\"k\":2.5}", "[null,2.50]"));
        all.add(row(3L, null, null, null, null));
        all.add(row(4L, "[5000000000]", "{\"k\":6000000000}", "{\"k\":4.25}", "[1234567890.12]"));
        assertThat(testing.spark().table(table).schema().catalogString())
                .isEqualTo("struct<id:bigint,ints:array<bigint>,mi:map<string,bigint>,mf:map<string,double>,"
                        + "dd:array<decimal(12,2)>>");
        assertThat(select(columns, table)).containsExactlyElementsOf(all);
        assertThat(select(columns, "ls.%s.`widened$lake`".formatted(NS))).containsExactlyElementsOf(lakeRows);
        assertThat(rows(testing.sql("SELECT %s FROM ls.%s.`widened$changes` WHERE _change_type = 'upsert' ORDER BY id"
                        .formatted(columns, NS))))
                .containsExactlyElementsOf(all);
        tier("widened");
        assertThat(select(columns, table)).containsExactlyElementsOf(all);
        assertThat(select(columns, "ls.%s.`widened$lake`".formatted(NS))).containsExactlyElementsOf(all);
        String stockTable = "%s.%s.widened".formatted(StockIcebergSpark.CATALOG, NS);
        stock.execute("REFRESH TABLE " + stockTable);
        assertThat(stock.query("SELECT %s FROM %s ORDER BY id".formatted(columns, stockTable)))
                .containsExactlyElementsOf(all);
    }

    /** A partition source column of an append-only table cannot be dropped (a coded refusal, nothing changed). */
    @Test
    void partitionSourceCannotBeDropped() {
        String table = "ls.%s.parts".formatted(NS);
        testing.sql(
                "CREATE TABLE %s (id BIGINT NOT NULL, region STRING, v INT) PARTITIONED BY (region)".formatted(table)
                        + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO %s VALUES (1, 'eu', 1)".formatted(table));
        assertThatThrownBy(() -> testing.sql("ALTER TABLE %s DROP COLUMN region".formatted(table)))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.SCHEMA_CHANGE_NOT_ALLOWED))
                .hasMessageContaining("source of the partition field 'region'");
        assertThat(select("id, region, v", table)).containsExactly(row(1L, "eu", 1));
    }

    private List<List<Object>> select(String columns, String table) {
        return rows(testing.sql("SELECT %s FROM %s ORDER BY id".formatted(columns, table)));
    }

    /** The stock Iceberg Spark runtime reads the lake with the current schema. */
    private void assertStock(String name, List<List<Object>> expected) {
        String table = "%s.%s.%s".formatted(StockIcebergSpark.CATALOG, NS, name);
        stock.execute("REFRESH TABLE " + table);
        assertThat(stock.query("SELECT %s FROM %s ORDER BY id".formatted(WHOLE, table)))
                .containsExactlyElementsOf(expected);
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }
}
