package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code t$offsets} and reads that name where in the log they start ({@code t$changes} filtered on {@code _offset}, the
 * read option {@code changes-after-version}) after every kind of {@code ALTER TABLE}: the offsets count the rows
 * written with each schema, and the rows read with the current schema (an added column NULL in older rows, a renamed
 * one with its values, a widened one converted, a dropped one absent), before and after tiering.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkOffsetsSchemaChange {
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls.osc");
    }

    @Test
    void offsetsAndTheirRowsAcrossEveryKindOfChange() {
        // one bucket: offset n is the n-th row written
        testing.sql("CREATE TABLE ls.osc.t (id BIGINT NOT NULL, a INT, b STRING, c STRING)"
                + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='1')");
        testing.sql("INSERT INTO ls.osc.t VALUES (0, 0, 'b0', 'c0'), (1, 10, 'b1', 'c1')");
        long beforeChanges = SparkTables.logVersion("osc", "t");
        testing.sql("ALTER TABLE ls.osc.t ADD COLUMNS (n STRING)");
        testing.sql("INSERT INTO ls.osc.t VALUES (2, 20, 'b2', 'c2', 'n2')");
        testing.sql("ALTER TABLE ls.osc.t RENAME COLUMN b TO name");
        testing.sql("INSERT INTO ls.osc.t VALUES (3, 30, 'b3', 'c3', 'n3')");
        testing.sql("ALTER TABLE ls.osc.t ALTER COLUMN a TYPE BIGINT");
        testing.sql("INSERT INTO ls.osc.t VALUES (4, 4000000000, 'b4', 'c4', 'n4')");
        testing.sql("ALTER TABLE ls.osc.t DROP COLUMN c");
        testing.sql("INSERT INTO ls.osc.t VALUES (5, 50, 'b5', 'n5')");

        String offsets =
                "SELECT partition, bucket, lake_offset, log_end_offset, records_behind FROM ls.osc.`t$offsets`";
        assertThat(rows(testing.sql(offsets))).containsExactly(row(null, 0, 0L, 6L, 6L));
        List<List<Object>> fromOne = List.of(
                row(1L, 1L, 10L, "b1", null),
                row(2L, 2L, 20L, "b2", "n2"),
                row(3L, 3L, 30L, "b3", "n3"),
                row(4L, 4L, 4000000000L, "b4", "n4"),
                row(5L, 5L, 50L, "b5", "n5"));
        String atOffsets = "SELECT _offset, id, a, name, n FROM ls.osc.`t$changes` WHERE _offset >= 1 ORDER BY _offset";
        assertThat(rows(testing.sql(atOffsets))).isEqualTo(fromOne);
        assertThat(testing.spark().table("ls.osc.`t$changes`").schema().fieldNames())
                .containsExactly("_change_type", "_bucket", "_offset", "_commit_timestamp", "id", "a", "name", "n");
        // the changes after the first insert's version: every row written since, with the current schema
        List<List<Object>> afterVersion = rows(testing.spark()
                .read()
                .format("lakestream")
                .option("catalog", "ls")
                .option("table", "osc.t")
                .option("read-mode", "changes")
                .option("changes-after-version", Long.toString(beforeChanges))
                .load()
                .selectExpr("_offset", "id", "a", "name", "n")
                .orderBy("_offset"));
        assertThat(afterVersion).isEqualTo(fromOne.subList(1, fromOne.size()));

        testing.tiering().tier(SparkTables.load("osc", "t"));
        assertThat(rows(testing.sql(offsets))).containsExactly(row(null, 0, 6L, 6L, 0L));
        // the log still holds the range (retention has not run): the same rows at the same offsets
        assertThat(rows(testing.sql(atOffsets))).isEqualTo(fromOne);
        assertThat(rows(testing.sql("SELECT id, a, name, n FROM ls.osc.t ORDER BY id")))
                .containsExactly(
                        row(0L, 0L, "b0", null),
                        row(1L, 10L, "b1", null),
                        row(2L, 20L, "b2", "n2"),
                        row(3L, 30L, "b3", "n3"),
                        row(4L, 4000000000L, "b4", "n4"),
                        row(5L, 50L, "b5", "n5"));
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }
}
