package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Time travel through Spark reads the schema of its time: {@code VERSION AS OF} / {@code TIMESTAMP AS OF} and the
 * {@code versionAsOf} read option of a version before an {@code ALTER TABLE} have that version's columns (a column
 * added later absent, a dropped one with its values, a renamed one under its old name, a widened one with its old
 * type, also for fields of struct columns); a version after it the new ones; before and after tiering.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkTimeTravelSchema {
    private static final String NS = "ttsch";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void primaryKeyTableReadsTheColumnsOfItsVersion() {
        testing.sql("CREATE TABLE ls.ttsch.pk (id BIGINT, a INT, b STRING, f FLOAT, s STRUCT<x: INT, y: STRING>)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.ttsch.pk VALUES (1, 10, 'one', 1.5, named_struct('x', 1, 'y', 'p')),"
                + " (2, 20, 'two', 2.5, named_struct('x', 2, 'y', 'q'))");
        tier("pk");
        // in the log only, written with the first schema
        testing.sql("INSERT INTO ls.ttsch.pk VALUES (3, 30, 'three', 3.5, named_struct('x', 3, 'y', 'r'))");
        long before = SparkTables.logVersion(NS, "pk");
        String beforeTime = testing.sql("SELECT date_format(max(_commit_timestamp), 'yyyy-MM-dd HH:mm:ss.SSSSSS')"
                        + " FROM ls.ttsch.`pk$changes`")
                .first()
                .getString(0);

        testing.sql("ALTER TABLE ls.ttsch.pk ADD COLUMN c STRING");
        testing.sql("ALTER TABLE ls.ttsch.pk RENAME COLUMN b TO name");
        testing.sql("ALTER TABLE ls.ttsch.pk ALTER COLUMN a TYPE BIGINT");
        testing.sql("ALTER TABLE ls.ttsch.pk DROP COLUMN f");
        testing.sql("ALTER TABLE ls.ttsch.pk ADD COLUMN s.z STRING");
        testing.sql("ALTER TABLE ls.ttsch.pk RENAME COLUMN s.y TO w");
        testing.sql("INSERT INTO ls.ttsch.pk VALUES (4, 6000000000, 'four', named_struct('x', 4, 'w', 's', 'z', 'z4'),"
                + " 'c4')");
        testing.sql("UPDATE ls.ttsch.pk SET c = 'c1' WHERE id = 1");
        long after = SparkTables.logVersion(NS, "pk");

        List<List<Object>> old = List.of(
                row(1L, 10, "one", 1.5f, 1, "p"), row(2L, 20, "two", 2.5f, 2, "q"), row(3L, 30, "three", 3.5f, 3, "r"));
        List<List<Object>> current = List.of(
                row(1L, 10L, "one", 1, "p", null, "c1"),
                row(2L, 20L, "two", 2, "q", null, null),
                row(3L, 30L, "three", 3, "r", null, null),
                row(4L, 6000000000L, "four", 4, "s", "z4", "c4"));
        assertOldSchema("VERSION AS OF " + before, old);
        assertOldSchema("TIMESTAMP AS OF '%s'".formatted(beforeTime), old);
        assertNewSchema(after, current);
        assertThat(rows(testing.sql(
                        "SELECT id FROM ls.ttsch.pk VERSION AS OF %s WHERE b = 'two' OR f > 3".formatted(before))))
                .containsExactlyInAnyOrder(row(2L), row(3L));
        // the read option too
        StructType option = testing.spark()
                .read()
                .option("versionAsOf", before)
                .table("ls.ttsch.pk")
                .schema();
        assertThat(option.fieldNames()).containsExactly("id", "a", "b", "f", "s");

        // a range written with both schemas tiered into the new one: the old version still has the dropped column's
        // values (an older lake snapshot and the log tail)
        tier("pk");
        assertOldSchema("VERSION AS OF " + before, old);
        assertNewSchema(after, current);
        assertThat(rows(testing.sql(
                        "SELECT id, a, b, f FROM ls.ttsch.`pk$lake` VERSION AS OF %s ORDER BY id".formatted(before))))
                .containsExactly(row(1L, 10, "one", 1.5f), row(2L, 20, "two", 2.5f));
        assertThat(rows(testing.sql("SELECT id, a, name, s.x, s.w, s.z, c FROM ls.ttsch.pk ORDER BY id")))
                .containsExactlyElementsOf(current);
    }

    /**
     * Tiered right after the ALTER and the log's copy removed: the widened column is converted back to its old type,
     * the dropped column is NULL in the rows tiered after the drop (the lake keeps no value of it there).
     */
    @Test
    void versionTieredAfterTheAlterReadsWhatTheLakeKept() {
        testing.sql("CREATE TABLE ls.ttsch.lost (id BIGINT, a INT, f FLOAT, d DECIMAL(5, 2), g FLOAT)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.ttsch.lost VALUES (1, 10, 1.5, 1.25, 0.1)");
        tier("lost");
        testing.sql("INSERT INTO ls.ttsch.lost VALUES (2, -20, 2.5, -2.50, 0.2)");
        long before = SparkTables.logVersion(NS, "lost");
        testing.sql("ALTER TABLE ls.ttsch.lost ALTER COLUMN a TYPE BIGINT");
        testing.sql("ALTER TABLE ls.ttsch.lost ALTER COLUMN d TYPE DECIMAL(12, 2)");
        testing.sql("ALTER TABLE ls.ttsch.lost ALTER COLUMN g TYPE DOUBLE");
        testing.sql("ALTER TABLE ls.ttsch.lost DROP COLUMN f");
        tier("lost");
        // the newest lake snapshot of the version was written without f; the log still holds the tail of the one
        // before it, so the dropped column's values come back from there
        assertThat(rows(testing.sql(
                        "SELECT id, a, f, d FROM ls.ttsch.lost VERSION AS OF %s ORDER BY id".formatted(before))))
                .containsExactly(row(1L, 10, 1.5f, dec("1.25")), row(2L, -20, 2.5f, dec("-2.50")));
        LakestreamTable table = SparkTables.load(NS, "lost");
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        StructType schema = testing.sql("SELECT * FROM ls.ttsch.lost VERSION AS OF " + before)
                .schema();
        assertThat(schema.simpleString()).isEqualTo("struct<id:bigint,a:int,f:float,d:decimal(5,2),g:float>");
        assertThat(rows(testing.sql("SELECT * FROM ls.ttsch.lost VERSION AS OF %s ORDER BY id".formatted(before))))
                .containsExactly(row(1L, 10, 1.5f, dec("1.25"), 0.1f), row(2L, -20, null, dec("-2.50"), 0.2f));
        assertThat(rows(testing.sql("SELECT * FROM ls.ttsch.lost ORDER BY id")))
                .containsExactly(row(1L, 10L, dec("1.25"), (double) 0.1f), row(2L, -20L, dec("-2.50"), (double) 0.2f));
    }

    /**
     * Fields of a struct column widened, then tiered: the version before the ALTER is only in lake files written with
     * the new field types (the log's copy removed), and its fields read back at their old types.
     */
    @Test
    void widenedStructFieldsReadBackAtTheirOldTypes() {
        testing.sql("CREATE TABLE ls.ttsch.field (id BIGINT, s STRUCT<x: INT, y: STRING, g: FLOAT, d: DECIMAL(5, 2)>)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.ttsch.field VALUES (1, named_struct('x', 10, 'y', 'p', 'g', 0.5, 'd', 1.25)),"
                + " (2, named_struct('x', -2000000000, 'y', 'q', 'g', 2.5, 'd', -2.50))");
        long before = SparkTables.logVersion(NS, "field");
        testing.sql("ALTER TABLE ls.ttsch.field ALTER COLUMN s.x TYPE BIGINT");
        testing.sql("ALTER TABLE ls.ttsch.field ALTER COLUMN s.g TYPE DOUBLE");
        testing.sql("ALTER TABLE ls.ttsch.field ALTER COLUMN s.d TYPE DECIMAL(12, 2)");
        tier("field");
        LakestreamTable table = SparkTables.load(NS, "field");
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        StructType schema = testing.sql("SELECT * FROM ls.ttsch.field VERSION AS OF " + before)
                .schema();
        assertThat(schema.simpleString())
                .isEqualTo("struct<id:bigint,s:struct<x:int,y:string,g:float,d:decimal(5,2)>>");
        assertThat(rows(testing.sql("SELECT id, s.x, s.y, s.g, s.d FROM ls.ttsch.field VERSION AS OF %s ORDER BY id"
                        .formatted(before))))
                .containsExactly(row(1L, 10, "p", 0.5f, dec("1.25")), row(2L, -2000000000, "q", 2.5f, dec("-2.50")));
        assertThat(rows(testing.sql("SELECT id, s.x, s.g, s.d FROM ls.ttsch.field ORDER BY id")))
                .containsExactly(row(1L, 10L, 0.5, dec("1.25")), row(2L, -2000000000L, 2.5, dec("-2.50")));
    }

    private void assertOldSchema(String travel, List<List<Object>> expected) {
        StructType schema = testing.sql("SELECT * FROM ls.ttsch.pk " + travel).schema();
        assertThat(schema.simpleString())
                .isEqualTo("struct<id:bigint,a:int,b:string,f:float,s:struct<x:int,y:string>>");
        assertThat(rows(testing.sql("SELECT id, a, b, f, s.x, s.y FROM ls.ttsch.pk %s ORDER BY id".formatted(travel))))
                .containsExactlyElementsOf(expected);
    }

    private void assertNewSchema(long version, List<List<Object>> expected) {
        StructType schema = testing.sql("SELECT * FROM ls.ttsch.pk VERSION AS OF " + version)
                .schema();
        assertThat(schema.simpleString())
                .isEqualTo("struct<id:bigint,a:bigint,name:string,s:struct<x:int,w:string,z:string>,c:string>");
        assertThat(rows(testing.sql("SELECT id, a, name, s.x, s.w, s.z, c FROM ls.ttsch.pk VERSION AS OF %s ORDER BY id"
                        .formatted(version))))
                .containsExactlyElementsOf(expected);
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    private static BigDecimal dec(String value) {
        return new BigDecimal(value);
    }
}
