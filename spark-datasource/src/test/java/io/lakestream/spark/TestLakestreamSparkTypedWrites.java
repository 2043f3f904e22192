package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.bucket.BucketFunction;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Spark writes through the typed row path ({@code LakestreamRowSetter} into the writer's {@code
 * RowBuffer}): thousands of generated rows of every type Spark writes, with nulls, multi-byte
 * strings, negative decimals and timestamps before 1970, go in with {@code INSERT ... SELECT} (rows
 * as Spark's {@code UnsafeRow}s, strings inside them), {@code DELETE} and {@code UPDATE}, and must
 * read back exactly as Spark computed them (the oracle: Spark's own result of the same query), from
 * the log and after tiering, each row in the bucket the shared bucket function gives for its key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkTypedWrites {
    private static final String NS = "typed";
    private static final int ROWS = 5000;
    private static final String COLUMNS = "id BIGINT, s STRING, dec DECIMAL(10, 2), b BOOLEAN, i INT, f FLOAT, "
            + "d DOUBLE, wide DECIMAL(30, 6), day DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, text STRING, bin BINARY";
    /** Every value column is null in some rows; the key (id, s, dec) never. */
    private static final String SOURCE = "SELECT id, "
            + "concat('k', id % 97, repeat('ü世🌍', CAST(id % 4 AS INT))) AS s, "
            + "CAST((id % 2001 - 1000) / 100.0 AS DECIMAL(10, 2)) AS dec, "
            + "IF(id % 5 = 0, NULL, id % 2 = 0) AS b, "
            + "IF(id % 6 = 0, NULL, CAST(id * 7919 % 100000 - 50000 AS INT)) AS i, "
            + "IF(id % 7 = 0, NULL, CAST(id / 3.0 AS FLOAT)) AS f, "
            + "IF(id % 8 = 0, NULL, id * -1.25) AS d, "
            + "IF(id % 9 = 0, NULL, CAST(id * 123456789.123457 AS DECIMAL(30, 6))) AS wide, "
            + "IF(id % 10 = 0, NULL, date_add(DATE'1969-06-01', CAST(id AS INT) * 3)) AS day, "
            + "IF(id % 11 = 0, NULL, timestamp_micros(id * 86400000123 - 100000000000000)) AS ts, "
            + "IF(id % 12 = 0, NULL, CAST(timestamp_micros(id * 1000003) AS TIMESTAMP_NTZ)) AS ntz, "
            + "IF(id % 13 = 0, NULL, IF(id % 2 = 0, '', repeat('text-é', CAST(id % 30 AS INT)))) AS text, "
            + "IF(id % 14 = 0, NULL, unhex(substr(sha2(CAST(id AS STRING), 256), 1, CAST(id % 40 AS INT)))) AS bin "
            + "FROM range(" + ROWS + ")";

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void everyTypeReadsBackAsSparkComputedIt() {
        testing.sql("CREATE TABLE ls.%s.all_types (%s) TBLPROPERTIES ('primary-key'='id,s,dec', 'bucket.num'='5')"
                .formatted(NS, COLUMNS));
        testing.spark().sql(SOURCE).createOrReplaceTempView("typed_source");
        testing.sql("INSERT INTO ls.%s.all_types SELECT * FROM typed_source".formatted(NS));
        assertSameRows("ls.%s.all_types".formatted(NS), "SELECT * FROM typed_source", ROWS);
        assertBucketsFollowTheBucketFunction("all_types");

        testing.sql("DELETE FROM ls.%s.all_types WHERE id %% 3 = 0".formatted(NS));
        testing.sql("UPDATE ls.%s.all_types SET i = -1, text = 'updated', bin = NULL WHERE id %% 3 = 1 AND id < 2000"
                .formatted(NS));
        String expected = "SELECT id, s, dec, b, IF(id %% 3 = 1 AND id < 2000, -1, i) AS i, f, d, wide, day, ts, ntz, "
                + "IF(id %% 3 = 1 AND id < 2000, 'updated', text) AS text, "
                + "IF(id %% 3 = 1 AND id < 2000, NULL, bin) AS bin FROM typed_source WHERE id %% 3 <> 0";
        int remaining = ROWS - (ROWS + 2) / 3;
        assertSameRows("ls.%s.all_types".formatted(NS), expected.formatted(), remaining);
        assertBucketsFollowTheBucketFunction("all_types");

        testing.tiering().tier(SparkTables.load(NS, "all_types"));
        assertSameRows("ls.%s.all_types".formatted(NS), expected.formatted(), remaining);
    }

    @Test
    void appendOnlyTableWithoutBucketKey() {
        testing.sql("CREATE TABLE ls.%s.appended (%s) USING lakestream TBLPROPERTIES ('bucket.num'='3')"
                .formatted(NS, COLUMNS));
        testing.spark().sql(SOURCE).createOrReplaceTempView("typed_source_appended");
        testing.sql("INSERT INTO ls.%s.appended SELECT * FROM typed_source_appended".formatted(NS));
        testing.sql("INSERT INTO ls.%s.appended SELECT * FROM typed_source_appended WHERE id < 10".formatted(NS));
        assertSameRows(
                "ls.%s.appended".formatted(NS),
                "SELECT * FROM typed_source_appended UNION ALL SELECT * FROM typed_source_appended WHERE id < 10",
                ROWS + 10);
    }

    /** The table holds exactly the rows of {@code expectedQuery} (as multisets), and {@code count} of them. */
    private void assertSameRows(String table, String expectedQuery, long count) {
        assertThat(rows(testing.sql("SELECT count(*) FROM " + table))).containsExactly(List.of(count));
        assertThat(rows(testing.sql("SELECT * FROM %s EXCEPT ALL (%s)".formatted(table, expectedQuery))))
                .as("rows of %s that Spark did not compute", table)
                .isEmpty();
        assertThat(rows(testing.sql("(%s) EXCEPT ALL SELECT * FROM %s".formatted(expectedQuery, table))))
                .as("rows Spark computed that %s lacks", table)
                .isEmpty();
    }

    private void assertBucketsFollowTheBucketFunction(String table) {
        BucketFunction bucketFunction =
                SparkTables.load(NS, table).bucketFunction().orElseThrow();
        List<List<Object>> changes =
                rows(testing.sql("SELECT _bucket, id, s, dec FROM ls.%s.`%s$changes`".formatted(NS, table)));
        assertThat(changes).isNotEmpty();
        for (List<Object> change : changes) {
            assertThat(change.get(0))
                    .as("bucket of %s", change)
                    .isEqualTo(bucketFunction.bucket(change.get(1), change.get(2), (BigDecimal) change.get(3)));
        }
    }
}
