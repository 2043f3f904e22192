package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_TABLE_DROPPED;
import static io.lakestream.trino.LakestreamQueryRunner.SCHEMA;
import static io.trino.testing.assertions.TrinoExceptionAssert.assertTrinoExceptionThrownBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogPaths;
import io.lakestream.table.TableSpec;
import io.lakestream.write.LakestreamWriter;
import io.trino.spi.Plugin;
import io.trino.spi.function.ScalarFunction;
import io.trino.spi.function.SqlType;
import io.trino.spi.type.StandardTypes;
import io.trino.testing.QueryRunner;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A Trino write (INSERT, DELETE) whose table is dropped, or dropped and re-created through the Java
 * API, while the query runs: the query fails with {@code LAKESTREAM_TABLE_DROPPED}, and the new table
 * holds exactly what was written into it. The query is held in the middle by a function that waits
 * until the test has changed the table.
 */
final class TestLakestreamDroppedTableWrite extends AbstractLakestreamSqlTest {
    private static final Schema SCHEMA_OF_T = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "v", Types.StringType.get()));

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        QueryRunner runner = super.createQueryRunner();
        runner.installPlugin(new Plugin() {
            @Override
            public Set<Class<?>> getFunctions() {
                return Set.of(Pause.class);
            }
        });
        return runner;
    }

    @Test
    void insertIntoReCreatedTableFails() throws Exception {
        assertUpdate(
                "CREATE TABLE recreated (id bigint NOT NULL, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO recreated VALUES (1, 'old')", 1);

        Throwable failure = runWhileChanging(
                "INSERT INTO recreated SELECT pause_query(x), 'late' FROM UNNEST(sequence(10, 20)) t(x)",
                () -> reCreateAndWrite("recreated"));

        assertTrinoExceptionThrownBy(() -> rethrow(failure))
                .hasErrorCode(LAKESTREAM_TABLE_DROPPED)
                .hasMessageContaining("recreated")
                // "dropped" or "dropped and re-created": which one depends on whether a task's page sink
                // looked the table up between the drop and the create, or after it
                .hasMessageContaining("dropped")
                .hasMessageContaining("Re-run");
        assertQuery("SELECT id, v FROM recreated", "VALUES (7, 'new')");
    }

    @Test
    void deleteFromReCreatedTableFails() throws Exception {
        assertUpdate(
                "CREATE TABLE recreated_delete (id bigint NOT NULL, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO recreated_delete VALUES (1, 'old'), (7, 'old')", 2);

        Throwable failure = runWhileChanging(
                "DELETE FROM recreated_delete WHERE pause_query(id) > 0", () -> reCreateAndWrite("recreated_delete"));

        assertTrinoExceptionThrownBy(() -> rethrow(failure)).hasErrorCode(LAKESTREAM_TABLE_DROPPED);
        assertQuery("SELECT id, v FROM recreated_delete", "VALUES (7, 'new')");
    }

    @Test
    void insertIntoDroppedTableFailsAndDoesNotBringItsLogBack() throws Exception {
        assertUpdate(
                "CREATE TABLE dropped (id bigint NOT NULL, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        Path logDirectory =
                LocalLogFileSystem.toPath(tables.load("dropped").log().paths().root());

        Throwable failure = runWhileChanging(
                "INSERT INTO dropped SELECT pause_query(x), 'late' FROM UNNEST(sequence(10, 20)) t(x)",
                () -> tables.catalog().dropTable(TableIdentifier.of(SCHEMA, "dropped")));

        assertTrinoExceptionThrownBy(() -> rethrow(failure))
                .hasErrorCode(LAKESTREAM_TABLE_DROPPED)
                .hasMessageContaining("dropped");
        assertThat(logDirectory.resolve(LogPaths.COMMITS_DIRECTORY)).doesNotExist();
        assertQueryFails("SELECT * FROM dropped", ".*Table '.*dropped' does not exist");
    }

    /** Drops the table and creates it again with the same definition, then writes {@code (7, 'new')} into it. */
    private void reCreateAndWrite(String table) {
        TableIdentifier identifier = TableIdentifier.of(SCHEMA, table);
        tables.catalog().dropTable(identifier);
        tables.catalog()
                .createTable(
                        identifier,
                        TableSpec.builder(SCHEMA_OF_T)
                                .primaryKey("id")
                                .bucketCount(2)
                                .build());
        try (LakestreamWriter writer = new LakestreamWriter(tables.load(table), tables.allocator())) {
            writer.upsert(Map.of("id", 7L, "v", "new"));
            writer.commit();
        }
    }

    /** Runs the statement until {@code pause_query} is first called, runs the change, lets the query go on. */
    private Throwable runWhileChanging(String sql, Runnable change) throws Exception {
        Pause.arm();
        CompletableFuture<Throwable> query = CompletableFuture.supplyAsync(() -> {
            try {
                computeActual(sql);
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        try {
            assertThat(Pause.reached.await(60, TimeUnit.SECONDS))
                    .as("the query reached pause_query")
                    .isTrue();
            change.run();
        } finally {
            Pause.release.countDown();
        }
        Throwable failure = query.get(60, TimeUnit.SECONDS);
        assertThat(failure).as("the query failed").isNotNull();
        return failure;
    }

    private static void rethrow(Throwable failure) throws Throwable {
        throw failure;
    }

    /** {@code pause_query(x)}: returns x; its first call waits until the test releases it. */
    public static final class Pause {
        static volatile CountDownLatch reached = new CountDownLatch(0);
        static volatile CountDownLatch release = new CountDownLatch(0);

        private Pause() {}

        static void arm() {
            release = new CountDownLatch(1);
            reached = new CountDownLatch(1);
        }

        @ScalarFunction(value = "pause_query", deterministic = false)
        @SqlType(StandardTypes.BIGINT)
        public static long pause(@SqlType(StandardTypes.BIGINT) long value) {
            reached.countDown();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return value;
        }
    }
}
