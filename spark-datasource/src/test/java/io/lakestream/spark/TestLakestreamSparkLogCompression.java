package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.SegmentFile;
import io.lakestream.table.LogCompression;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The table property {@code log.compression} through Spark: set by {@code CREATE TABLE ... TBLPROPERTIES}, changed
 * by {@code ALTER TABLE ... SET / UNSET TBLPROPERTIES}, and a log holding uncompressed and ZSTD segments read by
 * union reads before and after the Spark tiering job.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkLogCompression {
    private static final String NS = "logzstd";

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void segmentsWrittenBeforeAndAfterAlterReadAsOneTable() {
        testing.sql("CREATE TABLE ls.logzstd.switched (id BIGINT NOT NULL, region STRING, qty INT)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1', 'log.compression'='none')");
        assertThat(compressionOf("switched")).isEqualTo("none");
        testing.sql("INSERT INTO ls.logzstd.switched SELECT id, concat('region-', CAST(id % 20 AS STRING)),"
                + " CAST(id % 7 AS INT) FROM range(1, 3001)");
        testing.sql("ALTER TABLE ls.logzstd.switched SET TBLPROPERTIES ('lakestream.log.compression'='zstd')");
        assertThat(rows(testing.sql("SHOW TBLPROPERTIES ls.logzstd.switched ('lakestream.log.compression')")))
                .containsExactly(List.of(LogCompression.PROPERTY, "zstd"));
        // upserts of the upper half and 1,500 new keys, in a compressed segment
        testing.sql("INSERT INTO ls.logzstd.switched SELECT id, concat('changed-', CAST(id % 20 AS STRING)),"
                + " CAST(id % 5 AS INT) FROM range(1501, 4501)");

        // each INSERT is one log commit of one or more segments (one per writer task): the same 3,000 rows take a
        // fraction of the bytes in the second
        Map<Long, Long> bytesByVersion =
                SparkTables.load(NS, "switched").log().latestSnapshot().bucket(0).segments().stream()
                        .collect(Collectors.groupingBy(
                                SegmentFile::version, Collectors.summingLong(SegmentFile::sizeBytes)));
        assertThat(bytesByVersion).hasSize(2);
        assertThat(bytesByVersion.get(2L)).isLessThan(bytesByVersion.get(1L) / 2);

        // sum(qty): id % 7 over 1..1500 (4,497) plus id % 5 over 1501..4500 (6,000)
        String totals = "SELECT count(*), sum(qty), count_if(startswith(region, 'changed-')) FROM ls.logzstd.switched";
        List<Object> expected = List.of(4500L, 10497L, 3000L);
        assertThat(rows(testing.sql(totals))).containsExactly(expected);
        assertThat(rows(testing.sql(
                        "SELECT id, region, qty FROM ls.logzstd.switched WHERE id IN (1500, 1501) ORDER BY id")))
                .containsExactly(List.of(1500L, "region-0", 2), List.of(1501L, "changed-1", 1));

        testing.sql("CALL ls.system.tier(table => 'logzstd.switched')");
        assertThat(rows(testing.sql(totals))).containsExactly(expected);
        assertThat(rows(testing.sql(totals.replace("ls.logzstd.switched", "ls.logzstd.`switched$lake`"))))
                .containsExactly(expected);

        // UNSET chooses the default of new tables
        testing.sql("ALTER TABLE ls.logzstd.switched SET TBLPROPERTIES ('log.compression'='none')");
        testing.sql("ALTER TABLE ls.logzstd.switched UNSET TBLPROPERTIES ('log.compression')");
        assertThat(compressionOf("switched")).isEqualTo("zstd");
    }

    @Test
    void newTablesCompressAndUnknownValuesAreRefused() {
        testing.sql("CREATE TABLE ls.logzstd.plain (id BIGINT, v STRING)");
        assertThat(compressionOf("plain")).isEqualTo("zstd");

        assertRefused(
                () -> testing.sql(
                        "CREATE TABLE ls.logzstd.refused (id BIGINT) TBLPROPERTIES ('log.compression'='lz4')"),
                "lakestream.log.compression = 'lz4' is not a log compression; use one of ['none', 'zstd']");
        assertThat(rows(testing.sql("SHOW TABLES IN ls.logzstd LIKE 'refused'")))
                .isEmpty();
        assertRefused(
                () -> testing.sql("ALTER TABLE ls.logzstd.plain SET TBLPROPERTIES ('log.compression'='gzip')"),
                "'gzip' is not a log compression");
        assertThat(compressionOf("plain")).isEqualTo("zstd");
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_TABLE_DEFINITION))
                .hasMessageContaining(message);
    }

    private static String compressionOf(String table) {
        return SparkTables.load(NS, table).lake().properties().get(LogCompression.PROPERTY);
    }
}
