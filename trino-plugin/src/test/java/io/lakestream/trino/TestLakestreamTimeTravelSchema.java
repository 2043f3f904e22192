package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaHistory;
import io.lakestream.testing.WallClock;
import io.trino.testing.MaterializedResult;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

/**
 * Time travel reads the schema of its time ({@link SchemaHistory}): {@code FOR VERSION AS OF} and {@code FOR
 * TIMESTAMP AS OF} a version before an {@code ALTER TABLE} have that version's columns (names, types, order; a
 * column added later is absent, a dropped one present with its values, a renamed one under its old name, a widened
 * one with its old type, also for fields of row columns), a version after it the new ones; whether the rows are in
 * the log or were tiered before or after the ALTER.
 */
final class TestLakestreamTimeTravelSchema extends AbstractStockIcebergSqlTest {
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    @Test
    void primaryKeyTableReadsTheColumnsOfItsVersion() {
        assertUpdate("CREATE TABLE tt_pk (id bigint, a integer, b varchar, f real, s row(x integer, y varchar))"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO tt_pk VALUES (1, 10, 'one', 1.5, ROW(1, 'p')), (2, 20, 'two', 2.5, ROW(2, 'q'))", 2);
        tables.tier("tt_pk");
        // in the log only, written with the first schema
        assertUpdate("INSERT INTO tt_pk VALUES (3, 30, 'three', 3.5, ROW(3, 'r'))", 1);
        long before = version("tt_pk");

        assertUpdate("ALTER TABLE tt_pk ADD COLUMN c varchar");
        assertUpdate("ALTER TABLE tt_pk RENAME COLUMN b TO name");
        assertUpdate("ALTER TABLE tt_pk ALTER COLUMN a SET DATA TYPE bigint");
        assertUpdate("ALTER TABLE tt_pk DROP COLUMN f");
        assertUpdate("ALTER TABLE tt_pk ADD COLUMN s.z varchar");
        assertUpdate("ALTER TABLE tt_pk RENAME COLUMN s.y TO w");
        assertUpdate("INSERT INTO tt_pk VALUES (4, 6000000000, 'four', ROW(4, 's', 'z4'), 'c4')", 1);
        assertUpdate("UPDATE tt_pk SET c = 'c1' WHERE id = 1", 1);
        long after = version("tt_pk");

        String old = "VALUES (1, 10, 'one', 1.5, 1, 'p'), (2, 20, 'two', 2.5, 2, 'q'), (3, 30, 'three', 3.5, 3, 'r')";
        String current = "VALUES (1, 10, 'one', 1, 'p', NULL, 'c1'), (2, 20, 'two', 2, 'q', NULL, NULL),"
                + " (3, 30, 'three', 3, 'r', NULL, NULL), (4, 6000000000, 'four', 4, 's', 'z4', 'c4')";
        // nothing tiered since the ALTER: the old rows come from the lake file and the log as written
        assertOldSchema("tt_pk", before, old);
        assertNewSchema("tt_pk", after, current);
        assertQuery("SELECT id FROM tt_pk FOR VERSION AS OF %s WHERE b = 'two'".formatted(before), "VALUES 2");
        assertQuery("SELECT id FROM tt_pk FOR VERSION AS OF %s WHERE f > 2".formatted(before), "VALUES 2, 3");
        assertQuery("SELECT id FROM tt_pk FOR VERSION AS OF %s WHERE name = 'two'".formatted(after), "VALUES 2");

        // a range written with both schemas tiered into the new one: the read of the old version takes the lake
        // snapshot of its time and the log tail, which still has the dropped column's values
        tables.tier("tt_pk");
        assertOldSchema("tt_pk", before, old);
        assertNewSchema("tt_pk", after, current);
        assertQuery(
                "SELECT id, a, b, f FROM \"tt_pk$lake\" FOR VERSION AS OF %s".formatted(before),
                "VALUES (1, 10, 'one', 1.5), (2, 20, 'two', 2.5)");
        assertQuery(
                "SELECT id, a, b, f FROM \"tt_pk$changes\" FOR VERSION AS OF %s".formatted(before),
                "VALUES (1, 10, 'one', 1.5), (2, 20, 'two', 2.5), (3, 30, 'three', 3.5)");
        // and the newest state is the current schema's
        assertQuery("SELECT id, a, name, s.x, s.w, s.z, c FROM tt_pk", current);
        assertStock("tt_pk", "id, a, name, c");
    }

    /**
     * Tiered right after the ALTER (at the old version) and the log's copy removed by retention: only the lake has the
     * old version, in files written with the new schema. The widened column is converted back to the old type (its
     * values of that time fit); the dropped column is NULL in the rows tiered after the drop, the lake keeps no
     * value of it there.
     */
    @Test
    void versionTieredAfterTheAlterReadsWhatTheLakeKept() {
        assertUpdate("CREATE TABLE tt_lost (id bigint, a integer, f real, d decimal(5, 2), g real)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO tt_lost VALUES (1, 10, 1.5, 1.25, 0.1)", 1);
        tables.tier("tt_lost");
        assertUpdate("INSERT INTO tt_lost VALUES (2, -20, 2.5, -2.50, 0.2)", 1);
        long before = version("tt_lost");
        assertUpdate("ALTER TABLE tt_lost ALTER COLUMN a SET DATA TYPE bigint");
        assertUpdate("ALTER TABLE tt_lost ALTER COLUMN d SET DATA TYPE decimal(12, 2)");
        assertUpdate("ALTER TABLE tt_lost ALTER COLUMN g SET DATA TYPE double");
        assertUpdate("ALTER TABLE tt_lost DROP COLUMN f");
        tables.tier("tt_lost");
        // the newest lake snapshot of the version was written without f; the log still holds the tail of the one
        // before it, so the dropped column's values come back from there
        assertQuery(
                "SELECT id, a, f, d FROM tt_lost FOR VERSION AS OF " + before,
                "VALUES (1, 10, 1.5, 1.25), (2, -20, 2.5, -2.50)");
        LakestreamTable table = tables.load("tt_lost");
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        MaterializedResult result = computeActual("SELECT * FROM tt_lost FOR VERSION AS OF " + before);
        assertThat(result.getColumnNames()).containsExactly("id", "a", "f", "d", "g");
        assertThat(result.getTypes()).hasToString("[bigint, integer, real, decimal(5,2), real]");
        assertQuery(
                "SELECT id, a, f, d, g = REAL '0.1' OR g = REAL '0.2' FROM tt_lost FOR VERSION AS OF " + before,
                "VALUES (1, 10, 1.5, 1.25, true), (2, -20, NULL, -2.50, true)");
        assertQuery("SELECT id, a, d FROM tt_lost", "VALUES (1, 10, 1.25), (2, -20, -2.50)");
        assertStock("tt_lost", "id, a, d");
    }

    /**
     * Fields of a row column widened, then tiered: the version before the ALTER is only in lake files written with
     * the new field types (the log's copy removed), and its fields read back at their old types.
     */
    @Test
    void widenedRowFieldsReadBackAtTheirOldTypes() {
        assertUpdate("CREATE TABLE tt_field (id bigint, s row(x integer, y varchar, g real, d decimal(5, 2)))"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate(
                "INSERT INTO tt_field VALUES (1, ROW(10, 'p', 0.5, 1.25)), (2, ROW(-2000000000, 'q', 2.5, -2.50))", 2);
        long before = version("tt_field");
        assertUpdate("ALTER TABLE tt_field ALTER COLUMN s.x SET DATA TYPE bigint");
        assertUpdate("ALTER TABLE tt_field ALTER COLUMN s.g SET DATA TYPE double");
        assertUpdate("ALTER TABLE tt_field ALTER COLUMN s.d SET DATA TYPE decimal(12, 2)");
        tables.tier("tt_field");
        LakestreamTable table = tables.load("tt_field");
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        MaterializedResult result = computeActual("SELECT * FROM tt_field FOR VERSION AS OF " + before);
        assertThat(result.getTypes())
                .hasToString("[bigint, row(\"x\" integer, \"y\" varchar, \"g\" real, \"d\" decimal(5,2))]");
        assertQuery(
                "SELECT id, s.x, s.y, s.g, s.d FROM tt_field FOR VERSION AS OF " + before,
                "VALUES (1, 10, 'p', 0.5, 1.25), (2, -2000000000, 'q', 2.5, -2.50)");
        assertQuery(
                "SELECT id, s.x, s.g, s.d FROM tt_field", "VALUES (1, 10, 0.5, 1.25), (2, -2000000000, 2.5, -2.50)");
    }

    @Test
    void appendOnlyTableTravelsByTimestamp() {
        assertUpdate("CREATE TABLE tt_ao (id bigint NOT NULL, kind varchar, n integer)"
                + " WITH (bucket_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO tt_ao VALUES (1, 'a', 1), (2, 'b', 2)", 2);
        tables.tier("tt_ao");
        assertUpdate("INSERT INTO tt_ao VALUES (3, 'c', 3)", 1);
        long before = version("tt_ao");
        String beforeTime = lastCommitTime("tt_ao");
        assertUpdate("ALTER TABLE tt_ao ADD COLUMN note varchar");
        assertUpdate("ALTER TABLE tt_ao RENAME COLUMN kind TO category");
        assertUpdate("ALTER TABLE tt_ao ALTER COLUMN n SET DATA TYPE bigint");
        // no log commit since the ALTER: the newest version is still the old schema's
        MaterializedResult newest = computeActual("SELECT * FROM tt_ao FOR VERSION AS OF " + before);
        assertThat(newest.getColumnNames()).containsExactly("id", "kind", "n");
        assertThat(computeActual("SELECT * FROM tt_ao").getColumnNames())
                .containsExactly("id", "category", "n", "note");
        // the next commit gets a time of its own (WallClock), so the timestamp names exactly the version before
        WallClock.awaitPast(LocalDateTime.parse(beforeTime, TIMESTAMP)
                .toInstant(ZoneOffset.UTC)
                .toEpochMilli());
        assertUpdate("INSERT INTO tt_ao VALUES (4, 'd', 4000000000, 'new')", 1);
        tables.tier("tt_ao");
        assertUpdate("ALTER TABLE tt_ao DROP COLUMN category");
        assertUpdate("INSERT INTO tt_ao VALUES (5, 5, 'five')", 1);
        long afterDrop = version("tt_ao");

        MaterializedResult old =
                computeActual("SELECT * FROM tt_ao FOR TIMESTAMP AS OF TIMESTAMP '%s UTC'".formatted(beforeTime));
        assertThat(old.getColumnNames()).containsExactly("id", "kind", "n");
        assertThat(old.getTypes()).hasToString("[bigint, varchar, integer]");
        assertQuery(
                "SELECT * FROM tt_ao FOR TIMESTAMP AS OF TIMESTAMP '%s UTC'".formatted(beforeTime),
                "VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)");
        assertQuery(
                "SELECT * FROM tt_ao FOR VERSION AS OF " + (before + 1),
                "VALUES (1, 'a', 1, NULL), (2, 'b', 2, NULL), (3, 'c', 3, NULL), (4, 'd', 4000000000, 'new')");
        assertThat(computeActual("SELECT * FROM tt_ao FOR VERSION AS OF " + afterDrop)
                        .getColumnNames())
                .containsExactly("id", "n", "note");
        assertQuery(
                "SELECT * FROM tt_ao FOR VERSION AS OF " + afterDrop,
                "VALUES (1, 1, NULL), (2, 2, NULL), (3, 3, NULL), (4, 4000000000, 'new'), (5, 5, 'five')");
        assertStock("tt_ao", "id, n, note");
    }

    private void assertOldSchema(String table, long version, String expected) {
        MaterializedResult result = computeActual("SELECT * FROM %s FOR VERSION AS OF %s".formatted(table, version));
        assertThat(result.getColumnNames()).containsExactly("id", "a", "b", "f", "s");
        assertThat(result.getTypes())
                .hasToString("[bigint, integer, varchar, real, row(\"x\" integer, \"y\" varchar)]");
        assertQuery("SELECT id, a, b, f, s.x, s.y FROM %s FOR VERSION AS OF %s".formatted(table, version), expected);
    }

    private void assertNewSchema(String table, long version, String expected) {
        MaterializedResult result = computeActual("SELECT * FROM %s FOR VERSION AS OF %s".formatted(table, version));
        assertThat(result.getColumnNames()).containsExactly("id", "a", "name", "s", "c");
        assertThat(result.getTypes())
                .hasToString("[bigint, bigint, varchar, row(\"x\" integer, \"w\" varchar, \"z\" varchar), varchar]");
        assertQuery(
                "SELECT id, a, name, s.x, s.w, s.z, c FROM %s FOR VERSION AS OF %s".formatted(table, version),
                expected);
    }

    private void assertStock(String table, String columns) {
        MaterializedResult lake = computeActual("SELECT %s FROM \"%s$lake\"".formatted(columns, table));
        MaterializedResult stock = computeActual("SELECT %s FROM iceberg.tests.%s".formatted(columns, table));
        assertThat(stock.getMaterializedRows()).containsExactlyInAnyOrderElementsOf(lake.getMaterializedRows());
        assertThat(stock.getTypes()).isEqualTo(lake.getTypes());
    }

    private long version(String table) {
        return tables.load(table).log().latestSnapshot().version();
    }

    /** When the newest change of the table was committed, in UTC, to the millisecond. */
    private String lastCommitTime(String table) {
        ZonedDateTime time = (ZonedDateTime)
                computeScalar("SELECT max(_commit_timestamp) AT TIME ZONE 'UTC' FROM \"%s$changes\"".formatted(table));
        return TIMESTAMP.format(time);
    }
}
