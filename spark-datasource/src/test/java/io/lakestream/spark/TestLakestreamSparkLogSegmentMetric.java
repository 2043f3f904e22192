package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedChanges;
import io.lakestream.testing.PartitionedScores;
import java.nio.file.Files;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The {@code logSegments} metric of every kind of read: the per-key stream outputs ({@code upsert}, {@code
 * changelog}) count the segments they read like the {@code log} output, and a read of a tiered table, whose splits
 * are lake-only, counts 0.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkLogSegmentMetric {
    private static final String NS = "segment_metric";

    private final SparkTesting testing = SparkTesting.get();
    private long segments;

    @BeforeAll
    void createTable() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        LakestreamTable table = testing.warehouse()
                .catalog()
                .createTable(TableIdentifier.of(Namespace.of(NS), "t"), PartitionedScores.spec(1));
        PartitionedChanges.write(table, testing.warehouse().allocator());
        segments =
                SparkTables.load(NS, "t").log().latestSnapshot().liveSegments().size();
    }

    @Test
    void everyStreamOutputCountsTheSegmentsItRead() throws Exception {
        assertThat(segments).isEqualTo(5);
        for (String output : new String[] {"log", "upsert", "changelog"}) {
            String name = "segment-metric-" + output;
            Dataset<Row> stream = testing.spark()
                    .readStream()
                    .option("startup.mode", "earliest")
                    .option("stream.output", output)
                    .table("ls.segment_metric.`t$changes`");
            StreamScanWork.runToEnd(stream, name, Files.createTempDirectory("lakestream-segment-metric"), "append");
            assertThat(StreamScanWork.logSegments(name))
                    .as("segments read by the %s output", output)
                    .isEqualTo(segments);
        }
    }

    @Test
    void lakeOnlySplitsCountNoSegment() {
        testing.sql("CREATE TABLE ls.segment_metric.tiered (id BIGINT NOT NULL, v STRING)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.segment_metric.tiered VALUES (1, 'a'), (2, 'b'), (3, 'c')");
        Dataset<Row> read = testing.sql("SELECT * FROM ls.segment_metric.tiered");
        assertThat(read.collectAsList()).hasSize(3);
        assertThat(SparkTables.metric(read, LakestreamMetrics.LOG_SEGMENTS)).isPositive();

        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "tiered"));
        Dataset<Row> lakeOnly = testing.sql("SELECT * FROM ls.segment_metric.tiered");
        assertThat(lakeOnly.collectAsList()).hasSize(3);
        assertThat(SparkTables.metric(lakeOnly, LakestreamMetrics.LOG_SEGMENTS)).isZero();
    }
}
