package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code INSERT OVERWRITE} and the DataFrame overwrites on primary-key tables: one log commit that
 * deletes every visible key (or those matching the condition) and upserts the new rows, checked
 * through the union read, the changelog, and after tiering through the stock Iceberg reader; a
 * concurrent commit in between fails the overwrite with nothing written; an aborted overwrite leaves
 * nothing; append-only tables refuse with an error saying what to do.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkOverwrite {
    private static final String NS = "ow";
    private final SparkTesting testing = SparkTesting.get();
    private StockIcebergSpark stock;

    @BeforeAll
    void start() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        stock = new StockIcebergSpark(testing.warehouseDirectory());
    }

    @AfterAll
    void stop() throws Exception {
        if (stock != null) {
            stock.close();
        }
    }

    private void createTable(String name) {
        testing.sql(("CREATE TABLE ls.%s.%s (id BIGINT, name STRING, score INT) "
                        + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='3')")
                .formatted(NS, name));
    }

    private List<List<Object>> all(String name) {
        return rows(testing.sql("SELECT id, name, score FROM ls.%s.%s ORDER BY id".formatted(NS, name)));
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    /** Lake rows 1-6, then in the log tail: an upsert of 2, a delete of 3, a new row 7. */
    private void lakeAndTail(String name) {
        createTable(name);
        testing.sql("INSERT INTO ls.ow.%s SELECT id, concat('n', id), CAST(id * 10 AS INT) FROM range(1, 7)"
                .formatted(name));
        tier(name);
        testing.sql("INSERT INTO ls.ow.%s VALUES (2, 'tail2', 25), (7, 'n7', 70)".formatted(name));
        testing.sql("DELETE FROM ls.ow.%s WHERE id = 3".formatted(name));
    }

    @Test
    void insertOverwriteReplacesLakeAndLogTailInOneCommit() {
        lakeAndTail("full");
        long version = SparkTables.logVersion(NS, "full");

        testing.sql("INSERT OVERWRITE ls.ow.full VALUES (2, 'new2', 1), (10, 'new10', 2)");

        List<List<Object>> expected = List.of(List.of(2L, "new2", 1), List.of(10L, "new10", 2));
        assertThat(SparkTables.logVersion(NS, "full")).isEqualTo(version + 1);
        assertThat(all("full")).isEqualTo(expected);
        // the commit itself: a delete for every key visible before (3 was already gone), then the two upserts
        List<List<Object>> lastCommit = rows(testing.spark()
                .read()
                .format("lakestream")
                .option("table", NS + ".full")
                .option("read-mode", "changes")
                .option("changes-after-version", Long.toString(version))
                .load()
                .selectExpr("_change_type", "id")
                .orderBy("_change_type", "id"));
        assertThat(lastCommit)
                .isEqualTo(List.of(
                        List.of("delete", 1L),
                        List.of("delete", 2L),
                        List.of("delete", 4L),
                        List.of("delete", 5L),
                        List.of("delete", 6L),
                        List.of("delete", 7L),
                        List.of("upsert", 2L),
                        List.of("upsert", 10L)));
        // the delete of key 2 comes before its new row, so the new row wins
        assertThat(rows(testing.spark()
                        .read()
                        .format("lakestream")
                        .option("table", NS + ".full")
                        .option("read-mode", "changes")
                        .option("changes-after-version", Long.toString(version))
                        .load()
                        .where("id = 2")
                        .orderBy("_offset")
                        .selectExpr("_change_type")))
                .isEqualTo(List.of(List.of("delete"), List.of("upsert")));

        // tiered: the lake alone, and Spark's stock Iceberg reader on it, hold the same state
        tier("full");
        assertThat(rows(testing.sql("SELECT id, name, score FROM ls.ow.`full$lake` ORDER BY id")))
                .isEqualTo(expected);
        assertThat(stock.query(
                        "SELECT id, name, score FROM %s.%s.full ORDER BY id".formatted(StockIcebergSpark.CATALOG, NS)))
                .isEqualTo(expected);
        assertThat(all("full")).isEqualTo(expected);

        // overwriting with a query over the table itself, and with no rows at all (truncates)
        testing.sql("INSERT OVERWRITE ls.ow.full SELECT id + 1, name, score * 2 FROM ls.ow.full WHERE id > 5");
        assertThat(all("full")).isEqualTo(List.of(List.of(11L, "new10", 4)));
        testing.sql("INSERT OVERWRITE ls.ow.full SELECT * FROM ls.ow.full WHERE id < 0");
        assertThat(all("full")).isEmpty();
    }

    @Test
    void overwriteWhereConditionReplacesOnlyMatchingRows() throws Exception {
        lakeAndTail("cond");
        // scores: 1 -> 10, 2 -> 25 (tail), 4 -> 40, 5 -> 50, 6 -> 60, 7 -> 70 (tail); a NULL score never matches
        testing.sql("INSERT INTO ls.ow.cond VALUES (8, 'nulls', NULL)");
        long version = SparkTables.logVersion(NS, "cond");

        testing.sql("SELECT 100L AS id, 'hundred' AS name, 5 AS score UNION ALL SELECT 4L, 'four', 99")
                .writeTo("ls.ow.cond")
                .overwrite(col("score").lt(50).or(col("name").equalTo("n7")));

        assertThat(SparkTables.logVersion(NS, "cond")).isEqualTo(version + 1);
        List<List<Object>> expected = List.of(
                List.of(4L, "four", 99),
                List.of(5L, "n5", 50),
                List.of(6L, "n6", 60),
                Arrays.asList(8L, "nulls", null),
                List.of(100L, "hundred", 5));
        assertThat(all("cond")).isEqualTo(expected);
        tier("cond");
        assertThat(stock.query(
                        "SELECT id, name, score FROM %s.%s.cond ORDER BY id".formatted(StockIcebergSpark.CATALOG, NS)))
                .isEqualTo(expected);

        // the table has no Spark partitions: a dynamic overwrite replaces all of it
        testing.sql("SELECT 1L AS id, 'one' AS name, 1 AS score")
                .writeTo("ls.ow.cond")
                .overwritePartitions();
        assertThat(all("cond")).isEqualTo(List.of(List.of(1L, "one", 1)));

        // a condition the connector cannot evaluate exactly is refused before anything is written
        version = SparkTables.logVersion(NS, "cond");
        assertThatThrownBy(() -> testing.sql("SELECT 2L AS id, 'two' AS name, 2 AS score")
                        .writeTo("ls.ow.cond")
                        .overwrite(col("name").contains("o")))
                .hasMessageContaining("UNSUPPORTED_OPERATION");
        assertThat(SparkTables.logVersion(NS, "cond")).isEqualTo(version);
        assertThat(all("cond")).isEqualTo(List.of(List.of(1L, "one", 1)));
    }

    @Test
    void saveModeOverwriteThroughTheFormatIsAnOverwrite() {
        lakeAndTail("fmt");
        long version = SparkTables.logVersion(NS, "fmt");

        testing.sql("SELECT 3L AS id, 'three' AS name, 3 AS score")
                .write()
                .format("lakestream")
                .option("catalog", SparkTesting.CATALOG)
                .option("table", NS + ".fmt")
                .mode("overwrite")
                .save();

        // the same table (still keyed by id), one commit, only the new row
        assertThat(SparkTables.logVersion(NS, "fmt")).isEqualTo(version + 1);
        assertThat(SparkTables.load(NS, "fmt").definition().primaryKey()).containsExactly("id");
        assertThat(all("fmt")).isEqualTo(List.of(List.of(3L, "three", 3)));
    }

    @Test
    void appendOnlyTableRefusesOverwrite() throws Exception {
        testing.sql("CREATE TABLE ls.ow.events (id BIGINT, kind STRING) TBLPROPERTIES ('bucket.num'='2')");
        testing.sql("INSERT INTO ls.ow.events VALUES (1, 'a'), (2, 'b')");
        long segments = SparkTables.segmentFiles(NS, "events");

        assertThatThrownBy(() -> testing.sql("INSERT OVERWRITE ls.ow.events VALUES (3, 'c')"))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.UNSUPPORTED_OPERATION))
                .hasMessageContaining("append-only table")
                .hasMessageContaining("'primary-key'");
        assertThatThrownBy(() -> testing.sql("SELECT 3L AS id, 'c' AS kind")
                        .writeTo("ls.ow.events")
                        .overwrite(col("id").equalTo(1)))
                .hasMessageContaining("append-only table");
        assertThatThrownBy(() -> testing.sql("SELECT 3L AS id, 'c' AS kind")
                        .writeTo("ls.ow.events")
                        .overwritePartitions())
                .hasMessageContaining("append-only table");

        SparkTables.assertSegmentsUnchanged(NS, "events", segments);
        assertThat(rows(testing.sql("SELECT id FROM ls.ow.events ORDER BY id")))
                .containsExactly(List.of(1L), List.of(2L));
    }

    @Test
    void commitLandingAfterThePinFailsTheOverwriteWithNothingWritten() {
        lakeAndTail("race");
        List<List<Object>> before = all("race");
        long segments = SparkTables.segmentFiles(NS, "race");
        BatchWrite overwrite = overwrite("race", "query-race");
        WriterCommitMessage[] messages = {writeTask(overwrite, 0, 1, 20), writeTask(overwrite, 1, 21)};

        // another writer commits after the overwrite pinned the table: its row would survive a blind commit
        LakestreamTable table = SparkTables.load(NS, "race");
        try (LakestreamWriter writer =
                new LakestreamWriter(table, testing.warehouse().allocator())) {
            writer.upsert(Map.of("id", 30L, "name", "concurrent", "score", 300));
            writer.commit();
        }
        long version = SparkTables.logVersion(NS, "race");

        assertThatThrownBy(() -> overwrite.commit(messages))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("run the overwrite again");
        overwrite.abort(messages);
        assertThat(SparkTables.logVersion(NS, "race")).isEqualTo(version);
        // the tasks' segments and the deletes staged by the driver are gone: only the concurrent commit's remains
        assertThat(SparkTables.segmentFiles(NS, "race")).isEqualTo(segments + 1);
        List<List<Object>> withConcurrent = new java.util.ArrayList<>(before);
        withConcurrent.add(List.of(30L, "concurrent", 300));
        assertThat(all("race")).isEqualTo(withConcurrent);

        // run again, it replaces everything, the concurrent row included
        BatchWrite retry = overwrite("race", "query-race-2");
        retry.commit(new WriterCommitMessage[] {writeTask(retry, 0, 1, 20)});
        assertThat(all("race")).isEqualTo(List.of(List.of(1L, "n1", 1), List.of(20L, "n20", 20)));
    }

    @Test
    void abortedOverwriteLeavesNothingVisible() {
        lakeAndTail("aborted");
        List<List<Object>> before = all("aborted");
        long version = SparkTables.logVersion(NS, "aborted");
        long segments = SparkTables.segmentFiles(NS, "aborted");

        // the task fails (one task: with several, one that finishes as the job fails could leave its staged,
        // never committed files behind, as in any DataSource V2 write); Spark aborts the job before the driver
        // stages any delete
        assertThatThrownBy(() -> testing.sql("INSERT OVERWRITE ls.ow.aborted SELECT id, name, "
                        + "CASE WHEN id = 1500 THEN CAST(raise_error('boom') AS INT) ELSE 1 END FROM "
                        + "(SELECT id, concat('x', id) AS name FROM range(0, 2000, 1, 1))"))
                .hasStackTraceContaining("boom");
        assertThat(SparkTables.logVersion(NS, "aborted")).isEqualTo(version);
        SparkTables.assertSegmentsUnchanged(NS, "aborted", segments);
        assertThat(all("aborted")).isEqualTo(before);

        // aborted through the protocol after the tasks staged their rows
        BatchWrite overwrite = overwrite("aborted", "query-aborted");
        WriterCommitMessage[] messages = {writeTask(overwrite, 0, 1, 2, 3)};
        assertThat(SparkTables.segmentFiles(NS, "aborted")).isGreaterThan(segments);
        overwrite.abort(messages);
        SparkTables.assertSegmentsUnchanged(NS, "aborted", segments);
        assertThat(SparkTables.logVersion(NS, "aborted")).isEqualTo(version);
        assertThat(all("aborted")).isEqualTo(before);
    }

    /** {@code INSERT OVERWRITE} as Spark drives it: the builder pins the table state when it is built. */
    private BatchWrite overwrite(String table, String queryId) {
        try {
            io.lakestream.spark.LakestreamTable loaded = testing.loadTable(NS, table);
            LogicalWriteInfo info = SparkTesting.writeInfo(queryId, loaded.schema());
            return ((SupportsTruncate) loaded.newWriteBuilder(info))
                    .truncate()
                    .build()
                    .toBatch();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static WriterCommitMessage writeTask(BatchWrite write, int partition, long... ids) {
        try (DataWriter<InternalRow> writer =
                write.createBatchWriterFactory(null).createWriter(partition, partition)) {
            for (long id : ids) {
                writer.write(new GenericInternalRow(new Object[] {id, UTF8String.fromString("n" + id), (int) id}));
            }
            return writer.commit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
