package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A Spark write whose table is dropped and re-created (through the Java API) while it runs: whether
 * the driver or the executors loaded the table before the change, the write fails with {@code
 * TABLE_DROPPED}, executors never write into the new table, and the new table holds exactly what was
 * written into it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkDroppedTable {
    private static final String NS = "dropped";
    private final SparkTesting testing = SparkTesting.get();

    private static volatile CountDownLatch reached = new CountDownLatch(0);
    private static volatile CountDownLatch release = new CountDownLatch(0);

    @BeforeAll
    void setUp() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        UDF1<Long, Long> pause = value -> {
            reached.countDown();
            release.await(60, TimeUnit.SECONDS);
            return value;
        };
        UserDefinedFunction udf = functions.udf(pause, DataTypes.LongType).asNondeterministic();
        testing.spark().udf().register("pause_query", udf);
    }

    /** The SQL INSERT's tasks write while the table is replaced: the driver's commit is refused. */
    @Test
    void insertIntoReCreatedTableFails() throws Exception {
        createTable("insert_race");
        testing.sql("INSERT INTO ls.dropped.insert_race VALUES (1, 'old')");
        release = new CountDownLatch(1);
        reached = new CountDownLatch(1);
        CompletableFuture<Throwable> insert = CompletableFuture.supplyAsync(() -> {
            try {
                testing.sql("INSERT INTO ls.dropped.insert_race SELECT pause_query(id), 'late' FROM range(10, 20)");
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        try {
            assertThat(reached.await(60, TimeUnit.SECONDS))
                    .as("the insert reached pause_query")
                    .isTrue();
            reCreateAndWrite("insert_race");
        } finally {
            release.countDown();
        }
        Throwable failure = insert.get(60, TimeUnit.SECONDS);
        assertTableDropped(failure);
        assertThat(rows(testing.sql("SELECT id, name FROM ls.dropped.insert_race")))
                .containsExactly(List.of(7L, "new"));
    }

    /** The driver planned the write before the change, the tasks start after it: they refuse to load the new table. */
    @Test
    void executorsDoNotLoadTheReCreatedTable() {
        createTable("executor_race");
        BatchWrite write = batchWrite("executor_race", "query-executor-race");
        reCreateAndWrite("executor_race");

        assertThatThrownBy(() -> writeTask(write, 0, 1, 2, 3))
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(LakestreamError.TABLE_DROPPED))
                .hasMessageContaining("dropped and re-created while this query ran");
        assertThat(rows(testing.sql("SELECT id, name FROM ls.dropped.executor_race")))
                .containsExactly(List.of(7L, "new"));
    }

    /** Tasks staged their segments before the change: the driver's commit publishes nothing. */
    @Test
    void driverCommitIntoReCreatedTableFails() {
        createTable("driver_race");
        BatchWrite write = batchWrite("driver_race", "query-driver-race");
        WriterCommitMessage[] messages = {writeTask(write, 0, 1, 2), writeTask(write, 1, 3)};
        reCreateAndWrite("driver_race");

        assertThatThrownBy(() -> write.commit(messages))
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(LakestreamError.TABLE_DROPPED))
                .hasMessageContaining("Nothing was committed");
        assertThat(rows(testing.sql("SELECT id, name FROM ls.dropped.driver_race")))
                .containsExactly(List.of(7L, "new"));
    }

    private static void assertTableDropped(Throwable failure) {
        assertThat(failure).as("the write failed").isNotNull();
        Throwable cause = failure;
        while (cause != null && !(cause instanceof LakestreamException)) {
            cause = cause.getCause();
        }
        assertThat(cause)
                .as("a LakestreamException in the cause chain of %s", failure)
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(LakestreamError.TABLE_DROPPED));
    }

    private void createTable(String table) {
        testing.sql(
                "CREATE TABLE ls.dropped.%s (id BIGINT NOT NULL, name STRING) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')"
                        .formatted(table));
    }

    /** Drops the table and creates it again with the same definition, then writes {@code (7, 'new')} into it. */
    private void reCreateAndWrite(String table) {
        TestingWarehouse warehouse = testing.warehouse();
        TableIdentifier identifier = TableIdentifier.of(Namespace.of(NS), table);
        warehouse.catalog().dropTable(identifier);
        warehouse
                .catalog()
                .createTable(
                        identifier,
                        TableSpec.builder(new Schema(
                                        Types.NestedField.required(1, "id", Types.LongType.get()),
                                        Types.NestedField.optional(2, "name", Types.StringType.get())))
                                .primaryKey("id")
                                .bucketCount(2)
                                .build());
        try (LakestreamWriter writer =
                new LakestreamWriter(warehouse.catalog().loadTable(identifier), warehouse.allocator())) {
            writer.upsert(Map.of("id", 7L, "name", "new"));
            writer.commit();
        }
    }

    private BatchWrite batchWrite(String table, String queryId) {
        return testing.batchWrite(NS, table, queryId);
    }

    private static WriterCommitMessage writeTask(BatchWrite write, int partition, long... ids) {
        List<InternalRow> rows = new ArrayList<>();
        for (long id : ids) {
            rows.add(new GenericInternalRow(new Object[] {id, UTF8String.fromString("old" + id)}));
        }
        return SparkTesting.writeTask(write, partition, rows);
    }
}
