package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedChanges;
import io.lakestream.testing.PartitionedScores;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code t$changes} of a partitioned table names each change's log by {@code _partition} (after {@code _bucket}), in
 * the batch read, the stream's {@code log} output and its {@code changelog} output: offsets of a log kept per
 * (partition, bucket) restart in every partition, so {@code (_bucket, _offset)} alone does not identify a change.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkPartitionedChanges {
    private static final String NS = "pchanges";
    private static final List<String> PARTITIONED_COLUMNS =
            List.of("_change_type", "_bucket", "_partition", "_offset", "_commit_timestamp", "id", "region", "score");

    private final SparkTesting testing = SparkTesting.get();
    private LakestreamTable table;

    @BeforeAll
    void createTable() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        table = testing.warehouse()
                .catalog()
                .createTable(TableIdentifier.of(Namespace.of(NS), "t"), PartitionedScores.spec(1));
        PartitionedChanges.write(table, testing.warehouse().allocator());
    }

    @Test
    void batchReadNamesEachChangeByPartitionBucketAndOffset() {
        Dataset<Row> changes = testing.sql("SELECT * FROM ls.pchanges.`t$changes`");
        assertLogPositionsUnique(changes.collectAsList());
        assertThat(changes.columns()).containsExactlyElementsOf(PARTITIONED_COLUMNS);
        PartitionedChanges.assertReadBack(changeRows(changes.collectAsList()));
        assertThat(testing.sql("SELECT count(*) FROM ls.pchanges.`t$changes` WHERE _partition = 'region=us'")
                        .first()
                        .getLong(0))
                .isEqualTo(3);
    }

    @Test
    void logStreamNamesEachChangeByPartitionBucketAndOffset() throws Exception {
        List<Row> rows = stream("log", "pchanges-log");
        assertLogPositionsUnique(rows);
        assertThat(rows.getFirst().schema().fieldNames()).containsExactlyElementsOf(PARTITIONED_COLUMNS);
        PartitionedChanges.assertReadBack(changeRows(rows));
    }

    /** Each key's net change per commit, carrying the (partition, bucket, offset) of its last change in the commit. */
    @Test
    void changelogStreamNamesEachChangeByPartitionBucketAndOffset() throws Exception {
        List<Row> rows = stream("changelog", "pchanges-changelog");
        assertThat(changeRows(rows))
                .containsExactlyInAnyOrder(
                        change("insert", "region=eu", 0, 1L, "eu", 1),
                        change("insert", "region=eu", 1, 2L, "eu", 2),
                        change("insert", "region=eu", 2, 3L, "eu", 3),
                        change("update_before", "region=eu", 3, 1L, "eu", 1),
                        change("update_after", "region=eu", 3, 1L, "eu", 100),
                        change("insert", "region=us", 0, 1L, "us", 10),
                        change("insert", "region=us", 1, 2L, "us", 20),
                        change("delete", "region=us", 2, 1L, "us", 10));
    }

    /** The changes of an unpartitioned table keep their columns and positions (and so do its streams' rows). */
    @Test
    void unpartitionedTableKeepsItsChangeColumns() {
        testing.sql("CREATE TABLE ls.pchanges.plain (id BIGINT NOT NULL, v STRING) TBLPROPERTIES ('primary-key'='id')");
        testing.sql("INSERT INTO ls.pchanges.plain VALUES (1, 'a')");
        assertThat(testing.sql("SELECT * FROM ls.pchanges.`plain$changes`").columns())
                .containsExactly("_change_type", "_bucket", "_offset", "_commit_timestamp", "id", "v");
    }

    /** Every change since the table was created, through the stream output {@code output}, in one run. */
    private List<Row> stream(String output, String name) throws Exception {
        Dataset<Row> stream = testing.spark()
                .readStream()
                .option("startup.mode", "earliest")
                .option("stream.output", output)
                .table("ls.pchanges.`t$changes`");
        StreamingQuery query = StreamCollector.start(
                stream, name, Files.createTempDirectory("lakestream-pchanges"), Trigger.AvailableNow());
        assertThat(query.awaitTermination(TimeUnit.SECONDS.toMillis(50))).isTrue();
        assertThat(query.exception().isEmpty())
                .as("the query did not fail: %s", query.exception())
                .isTrue();
        return StreamCollector.rows(name);
    }

    private static void assertLogPositionsUnique(List<Row> rows) {
        assertThat(rows).isNotEmpty();
        PartitionedChanges.assertLogPositionsUnique(
                List.of(rows.getFirst().schema().fieldNames()),
                rows.stream().map(TestLakestreamSparkPartitionedChanges::values).toList());
    }

    private static List<Object> values(Row row) {
        List<Object> values = new ArrayList<>();
        for (int column = 0; column < row.length(); column++) {
            values.add(row.get(column));
        }
        return values;
    }

    /** Rows as {@link PartitionedChanges#EXPECTED}'s columns: type, partition, bucket, offset, id, region, score. */
    private static List<List<Object>> changeRows(List<Row> rows) {
        List<List<Object>> changes = new ArrayList<>();
        for (Row row : rows) {
            changes.add(Arrays.asList(
                    row.getAs("_change_type"),
                    row.getAs("_partition"),
                    row.getAs("_bucket"),
                    row.getAs("_offset"),
                    row.getAs("id"),
                    row.getAs("region"),
                    row.getAs("score")));
        }
        return changes;
    }

    private static List<Object> change(String type, String partition, long offset, long id, String region, int score) {
        return Arrays.asList(type, partition, 0, offset, id, region, score);
    }
}
