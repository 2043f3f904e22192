package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedResult;
import org.junit.jupiter.api.Test;

/**
 * {@code ALTER TABLE} on fields below the first level of nesting, by every path Trino 483's statements take: rows in
 * rows ({@code s.t.c}), rows in arrays ({@code arr.element.t.r}, arrays of arrays {@code aa.element.element.k}),
 * arrays in rows ({@code s.arr.element.z}) and, for {@code SET DATA TYPE}, rows in map values ({@code m.value.t.w}).
 * Rows written before the changes sit in lake files and in log segments; union reads, {@code $lake},
 * {@code $changes} and Trino's stock Iceberg connector read them with the new shapes (an added field null, a renamed
 * one with its values, a widened one converted, list entries and nulls at every level kept), and a tiering pass
 * over a range written with both shapes writes one lake schema.
 *
 * <p>What Trino 483 refuses before the connector is called, whatever the connector: {@code ADD} and {@code DROP
 * COLUMN} inside a map's values ({@code AddColumnTask} and {@code DropColumnTask} follow an array's {@code element}
 * but no map), {@code RENAME COLUMN} inside an array or a map (it follows rows only), and {@code SET DATA TYPE} of
 * an array's element or a map's value itself (it follows containers to a row field only). Spark takes these paths
 * ({@code TestLakestreamSparkNestedPathEvolution}).
 */
final class TestLakestreamNestedPathEvolution extends AbstractStockIcebergSqlTest {
    private static final String COLUMNS = "id, s.t.a, s.t.name, s.t.c, cardinality(s.arr), element_at(s.arr, 1).x,"
            + " element_at(s.arr, 1).z, cardinality(arr), element_at(arr, 1).t.q, element_at(arr, 1).t.r,"
            + " element_at(element_at(aa, 1), 1).u, element_at(element_at(aa, 1), 1).k, element_at(m, 'k').v,"
            + " element_at(m, 'k').t.w";

    /** Rows 1 and 2 of {@link #COLUMNS}: written before the changes, tiered before them. */
    private static final String LAKE_ROWS = "(1, 10, 'b1', NULL, 1, 11, NULL, 1, 13, NULL, 14, NULL, 15, 16),"
            + " (2, NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL, NULL, NULL, NULL, 25, NULL)";

    /** Rows 3 and 4: written before the changes, in the log only when the changes are made. */
    private static final String LOG_ROWS = "(3, 30, 'b3', NULL, 2, 31, NULL, 1, NULL, NULL, 34, NULL, 35, 36),"
            + " (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";

    /** Row 5: written after the changes, with the new shapes. */
    private static final String NEW_ROW =
            "(5, 50, 'n5', 'c5', 1, 6000000000, 'z5', 1, 53, 'r5', 54, 55, 56, 5000000000)";

    @Test
    void fieldsBelowArraysAndRowsEvolveBetweenWrites() {
        assertUpdate("CREATE TABLE deep (id bigint,"
                + " s row(t row(a integer, b varchar), arr array(row(x integer, y varchar))),"
                + " arr array(row(p integer, t row(q integer))),"
                + " aa array(array(row(u integer))),"
                + " m map(varchar, row(v integer, t row(w integer))))"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate(
                "INSERT INTO deep VALUES"
                        + " (1, ROW(ROW(10, 'b1'), ARRAY[ROW(11, 'y1')]), ARRAY[ROW(12, ROW(13))], ARRAY[ARRAY[ROW(14)]],"
                        + " MAP(ARRAY['k'], ARRAY[ROW(15, ROW(16))])),"
                        + " (2, ROW(NULL, NULL), ARRAY[CAST(NULL AS row(p integer, t row(q integer)))],"
                        + " ARRAY[ARRAY[ROW(NULL)]], MAP(ARRAY['k'], ARRAY[ROW(25, NULL)]))",
                2);
        tables.tier("deep");
        // in the log only, written with the first shapes
        assertUpdate(
                "INSERT INTO deep VALUES"
                        + " (3, ROW(ROW(30, 'b3'), ARRAY[ROW(31, 'y3'), ROW(32, NULL)]), ARRAY[ROW(33, NULL)],"
                        + " ARRAY[ARRAY[ROW(34)], ARRAY[]], MAP(ARRAY['k'], ARRAY[ROW(35, ROW(36))])),"
                        + " (4, NULL, NULL, NULL, NULL)",
                2);

        assertUpdate("ALTER TABLE deep ADD COLUMN s.t.c varchar");
        assertUpdate("ALTER TABLE deep ADD COLUMN s.arr.element.z varchar");
        assertUpdate("ALTER TABLE deep ADD COLUMN arr.element.t.r varchar");
        assertUpdate("ALTER TABLE deep ADD COLUMN aa.element.element.k integer");
        assertUpdate("ALTER TABLE deep ADD COLUMN IF NOT EXISTS aa.element.element.u varchar");
        assertUpdate("ALTER TABLE deep DROP COLUMN arr.element.p");
        assertUpdate("ALTER TABLE deep DROP COLUMN s.arr.element.y");
        assertUpdate("ALTER TABLE deep RENAME COLUMN s.t.b TO name");
        assertUpdate("ALTER TABLE deep ALTER COLUMN s.arr.element.x SET DATA TYPE bigint");
        assertUpdate("ALTER TABLE deep ALTER COLUMN m.value.t.w SET DATA TYPE bigint");
        assertThat(computeActual("SELECT s, arr, aa, m FROM deep").getTypes())
                .hasToString("[row(\"t\" row(\"a\" integer, \"name\" varchar, \"c\" varchar),"
                        + " \"arr\" array(row(\"x\" bigint, \"z\" varchar))),"
                        + " array(row(\"t\" row(\"q\" integer, \"r\" varchar))),"
                        + " array(array(row(\"u\" integer, \"k\" integer))),"
                        + " map(varchar, row(\"v\" integer, \"t\" row(\"w\" bigint)))]");
        assertUpdate(
                "INSERT INTO deep VALUES"
                        + " (5, ROW(ROW(50, 'n5', 'c5'), ARRAY[ROW(6000000000, 'z5')]), ARRAY[ROW(ROW(53, 'r5'))],"
                        + " ARRAY[ARRAY[ROW(54, 55)]], MAP(ARRAY['k'], ARRAY[ROW(56, ROW(5000000000))]))",
                1);

        String all = "VALUES " + LAKE_ROWS + ", " + LOG_ROWS + ", " + NEW_ROW;
        assertQuery("SELECT " + COLUMNS + " FROM deep", all);
        // the lake files written with the first shapes, read with the new ones
        assertQuery("SELECT " + COLUMNS + " FROM \"deep$lake\"", "VALUES " + LAKE_ROWS);
        assertStock("deep");
        // the changelog reads every change with the new shapes, also from segments tiered before the changes
        assertQuery("SELECT " + COLUMNS + " FROM \"deep$changes\" WHERE _change_type = 'upsert'", all);

        // a log range written with both shapes is tiered into one lake schema
        tables.tier("deep");
        assertQuery("SELECT sum(records_behind) FROM \"deep$offsets\"", "VALUES 0");
        assertQuery("SELECT " + COLUMNS + " FROM deep", all);
        assertQuery("SELECT " + COLUMNS + " FROM \"deep$lake\"", all);
        assertStock("deep");
        // whole values: the union read of lake files only equals the stock connector's
        assertThat(computeActual("SELECT id, s, arr, aa, m FROM deep").getMaterializedRows())
                .containsExactlyInAnyOrderElementsOf(computeActual("SELECT id, s, arr, aa, m FROM iceberg.tests.deep")
                        .getMaterializedRows());
    }

    @Test
    void pathsTrinoRefusesBeforeTheConnector() {
        assertUpdate("CREATE TABLE refused_paths (id bigint, arr array(row(p integer, q integer)),"
                + " m map(varchar, row(v integer, w integer)), ints array(integer)) WITH (primary_key = ARRAY['id'])");
        assertThat(query("ALTER TABLE refused_paths ADD COLUMN m.value.f integer"))
                .failure()
                .hasMessage("Unsupported type: map(varchar, row(\"v\" integer, \"w\" integer))");
        assertThat(query("ALTER TABLE refused_paths DROP COLUMN m.value.w"))
                .failure()
                .hasMessageContaining("Cannot resolve field 'value'");
        assertThat(query("ALTER TABLE refused_paths RENAME COLUMN arr.element.p TO pp"))
                .failure()
                .hasMessageContaining("array(row(\"p\" integer, \"q\" integer))");
        // SET DATA TYPE follows arrays and maps to a row field, not to an array's element or a map's value itself
        assertThat(query("ALTER TABLE refused_paths ALTER COLUMN ints.element SET DATA TYPE bigint"))
                .failure()
                .hasMessageContaining("does not point to row field");
        // the stock Iceberg connector is refused the same way: the statement never reaches a connector
        assertUpdate("CREATE TABLE iceberg.tests.stock_paths (id bigint, m map(varchar, row(v integer, w integer)))");
        assertThat(query("ALTER TABLE iceberg.tests.stock_paths ADD COLUMN m.value.f integer"))
                .failure()
                .hasMessage("Unsupported type: map(varchar, row(\"v\" integer, \"w\" integer))");
        assertThat(computeActual("SELECT arr, m, ints FROM refused_paths").getTypes())
                .hasToString(
                        "[array(row(\"p\" integer, \"q\" integer)), map(varchar, row(\"v\" integer, \"w\" integer)),"
                                + " array(integer)]");
    }

    /**
     * A partition source column of an append-only table (a primary-key table's are key columns, refused as keys)
     * cannot be dropped: every lake file and log partition is placed by its values.
     */
    @Test
    void partitionSourceCannotBeDropped() {
        assertUpdate("CREATE TABLE parts_evolve (id bigint NOT NULL, region varchar, v integer)"
                + " WITH (partitioning = ARRAY['region'], bucket_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO parts_evolve VALUES (1, 'eu', 1)", 1);
        assertThat(query("ALTER TABLE parts_evolve DROP COLUMN region"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_NOT_ALLOWED)
                .hasMessageContaining("source of the partition field 'region'");
        assertThat(computeActual("SELECT * FROM parts_evolve").getColumnNames()).containsExactly("id", "region", "v");
        assertQuery("SELECT id, region, v FROM parts_evolve", "VALUES (1, 'eu', 1)");
    }

    private void assertStock(String table) {
        MaterializedResult lake = computeActual("SELECT %s FROM \"%s$lake\"".formatted(COLUMNS, table));
        MaterializedResult stock = computeActual("SELECT %s FROM iceberg.tests.%s".formatted(COLUMNS, table));
        assertThat(stock.getMaterializedRows()).containsExactlyInAnyOrderElementsOf(lake.getMaterializedRows());
        assertThat(stock.getTypes()).isEqualTo(lake.getTypes());
    }
}
