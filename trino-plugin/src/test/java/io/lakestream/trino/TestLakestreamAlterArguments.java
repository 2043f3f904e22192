package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad arguments of {@code ALTER TABLE} through Trino, and what else the connector takes on columns: comments and
 * structs as map keys. Trino refuses most bad arguments itself before the connector is called (a name taken,
 * ignoring case as Trino folds names; a column that does not exist; a field of a non-row; a map's key or a list's
 * element); what reaches the connector is coded. Either way the table is unchanged.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class TestLakestreamAlterArguments extends AbstractStockIcebergSqlTest {

    @BeforeAll
    void createTable() {
        assertUpdate("CREATE TABLE args (id bigint, v varchar, s row(a integer, b varchar),"
                + " m map(integer, row(x integer)), l array(row(y integer)), n integer)"
                + " WITH (primary_key = ARRAY['id'])");
        assertUpdate(
                "INSERT INTO args VALUES (1, 'one', ROW(1, 'b1'), MAP(ARRAY[1], ARRAY[ROW(10)]), ARRAY[ROW(100)], 7)",
                1);
    }

    @Test
    void trinoRefusesTheseItself() {
        assertRefusedByTrino("ADD COLUMN v varchar", "Column 'v' already exists");
        assertRefusedByTrino("ADD COLUMN V varchar", "Column 'V' already exists");
        assertRefusedByTrino("ADD COLUMN s.A varchar", "Field 'a' already exists");
        assertRefusedByTrino("RENAME COLUMN v TO N", "Column 'n' already exists");
        assertRefusedByTrino("RENAME COLUMN s.a TO B", "Field 'b' already exists");
        assertRefusedByTrino("DROP COLUMN nope", "Column 'nope' does not exist");
        assertRefusedByTrino("DROP COLUMN s.nope", "Cannot resolve field 'nope'");
        assertRefusedByTrino("RENAME COLUMN nope TO x", "Column 'nope' does not exist");
        assertRefusedByTrino("ADD COLUMN v.x integer", "Unsupported type: varchar");
        assertRefusedByTrino("ADD COLUMN m.key.x integer", "Unsupported type: map(integer, row(\"x\" integer))");
        assertRefusedByTrino(
                "ALTER COLUMN m.key SET DATA TYPE bigint", "Field path [m, key] does not point to row field");
        assertRefusedByTrino("DROP COLUMN m.key", "Cannot resolve field 'key'");
        assertRefusedByTrino("DROP COLUMN l.element", "does not point to row field");
        assertRefusedByTrino("RENAME COLUMN l.element TO e", "Unsupported type: array");
    }

    @Test
    void theConnectorRefusesWhatReachesIt() {
        for (String change : new String[] {
            "ALTER COLUMN n SET DATA TYPE varchar",
            "ALTER COLUMN m.value.x SET DATA TYPE varchar",
            "ALTER COLUMN l.element.y SET DATA TYPE varchar"
        }) {
            String before = state();
            assertThat(query("ALTER TABLE args " + change))
                    .failure()
                    .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED)
                    .hasMessageContaining("only widening is supported");
            assertThat(state()).as(change).isEqualTo(before);
        }
    }

    /** A column comment set in Trino is the Iceberg field's doc: shown by Trino and by the stock connector. */
    @Test
    void columnComments() {
        assertUpdate(
                "CREATE TABLE commented (id bigint COMMENT 'the key', c integer) WITH (primary_key = ARRAY['id'])");
        assertUpdate("COMMENT ON COLUMN commented.c IS 'a number'");
        String comments = "SELECT column_name, comment FROM %s.information_schema.columns"
                + " WHERE table_schema = 'tests' AND table_name = 'commented'";
        String expected = "VALUES ('id', 'the key'), ('c', 'a number')";
        assertQuery(comments.formatted("lakestream"), expected);
        assertQuery(comments.formatted("iceberg"), expected);
        assertUpdate("COMMENT ON COLUMN commented.c IS NULL");
        assertQuery(comments.formatted("iceberg"), "VALUES ('id', 'the key'), ('c', NULL)");
    }

    /**
     * A row as a map key ({@code map(row(a integer, b varchar), bigint)}): written to the log (an Arrow map with a
     * struct key), read from the log, tiered to Parquet, read from the lake, from both layers and by the stock
     * connector. (Only read element-wise here: the test client cannot decode a whole map with row keys.)
     */
    @Test
    void rowsAsMapKeys() {
        assertUpdate("CREATE TABLE row_keys (id bigint, m map(row(a integer, b varchar), bigint))"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate(
                "INSERT INTO row_keys VALUES (1, MAP(ARRAY[ROW(1, 'x'), ROW(2, 'y')], ARRAY[10, 20])),"
                        + " (2, MAP(ARRAY[ROW(3, 'z')], ARRAY[30])), (3, NULL)",
                3);
        String read =
                "SELECT id, cardinality(m), element_at(m, ROW(1, 'x')), element_at(m, ROW(2, 'y')), element_at(m, ROW(3, 'z')),"
                        + " transform(map_keys(m), k -> k.b) FROM %s";
        String written = "VALUES (1, 2, 10, 20, NULL, ARRAY['x', 'y']), (2, 1, NULL, NULL, 30, ARRAY['z']),"
                + " (3, NULL, NULL, NULL, NULL, NULL)";
        assertQuery(read.formatted("row_keys"), written);
        tables.tier("row_keys");
        assertQuery(read.formatted("row_keys"), written);
        assertQuery(read.formatted("\"row_keys$lake\""), written);
        assertQuery(read.formatted("iceberg.tests.row_keys"), written);
        // an upsert in the log over a row in the lake
        assertUpdate("INSERT INTO row_keys VALUES (2, MAP(ARRAY[ROW(1, 'x')], ARRAY[11]))", 1);
        assertQuery(
                read.formatted("row_keys"),
                "VALUES (1, 2, 10, 20, NULL, ARRAY['x', 'y']), (2, 1, 11, NULL, NULL, ARRAY['x']),"
                        + " (3, NULL, NULL, NULL, NULL, NULL)");
        tables.tier("row_keys");
        assertQuery(
                read.formatted("iceberg.tests.row_keys") + " WHERE id = 2",
                "VALUES (2, 1, 11, NULL, NULL, ARRAY['x'])");
    }

    private void assertRefusedByTrino(String change, String message) {
        String before = state();
        assertThat(query("ALTER TABLE args " + change)).failure().hasMessageContaining(message);
        assertThat(state()).as(change).isEqualTo(before);
    }

    /** The table's columns and its lake's metadata file (a refused ALTER commits nothing). */
    private String state() {
        return computeActual("SHOW CREATE TABLE args").getOnlyValue() + "\n"
                + computeActual(
                                "SELECT file FROM iceberg.tests.\"args$metadata_log_entries\" ORDER BY timestamp DESC LIMIT 1")
                        .getOnlyValue();
    }
}
