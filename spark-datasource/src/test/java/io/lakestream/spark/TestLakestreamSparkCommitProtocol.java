package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The write protocol as Spark drives it, step by step through the DataSource V2 interfaces: tasks
 * stage, the driver commits once per query id (a retried commit or a re-run job is applied once),
 * abort deletes what the tasks staged.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkCommitProtocol {
    private static final String NS = "protocol";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void retriedCommitIsAppliedOnce() {
        testing.sql(
                "CREATE TABLE ls.protocol.retried (id BIGINT, name STRING, score INT) TBLPROPERTIES ('bucket.num'='2')");
        BatchWrite write = batchWrite("retried", "query-1");
        WriterCommitMessage[] messages = {writeTask(write, 0, 1, 2), writeTask(write, 1, 3)};
        write.commit(messages);
        long version = SparkTables.logVersion(NS, "retried");
        long segments = SparkTables.segmentFiles(NS, "retried");

        // the driver commits the same messages again: nothing new, and the committed files stay
        write.commit(messages);
        assertThat(SparkTables.logVersion(NS, "retried")).isEqualTo(version);
        SparkTables.assertSegmentsUnchanged(NS, "retried", segments);

        // the whole job runs again under the same query id: its new copies are dropped
        BatchWrite rerun = batchWrite("retried", "query-1");
        rerun.commit(new WriterCommitMessage[] {writeTask(rerun, 0, 1, 2, 3)});
        assertThat(SparkTables.logVersion(NS, "retried")).isEqualTo(version);
        SparkTables.assertSegmentsUnchanged(NS, "retried", segments);

        assertThat(rows(testing.sql("SELECT id FROM ls.protocol.retried ORDER BY id")))
                .containsExactly(List.of(1L), List.of(2L), List.of(3L));

        BatchWrite next = batchWrite("retried", "query-2");
        next.commit(new WriterCommitMessage[] {writeTask(next, 0, 4)});
        assertThat(SparkTables.logVersion(NS, "retried")).isEqualTo(version + 1);
        assertThat(rows(testing.sql("SELECT count(*) FROM ls.protocol.retried")))
                .containsExactly(List.of(4L));
    }

    @Test
    void abortDeletesStagedSegmentsAndTaskAbortDeletesItsOwn() throws Exception {
        testing.sql(
                "CREATE TABLE ls.protocol.aborted (id BIGINT, name STRING, score INT) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='3')");
        long segments = SparkTables.segmentFiles(NS, "aborted");
        BatchWrite write = batchWrite("aborted", "query-3");
        WriterCommitMessage staged = writeTask(write, 0, 1, 2, 3, 4, 5, 6);
        assertThat(SparkTables.segmentFiles(NS, "aborted")).isGreaterThan(segments);

        DataWriter<InternalRow> failing = write.createBatchWriterFactory(null).createWriter(1, 9);
        failing.write(row(7));
        failing.abort();
        failing.close();

        // Spark passes null for the tasks that did not finish
        write.abort(new WriterCommitMessage[] {staged, null});
        SparkTables.assertSegmentsUnchanged(NS, "aborted", segments);
        assertThat(SparkTables.logVersion(NS, "aborted")).isZero();
        assertThat(rows(testing.sql("SELECT count(*) FROM ls.protocol.aborted")))
                .containsExactly(List.of(0L));
    }

    private BatchWrite batchWrite(String table, String queryId) {
        try {
            LakestreamTable loaded = testing.loadTable(NS, table);
            return loaded.newWriteBuilder(SparkTesting.writeInfo(queryId, loaded.schema()))
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
                writer.write(row(id));
            }
            return writer.commit();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static InternalRow row(long id) {
        return new GenericInternalRow(new Object[] {id, UTF8String.fromString("n" + id), (int) id});
    }
}
