package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedResult;
import org.junit.jupiter.api.Test;

/**
 * {@code ALTER TABLE} through the connector between writes, with tiering before and after each change: union
 * reads, {@code $lake}, {@code $changes} and Trino's stock Iceberg connector return exactly the rows written, read
 * with the current schema (an added column is NULL in older rows, a renamed column keeps its values, a dropped one
 * is gone, a widened one is converted), whether the older rows are in log segments or lake files.
 */
final class TestLakestreamSchemaEvolution extends AbstractStockIcebergSqlTest {

    @Test
    void primaryKeyTableEvolvesBetweenWrites() {
        assertUpdate("CREATE TABLE pk_evolve (id bigint, a integer, b varchar, f real, d decimal(5, 2))"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO pk_evolve VALUES (1, 10, 'one', 1.5, 1.25), (2, 20, 'two', 2.5, 2.50)", 2);
        tables.tier("pk_evolve");
        // in the log only, written with the first schema
        assertUpdate("INSERT INTO pk_evolve VALUES (3, 30, 'three', 3.5, 3.75)", 1);

        assertUpdate("ALTER TABLE pk_evolve ADD COLUMN c varchar");
        assertUpdate("INSERT INTO pk_evolve VALUES (4, 40, 'four', 4.5, 4.00, 'c4')", 1);
        assertUpdate("UPDATE pk_evolve SET c = 'c1' WHERE id = 1", 1);
        String afterAdd =
                "VALUES (1, 10, 'one', 1.5, 1.25, 'c1'), (2, 20, 'two', 2.5, 2.50, NULL), (3, 30, 'three', 3.5, 3.75, NULL),"
                        + " (4, 40, 'four', 4.5, 4.00, 'c4')";
        assertRows("pk_evolve", "id, a, b, f, d, c", afterAdd);
        tables.tier("pk_evolve");
        assertRows("pk_evolve", "id, a, b, f, d, c", afterAdd);
        assertStock("pk_evolve", "id, a, b, f, d, c");

        assertUpdate("INSERT INTO pk_evolve VALUES (5, 50, 'five', 5.5, 5.50, 'c5')", 1);
        assertUpdate("ALTER TABLE pk_evolve RENAME COLUMN b TO name");
        assertUpdate("ALTER TABLE pk_evolve ALTER COLUMN a SET DATA TYPE bigint");
        assertUpdate("ALTER TABLE pk_evolve ALTER COLUMN f SET DATA TYPE double");
        assertUpdate("ALTER TABLE pk_evolve ALTER COLUMN d SET DATA TYPE decimal(12, 2)");
        assertUpdate("INSERT INTO pk_evolve VALUES (6, 6000000000, 'six', 6.25, 1234567890.12, 'c6')", 1);
        String afterRetype =
                "VALUES (1, 10, 'one', 1.5, 1.25, 'c1'), (2, 20, 'two', 2.5, 2.50, NULL), (3, 30, 'three', 3.5, 3.75, NULL),"
                        + " (4, 40, 'four', 4.5, 4.00, 'c4'), (5, 50, 'five', 5.5, 5.50, 'c5'),"
                        + " (6, 6000000000, 'six', 6.25, 1234567890.12, 'c6')";
        assertThat(computeActual("SELECT a, f, d FROM pk_evolve WHERE id = 5").getTypes())
                .hasToString("[bigint, double, decimal(12,2)]");
        assertRows("pk_evolve", "id, a, name, f, d, c", afterRetype);
        // a log range written with both schemas is tiered into one lake schema
        tables.tier("pk_evolve");
        assertRows("pk_evolve", "id, a, name, f, d, c", afterRetype);
        assertStock("pk_evolve", "id, a, name, f, d, c");

        assertUpdate("INSERT INTO pk_evolve VALUES (7, 70, 'seven', 7.5, 7.00, 'c7')", 1);
        assertUpdate("ALTER TABLE pk_evolve DROP COLUMN f");
        assertUpdate("DELETE FROM pk_evolve WHERE id = 2", 1);
        String afterDrop =
                "VALUES (1, 10, 'one', 1.25, 'c1'), (3, 30, 'three', 3.75, NULL), (4, 40, 'four', 4.00, 'c4'),"
                        + " (5, 50, 'five', 5.50, 'c5'), (6, 6000000000, 'six', 1234567890.12, 'c6'),"
                        + " (7, 70, 'seven', 7.00, 'c7')";
        assertRows("pk_evolve", "id, a, name, d, c", afterDrop);
        assertThat(computeActual("SELECT * FROM pk_evolve").getColumnNames())
                .containsExactly("id", "a", "name", "d", "c");
        tables.tier("pk_evolve");
        assertRows("pk_evolve", "id, a, name, d, c", afterDrop);
        assertStock("pk_evolve", "id, a, name, d, c");

        // the changelog reads every change with the current schema
        assertQuery(
                "SELECT id, a, name, c FROM \"pk_evolve$changes\" WHERE _change_type = 'upsert'",
                "VALUES (1, 10, 'one', NULL), (2, 20, 'two', NULL), (3, 30, 'three', NULL), (4, 40, 'four', 'c4'),"
                        + " (1, 10, 'one', 'c1'), (5, 50, 'five', 'c5'), (6, 6000000000, 'six', 'c6'), (7, 70, 'seven', 'c7')");
        assertQuery("SELECT sum(records_behind) FROM \"pk_evolve$offsets\"", "VALUES 0");
    }

    @Test
    void appendOnlyTableEvolvesBetweenWrites() {
        assertUpdate("CREATE TABLE ao_evolve (id bigint NOT NULL, kind varchar, n integer)"
                + " WITH (bucket_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO ao_evolve VALUES (1, 'a', 1), (2, 'b', 2)", 2);
        tables.tier("ao_evolve");
        assertUpdate("INSERT INTO ao_evolve VALUES (3, 'c', 3)", 1);
        assertUpdate("ALTER TABLE ao_evolve ADD COLUMN note varchar");
        assertUpdate("ALTER TABLE ao_evolve RENAME COLUMN kind TO category");
        assertUpdate("ALTER TABLE ao_evolve ALTER COLUMN n SET DATA TYPE bigint");
        assertUpdate("INSERT INTO ao_evolve VALUES (4, 'd', 4000000000, 'new')", 1);
        String rows = "VALUES (1, 'a', 1, NULL), (2, 'b', 2, NULL), (3, 'c', 3, NULL), (4, 'd', 4000000000, 'new')";
        assertRows("ao_evolve", "id, category, n, note", rows);
        tables.tier("ao_evolve");
        assertRows("ao_evolve", "id, category, n, note", rows);
        assertStock("ao_evolve", "id, category, n, note");

        assertUpdate("ALTER TABLE ao_evolve DROP COLUMN category");
        assertUpdate("INSERT INTO ao_evolve VALUES (5, 5, 'five')", 1);
        String dropped = "VALUES (1, 1, NULL), (2, 2, NULL), (3, 3, NULL), (4, 4000000000, 'new'), (5, 5, 'five')";
        assertRows("ao_evolve", "id, n, note", dropped);
        tables.tier("ao_evolve");
        assertRows("ao_evolve", "id, n, note", dropped);
        assertStock("ao_evolve", "id, n, note");
    }

    @Test
    void rowFieldsEvolveBetweenWrites() {
        assertUpdate("CREATE TABLE pk_row (id bigint, s row(a integer, b varchar, f real), v integer)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO pk_row VALUES (1, ROW(10, 'one', 1.5), 1), (2, ROW(20, 'two', 2.5), 2)", 2);
        tables.tier("pk_row");
        // in the log only, written with the first row type
        assertUpdate("INSERT INTO pk_row VALUES (3, ROW(30, 'three', 3.5), 3), (4, NULL, 4)", 2);

        assertUpdate("ALTER TABLE pk_row ADD COLUMN s.c varchar");
        assertUpdate("ALTER TABLE pk_row RENAME COLUMN s.b TO name");
        assertUpdate("ALTER TABLE pk_row ALTER COLUMN s.a SET DATA TYPE bigint");
        assertUpdate("ALTER TABLE pk_row DROP COLUMN s.f");
        assertThat(computeActual("SELECT s FROM pk_row").getTypes())
                .hasToString("[row(\"a\" bigint, \"name\" varchar, \"c\" varchar)]");
        assertUpdate("INSERT INTO pk_row VALUES (5, ROW(6000000000, 'five', 'c5'), 5)", 1);
        assertUpdate("UPDATE pk_row SET s = ROW(11, 'one', 'c1') WHERE id = 1", 1);
        String rows = "VALUES (1, 11, 'one', 'c1', 1), (2, 20, 'two', NULL, 2), (3, 30, 'three', NULL, 3),"
                + " (4, NULL, NULL, NULL, 4), (5, 6000000000, 'five', 'c5', 5)";
        String columns = "id, s.a, s.name, s.c, v";
        assertRows("pk_row", columns, rows);
        assertQuery("SELECT count(*) FROM pk_row WHERE s IS NULL", "VALUES 1");
        assertQuery(
                "SELECT id, s.a, s.name, s.c FROM \"pk_row$changes\" WHERE _change_type = 'upsert'",
                "VALUES (1, 10, 'one', NULL), (2, 20, 'two', NULL), (3, 30, 'three', NULL), (4, NULL, NULL, NULL),"
                        + " (5, 6000000000, 'five', 'c5'), (1, 11, 'one', 'c1')");
        // a log range written with both row types is tiered into one lake schema
        tables.tier("pk_row");
        assertQuery("SELECT sum(records_behind) FROM \"pk_row$offsets\"", "VALUES 0");
        assertRows("pk_row", columns, rows);
        assertRows("\"pk_row$lake\"", columns, rows);
        assertStock("pk_row", columns);

        // and again after the lake holds the old row type: a field added and one dropped read from lake files
        assertUpdate("ALTER TABLE pk_row ADD COLUMN s.d double");
        assertUpdate("ALTER TABLE pk_row DROP COLUMN s.name");
        assertUpdate("INSERT INTO pk_row VALUES (6, ROW(60, 'c6', 6.5), 6)", 1);
        String later = "VALUES (1, 11, 'c1', NULL), (2, 20, NULL, NULL), (3, 30, NULL, NULL), (4, NULL, NULL, NULL),"
                + " (5, 6000000000, 'c5', NULL), (6, 60, 'c6', 6.5)";
        assertRows("pk_row", "id, s.a, s.c, s.d", later);
        tables.tier("pk_row");
        assertRows("pk_row", "id, s.a, s.c, s.d", later);
        assertStock("pk_row", "id, s.a, s.c, s.d");
    }

    @Test
    void rowFieldChangesAreChecked() {
        assertUpdate("CREATE TABLE row_checks (id bigint, s row(a integer, b varchar))"
                + " WITH (primary_key = ARRAY['id'])");
        assertThat(query("ALTER TABLE row_checks ALTER COLUMN s.a SET DATA TYPE varchar"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED)
                .hasMessageContaining("only widening is supported");
        assertUpdate("ALTER TABLE row_checks ADD COLUMN IF NOT EXISTS s.a varchar");
        assertThat(computeActual("SELECT s FROM row_checks").getTypes())
                .hasToString("[row(\"a\" integer, \"b\" varchar)]");
    }

    /**
     * Iceberg holds nanosecond timestamps only as timestamp_ns of format version 3, and no char type; the lake is
     * version 2. So timestamp(9), time(9) and char(n) are refused in CREATE TABLE and ADD COLUMN, naming the
     * supported types, instead of rounding every value to microseconds; lower precisions are stored losslessly
     * as microseconds.
     */
    @Test
    void typesTheLakeCannotHoldAreRefused() {
        for (String type : new String[] {"timestamp(9)", "timestamp(7) with time zone", "time(9)", "char(3)"}) {
            assertThat(query("CREATE TABLE refused_type (id bigint, c %s)".formatted(type)))
                    .as(type)
                    .failure()
                    .hasErrorCode(LakestreamErrorCode.LAKESTREAM_UNSUPPORTED_TYPE)
                    .hasMessageContaining("Unsupported type: " + type)
                    .hasMessageContaining("timestamp(6)");
        }
        assertUpdate("CREATE TABLE kept_types (id bigint, ts timestamp(3))");
        for (String type : new String[] {"timestamp(9)", "char(3)"}) {
            assertThat(query("ALTER TABLE kept_types ADD COLUMN c " + type))
                    .as(type)
                    .failure()
                    .hasErrorCode(LakestreamErrorCode.LAKESTREAM_UNSUPPORTED_TYPE)
                    .hasMessageContaining("Unsupported type: " + type);
        }
        assertThat(computeActual("SELECT * FROM kept_types").getTypes()).hasToString("[bigint, timestamp(6)]");
    }

    @Test
    void dropNotNullAndTableComment() {
        assertUpdate("CREATE TABLE nn_evolve (id bigint, v varchar NOT NULL) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO nn_evolve VALUES (1, 'one')", 1);
        tables.tier("nn_evolve");
        assertThat(query("INSERT INTO nn_evolve VALUES (2, NULL)"))
                .failure()
                .hasMessageContaining("NULL value not allowed");
        assertUpdate("ALTER TABLE nn_evolve ALTER COLUMN v DROP NOT NULL");
        assertUpdate("INSERT INTO nn_evolve VALUES (2, NULL)", 1);
        assertRows("nn_evolve", "id, v", "VALUES (1, 'one'), (2, NULL)");
        tables.tier("nn_evolve");
        assertRows("nn_evolve", "id, v", "VALUES (1, 'one'), (2, NULL)");
        assertStock("nn_evolve", "id, v");
        assertThat(query("ALTER TABLE nn_evolve ALTER COLUMN id DROP NOT NULL"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_NOT_ALLOWED);

        assertUpdate("COMMENT ON TABLE nn_evolve IS 'numbers'");
        assertQuery(
                "SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'lakestream' AND table_name = 'nn_evolve'",
                "VALUES 'numbers'");
        assertQuery(
                "SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'iceberg' AND table_name = 'nn_evolve'",
                "VALUES 'numbers'");
        assertUpdate("COMMENT ON TABLE nn_evolve IS NULL");
        assertQuery(
                "SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'lakestream' AND table_name = 'nn_evolve'",
                "VALUES NULL");
        assertRows("nn_evolve", "id, v", "VALUES (1, 'one'), (2, NULL)");
    }

    @Test
    void keyColumnsCannotChange() {
        assertUpdate("CREATE TABLE pk_keys (id bigint, region varchar, v integer)"
                + " WITH (primary_key = ARRAY['id', 'region'], bucket_key = ARRAY['region'], bucket_count = 2)");
        for (String change : new String[] {
            "DROP COLUMN id", "RENAME COLUMN region TO area", "ALTER COLUMN id SET DATA TYPE decimal(20, 0)"
        }) {
            assertThat(query("ALTER TABLE pk_keys " + change))
                    .failure()
                    .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_NOT_ALLOWED)
                    .hasMessageContaining("primary-key or bucket-key column");
        }
        assertThat(query("ALTER TABLE pk_keys ALTER COLUMN v SET DATA TYPE varchar"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED)
                .hasMessageContaining("only widening is supported");
        assertThat(query("ALTER TABLE pk_keys ADD COLUMN w integer NOT NULL"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED);
        // nothing was changed by the refused statements
        assertThat(computeActual("SELECT * FROM pk_keys").getColumnNames()).containsExactly("id", "region", "v");
    }

    @Test
    void renameTableKeepsRowsInBothLayers() {
        assertUpdate("CREATE TABLE before_rename (id bigint, v varchar) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO before_rename VALUES (1, 'lake')", 1);
        tables.tier("before_rename");
        assertUpdate("INSERT INTO before_rename VALUES (2, 'log')", 1);
        assertUpdate("ALTER TABLE before_rename RENAME TO after_rename");
        assertQuery("SELECT id, v FROM after_rename", "VALUES (1, 'lake'), (2, 'log')");
        assertUpdate("INSERT INTO after_rename VALUES (3, 'new')", 1);
        tables.tier("after_rename");
        assertQuery("SELECT id, v FROM \"after_rename$lake\"", "VALUES (1, 'lake'), (2, 'log'), (3, 'new')");
        assertThat(query("SELECT * FROM before_rename")).failure().hasMessageContaining("does not exist");
    }

    private void assertRows(String table, String columns, String expected) {
        assertQuery("SELECT %s FROM %s".formatted(columns, table), expected);
    }

    private void assertStock(String table, String columns) {
        MaterializedResult lake = computeActual("SELECT %s FROM \"%s$lake\"".formatted(columns, table));
        MaterializedResult stock = computeActual("SELECT %s FROM iceberg.tests.%s".formatted(columns, table));
        assertThat(stock.getMaterializedRows()).containsExactlyInAnyOrderElementsOf(lake.getMaterializedRows());
        assertThat(stock.getTypes()).isEqualTo(lake.getTypes());
    }
}
