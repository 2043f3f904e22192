package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code DELETE FROM} through Spark SQL: by key and by predicates on other columns (pushed or
 * evaluated by Spark), on rows in the log tail and in the lake, before and after the real tiering
 * service; every DELETE is one log commit, a retried commit is applied once, and deleted rows never
 * come back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkDelete {
    private static final String NS = "del";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    private void createTable(String name) {
        testing.sql(("CREATE TABLE ls.%s.%s (id BIGINT, name STRING, score INT, weight DOUBLE) "
                        + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')")
                .formatted(NS, name));
    }

    private List<List<Object>> ids(String name) {
        return rows(testing.sql("SELECT id FROM ls.del.%s ORDER BY id".formatted(name)));
    }

    private List<List<Object>> lakeIds(String name) {
        return rows(testing.sql("SELECT id FROM ls.del.`%s$lake` ORDER BY id".formatted(name)));
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    /** Runs a DELETE and checks that it published exactly one log commit. */
    private void delete(String name, String sql) {
        long before = SparkTables.logVersion(NS, name);
        testing.sql(sql);
        assertThat(SparkTables.logVersion(NS, name))
                .as("log versions after %s", sql)
                .isEqualTo(before + 1);
    }

    @Test
    void deleteByKeyInTheLogAndInTheLake() {
        createTable("bykey");
        testing.sql("INSERT INTO ls.del.bykey VALUES (1, 'a', 10, 1.0), (2, 'b', 20, 2.0), (3, 'c', 30, 3.0), "
                + "(4, 'd', 40, 4.0), (5, 'e', 50, 5.0)");
        // only in the log
        delete("bykey", "DELETE FROM ls.del.bykey WHERE id = 2");
        assertThat(ids("bykey")).containsExactly(List.of(1L), List.of(3L), List.of(4L), List.of(5L));

        tier("bykey");
        assertThat(lakeIds("bykey"))
                .as("tiering writes the delete into the lake")
                .containsExactly(List.of(1L), List.of(3L), List.of(4L), List.of(5L));

        // rows now only in the lake: the delete lives in the log tail over them
        delete("bykey", "DELETE FROM ls.del.bykey WHERE id IN (3, 5)");
        assertThat(ids("bykey")).containsExactly(List.of(1L), List.of(4L));
        assertThat(lakeIds("bykey")).hasSize(4);

        tier("bykey");
        assertThat(ids("bykey")).containsExactly(List.of(1L), List.of(4L));
        assertThat(lakeIds("bykey")).containsExactly(List.of(1L), List.of(4L));

        // a deleted key inserted again is a new row, and deleting a missing key changes nothing
        testing.sql("INSERT INTO ls.del.bykey VALUES (2, 'b2', 21, 2.5)");
        long version = SparkTables.logVersion(NS, "bykey");
        testing.sql("DELETE FROM ls.del.bykey WHERE id = 99");
        assertThat(SparkTables.logVersion(NS, "bykey"))
                .as("a DELETE that matches nothing commits nothing")
                .isEqualTo(version);
        assertThat(rows(testing.sql("SELECT id, name FROM ls.del.bykey ORDER BY id")))
                .containsExactly(List.of(1L, "a"), List.of(2L, "b2"), List.of(4L, "d"));
    }

    @Test
    void deleteByNonKeyPredicates() {
        createTable("bypredicate");
        testing.sql("INSERT INTO ls.del.bypredicate VALUES (1, 'a', 10, 1.0), (2, 'b', 20, 2.0), (3, 'c', 30, 3.0), "
                + "(4, 'd', 40, 4.0), (5, 'e', 50, 5.5), (6, 'f', 60, 6.0)");
        tier("bypredicate");
        // the log tail changes key 1 (its lake version passes score >= 10, its current one does not) and deletes 6
        testing.sql("INSERT INTO ls.del.bypredicate VALUES (1, 'a2', 5, 1.0)");
        LakestreamTable table = SparkTables.load(NS, "bypredicate");
        try (LakestreamWriter writer =
                new LakestreamWriter(table, testing.warehouse().allocator())) {
            writer.delete(Map.of("id", 6L));
            writer.commit();
        }

        // pushed to the union read: must see the current version of key 1, not the lake's
        delete("bypredicate", "DELETE FROM ls.del.bypredicate WHERE score >= 10 AND score < 30");
        assertThat(ids("bypredicate")).containsExactly(List.of(1L), List.of(3L), List.of(4L), List.of(5L));

        // evaluated by Spark: a double column and a function
        delete("bypredicate", "DELETE FROM ls.del.bypredicate WHERE weight > 5.0 OR upper(name) = 'C'");
        assertThat(ids("bypredicate")).containsExactly(List.of(1L), List.of(4L));

        tier("bypredicate");
        assertThat(rows(testing.sql("SELECT id, name, score FROM ls.del.bypredicate ORDER BY id")))
                .as("no deleted row comes back after tiering")
                .containsExactly(List.of(1L, "a2", 5), List.of(4L, "d", 40));
        assertThat(lakeIds("bypredicate")).containsExactly(List.of(1L), List.of(4L));

        // without a condition: everything
        delete("bypredicate", "DELETE FROM ls.del.bypredicate");
        assertThat(ids("bypredicate")).isEmpty();
        tier("bypredicate");
        assertThat(ids("bypredicate")).isEmpty();
        assertThat(lakeIds("bypredicate")).isEmpty();
    }

    @Test
    void deleteWithACompositeKeyInAnotherOrderThanTheColumns() {
        testing.sql("CREATE TABLE ls.del.composite (id BIGINT, region STRING, name STRING) "
                + "TBLPROPERTIES ('primary-key'='region,id', 'bucket.num'='3')");
        testing.sql(
                "INSERT INTO ls.del.composite VALUES (1, 'eu', 'a'), (1, 'us', 'b'), (2, 'eu', 'c'), (2, 'us', 'd')");
        tier("composite");
        delete("composite", "DELETE FROM ls.del.composite WHERE name IN ('b', 'c')");
        assertThat(rows(testing.sql("SELECT id, region FROM ls.del.composite ORDER BY id, region")))
                .containsExactly(List.of(1L, "eu"), List.of(2L, "us"));
        tier("composite");
        assertThat(rows(testing.sql("SELECT id, region FROM ls.del.composite ORDER BY id, region")))
                .containsExactly(List.of(1L, "eu"), List.of(2L, "us"));
    }

    @Test
    void deleteIgnoresTheConfiguredLakeReadMode() {
        createTable("mode");
        testing.sql("INSERT INTO ls.del.mode VALUES (1, 'a', 10, 1.0)");
        tier("mode");
        testing.sql("INSERT INTO ls.del.mode VALUES (2, 'b', 20, 2.0)");
        testing.spark().conf().set("spark.lakestream.read-mode", "lake");
        try {
            delete("mode", "DELETE FROM ls.del.mode WHERE score > 0");
        } finally {
            testing.spark().conf().unset("spark.lakestream.read-mode");
        }
        assertThat(ids("mode")).as("the log-only row 2 is deleted too").isEmpty();
    }

    @Test
    void unsupportedDeletesFailClearly() {
        testing.sql("CREATE TABLE ls.del.appendonly (id BIGINT, name STRING) TBLPROPERTIES ('bucket.num'='2')");
        testing.sql("INSERT INTO ls.del.appendonly VALUES (1, 'a')");
        assertThatThrownBy(() -> testing.sql("DELETE FROM ls.del.appendonly WHERE id = 1"))
                .hasMessageContaining("append-only table")
                .hasMessageContaining("primary-key");
        assertThat(rows(testing.sql("SELECT id FROM ls.del.appendonly"))).containsExactly(List.of(1L));

        createTable("readonly");
        testing.sql("INSERT INTO ls.del.readonly VALUES (1, 'a', 10, 1.0)");
        assertThatThrownBy(() -> testing.sql("DELETE FROM ls.del.`readonly$lake` WHERE id = 1"))
                .hasMessageContaining("read-only");
        assertThatThrownBy(() -> testing.sql("UPDATE ls.del.`readonly$lake` SET score = 1 WHERE id = 1"))
                .hasMessageContaining("read-only");
        assertThat(ids("readonly")).containsExactly(List.of(1L));
    }

    @Test
    void retriedDeleteCommitIsAppliedOnce() throws Exception {
        createTable("retried");
        testing.sql("INSERT INTO ls.del.retried VALUES (1, 'a', 10, 1.0), (2, 'b', 20, 2.0), (3, 'c', 30, 3.0)");
        long version = SparkTables.logVersion(NS, "retried");

        DeltaBatchWrite write = deleteWrite("retried", "delete-query-1");
        WriterCommitMessage[] messages = {deleteTask(write, 0, 1L), deleteTask(write, 1, 3L)};
        write.commit(messages);
        assertThat(SparkTables.logVersion(NS, "retried")).isEqualTo(version + 1);
        long segments = SparkTables.segmentFiles(NS, "retried");

        // the same messages again, then a re-run of the whole job under the same query id: applied once
        write.commit(messages);
        DeltaBatchWrite rerun = deleteWrite("retried", "delete-query-1");
        rerun.commit(new WriterCommitMessage[] {deleteTask(rerun, 0, 1L, 3L)});
        assertThat(SparkTables.logVersion(NS, "retried")).isEqualTo(version + 1);
        SparkTables.assertSegmentsUnchanged(NS, "retried", segments);

        // a key upserted after the delete stays: the retried delete is not applied again
        testing.sql("INSERT INTO ls.del.retried VALUES (1, 'a2', 11, 1.0)");
        DeltaBatchWrite late = deleteWrite("retried", "delete-query-1");
        late.commit(new WriterCommitMessage[] {deleteTask(late, 0, 1L)});
        assertThat(ids("retried")).containsExactly(List.of(1L), List.of(2L));

        // aborted: nothing visible, nothing left behind
        long aborted = SparkTables.segmentFiles(NS, "retried");
        DeltaBatchWrite failed = deleteWrite("retried", "delete-query-2");
        failed.abort(new WriterCommitMessage[] {deleteTask(failed, 0, 2L), null});
        SparkTables.assertSegmentsUnchanged(NS, "retried", aborted);
        assertThat(ids("retried")).containsExactly(List.of(1L), List.of(2L));
    }

    private DeltaBatchWrite deleteWrite(String table, String queryId) throws Exception {
        io.lakestream.spark.LakestreamTable loaded = testing.loadTable(NS, table);
        RowLevelOperation operation = loaded.newRowLevelOperationBuilder(new RowLevelOperationInfo() {
                    @Override
                    public CaseInsensitiveStringMap options() {
                        return CaseInsensitiveStringMap.empty();
                    }

                    @Override
                    public RowLevelOperation.Command command() {
                        return RowLevelOperation.Command.DELETE;
                    }
                })
                .build();
        return ((SupportsDelta) operation)
                .newWriteBuilder(SparkTesting.writeInfo(queryId, loaded.schema()))
                .build()
                .toBatch();
    }

    private static WriterCommitMessage deleteTask(DeltaBatchWrite write, int partition, long... ids) throws Exception {
        try (DeltaWriter<InternalRow> writer =
                write.createBatchWriterFactory(null).createWriter(partition, partition)) {
            for (long id : ids) {
                writer.delete(new GenericInternalRow(0), new GenericInternalRow(new Object[] {id}));
            }
            return writer.commit();
        }
    }
}
