package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A table loaded in the session (a DataFrame resolves it once, with its Iceberg table) is read after
 * another process tiered the log and retention removed the tiered range: the read must pin the newer lake
 * and return every row, not fail with "removed by retention before tiering". The expected rows are what
 * the test wrote.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStaleLake {
    private static final String NS = "stale";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void tableLoadedBeforeTieringAndRetentionReadsTheNewerLake() {
        testing.sql("CREATE TABLE ls.stale.counters (id BIGINT, name STRING, score INT) USING lakestream "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.stale.counters VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
        testing.tiering().tier(SparkTables.load(NS, "counters"));

        // loaded in the session now: the frames hold this table (and its lake) until they run
        Dataset<Row> frame = testing.spark().table("ls.stale.counters");
        Dataset<Row> offsets = testing.spark().table("ls.stale.`counters$offsets`");
        testing.sql("INSERT INTO ls.stale.counters VALUES (2, 'b2', 25), (4, 'd', 40)");
        testing.sql("DELETE FROM ls.stale.counters WHERE id = 3");

        // another process, through the Java API: tiering, then retention of everything tiered
        LakestreamTable other = SparkTables.load(NS, "counters");
        testing.tiering().tier(other);
        assertThat(other.log().removeSegments(LakePosition.current(other.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        assertThat(rows(frame.select("id", "name", "score").orderBy("id")))
                .containsExactly(List.of(1L, "a", 10), List.of(2L, "b2", 25), List.of(4L, "d", 40));
        // the lake it reports holds the whole log: nothing is behind
        assertThat(rows(offsets.selectExpr("sum(records_behind)", "sum(lake_offset) = sum(log_end_offset)")))
                .containsExactly(List.of(0L, true));
    }
}
