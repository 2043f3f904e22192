package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import org.apache.iceberg.BaseTable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Bad arguments of {@code ALTER TABLE} through Spark. Spark's analyzer refuses most itself before the catalog is
 * called (a name taken, ignoring case; a column that does not exist; a field of a non-struct); what reaches the
 * catalog (a change inside a map's key, a drop of a map's key or value or a list's element) is {@code
 * SCHEMA_CHANGE_UNSUPPORTED} saying what to do. Either way the table's metadata is not touched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkAlterArguments {
    private static final String TABLE = "ls.alterargs.t";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createTable() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls.alterargs");
        testing.sql("CREATE TABLE " + TABLE + " (id BIGINT, v STRING, s STRUCT<a: INT, b: STRING>,"
                + " m MAP<INT, STRUCT<x: INT>>, l ARRAY<STRUCT<y: INT>>, n INT)");
        testing.sql("INSERT INTO " + TABLE + " VALUES (1, 'one', named_struct('a', 1, 'b', 'b1'),"
                + " map(1, named_struct('x', 10)), array(named_struct('y', 100)), 7)");
    }

    @Test
    void sparkRefusesTheseItself() {
        assertRefusedBySpark("ADD COLUMN V STRING", "FIELD_ALREADY_EXISTS");
        assertRefusedBySpark("ADD COLUMN s.A STRING", "FIELD_ALREADY_EXISTS");
        assertRefusedBySpark("ADD COLUMNS (x INT, X INT)", "COLUMN_ALREADY_EXISTS");
        assertRefusedBySpark("RENAME COLUMN v TO N", "FIELD_ALREADY_EXISTS");
        assertRefusedBySpark("RENAME COLUMN s.a TO b", "FIELD_ALREADY_EXISTS");
        assertRefusedBySpark("DROP COLUMN nope", "UNRESOLVED_COLUMN");
        assertRefusedBySpark("DROP COLUMN s.nope", "UNRESOLVED_COLUMN");
        assertRefusedBySpark("RENAME COLUMN nope TO x", "UNRESOLVED_COLUMN");
        assertRefusedBySpark("ALTER COLUMN nope COMMENT 'x'", "UNRESOLVED_COLUMN");
        assertRefusedBySpark("ADD COLUMN v.x INT", "`v` is not a struct");
        assertRefusedBySpark("ADD COLUMN m.key.x INT", "is not a struct");
        assertRefusedBySpark("RENAME COLUMN m.key TO k", "is not a struct");
        assertRefusedBySpark("RENAME COLUMN l.element TO e", "is not a struct");
    }

    @Test
    void theCatalogRefusesWhatReachesIt() {
        assertRefusedByLakestream(
                "ALTER COLUMN m.key TYPE BIGINT",
                "'m.key' cannot be retyped: it is in the key of the map column 'm'",
                "Add a new column of the map type you want");
        assertRefusedByLakestream("DROP COLUMN m.key", "'m.key' cannot be dropped: it is in the key");
        assertRefusedByLakestream(
                "DROP COLUMN m.value",
                "'m.value' cannot be dropped: a map's value and a list's element are part of the type of 'm'",
                "drop the column 'm'");
        assertRefusedByLakestream("DROP COLUMN l.element", "'l.element' cannot be dropped");
        assertRefusedByLakestream("ALTER COLUMN n TYPE STRING", "only widening is supported");
        assertRefusedByLakestream("ALTER COLUMN m.value.x TYPE STRING", "only widening is supported");
        assertThat(SparkTesting.rows(testing.sql("SELECT id, v, s.a, m[1].x, l[0].y, n FROM " + TABLE)))
                .containsExactly(java.util.Arrays.asList(1L, "one", 1, 10, 100, 7));
    }

    private void assertRefusedBySpark(String change, String message) {
        String before = metadataLocation();
        assertThatThrownBy(() -> testing.sql("ALTER TABLE %s %s".formatted(TABLE, change)))
                .as(change)
                .isNotInstanceOf(LakestreamException.class)
                .hasMessageContaining(message);
        assertThat(metadataLocation()).as(change).isEqualTo(before);
    }

    private void assertRefusedByLakestream(String change, String... message) {
        String before = metadataLocation();
        assertThatThrownBy(() -> testing.sql("ALTER TABLE %s %s".formatted(TABLE, change)))
                .as(change)
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.SCHEMA_CHANGE_UNSUPPORTED))
                .hasMessageContainingAll(message);
        assertThat(metadataLocation()).as(change).isEqualTo(before);
    }

    private static String metadataLocation() {
        return ((BaseTable) SparkTables.load("alterargs", "t").lake())
                .operations()
                .current()
                .metadataFileLocation();
    }
}
