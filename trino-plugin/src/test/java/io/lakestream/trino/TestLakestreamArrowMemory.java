package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.CATALOG;
import static org.assertj.core.api.Assertions.assertThat;

import io.trino.execution.SqlTaskManager;
import io.trino.execution.TaskId;
import io.trino.execution.TaskInfo;
import io.trino.server.testing.TestingTrinoServer;
import io.trino.testing.DistributedQueryRunner;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Every split releases its Arrow memory when it is closed before it is read to the end: a write that fails
 * on a row (here a NOT NULL violation, after a batch of the log tail was read), a limit reached early. The
 * connector's allocator (one per catalog and node) must hold no bytes once the query's tasks are gone;
 * otherwise the worker leaks off-heap memory and closing the split fails ("Memory was leaked").
 */
final class TestLakestreamArrowMemory extends AbstractReadPathTest {
    private static final String NOT_NULL_VIOLATION = ".*NULL value not allowed for NOT NULL column: v.*";

    @Test
    void failedUpdateOfTailRowsReleasesTheSplits() {
        tailedTable("failed_update");
        // only rows of the tail match: the failure comes after the split's reader returned a tail batch
        assertQueryFails("UPDATE failed_update SET v = NULL WHERE v = 'upd'", NOT_NULL_VIOLATION);
        assertNoArrowMemoryHeld();
        // the same on the union split reader
        assertQueryFails(unionSplitReader(), "UPDATE failed_update SET v = NULL WHERE v = 'upd'", NOT_NULL_VIOLATION);
        assertNoArrowMemoryHeld();
        assertQuery("SELECT count(*), count_if(v = 'upd') FROM failed_update", "VALUES (210, 20)");
    }

    @Test
    void failedUpdateOfALogOnlyTableReleasesTheSplit() {
        assertUpdate("CREATE TABLE log_update (id integer, n integer NOT NULL) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO log_update VALUES (1, 10)", 1);
        assertQueryFails(
                "UPDATE log_update SET n = NULL WHERE id = 1", ".*NULL value not allowed for NOT NULL column: n.*");
        assertNoArrowMemoryHeld();
        assertQueryFails(
                "UPDATE log_update SET n = TRY(5 / 0) WHERE id = 1",
                ".*NULL value not allowed for NOT NULL column: n.*");
        assertNoArrowMemoryHeld();
    }

    @Test
    void failedMergeOfTailRowsReleasesTheSplits() {
        tailedTable("failed_merge");
        String merge = "MERGE INTO failed_merge t USING (SELECT x AS id FROM UNNEST(sequence(1, 30)) s(x)) s "
                + "ON t.id = s.id WHEN MATCHED AND t.v = 'upd' THEN UPDATE SET v = NULL";
        assertQueryFails(merge, NOT_NULL_VIOLATION);
        assertNoArrowMemoryHeld();
        assertQueryFails(unionSplitReader(), merge, NOT_NULL_VIOLATION);
        assertNoArrowMemoryHeld();
        assertQuery("SELECT count(*), count_if(v = 'upd') FROM failed_merge", "VALUES (210, 20)");
    }

    @Test
    void limitReachedInTheLogReleasesTheSplit() {
        assertUpdate("CREATE TABLE log_only (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO log_only SELECT x, 'log' FROM UNNEST(sequence(1, 100)) t(x)", 100);
        assertThat(computeActual("SELECT * FROM log_only LIMIT 3").getRowCount())
                .isEqualTo(3);
        assertNoArrowMemoryHeld();
    }

    /** A primary-key table with a tiered lake (ids 1 to 200) and a log tail (ids 1 to 20 updated, 201 to 210 new). */
    private void tailedTable(String name) {
        assertUpdate("CREATE TABLE " + name + " (id bigint, v varchar NOT NULL, n integer) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate(
                "INSERT INTO " + name + " SELECT x, 'lake', CAST(x % 10 AS integer) FROM UNNEST(sequence(1, 200)) t(x)",
                200);
        tierAndCompact(name);
        assertUpdate("INSERT INTO " + name + " SELECT x, 'upd', 100 FROM UNNEST(sequence(1, 20)) t(x)", 20);
        assertUpdate("INSERT INTO " + name + " SELECT x, 'new', 7 FROM UNNEST(sequence(201, 210)) t(x)", 10);
    }

    /**
     * Once every task on every node is done (a task is done only after its drivers closed their operators,
     * the page sources and sinks among them), the connector holds no Arrow memory.
     */
    private void assertNoArrowMemoryHeld() {
        DistributedQueryRunner runner = getDistributedQueryRunner();
        for (TestingTrinoServer server : runner.getServers()) {
            SqlTaskManager tasks = server.getTaskManager();
            for (TaskInfo task : tasks.getAllTaskInfo()) {
                awaitDone(tasks, task.taskStatus().taskId());
            }
        }
        assertThat(LakestreamQueryRunner.arrowMemoryAllocated(runner, CATALOG))
                .as("bytes of Arrow memory the connector still holds after the query")
                .isZero();
        assertThat(LakestreamQueryRunner.arrowAllocatorsOpen(runner, CATALOG))
                .as("child allocators (splits, writers) the connector still has open after the query")
                .isZero();
    }

    private static void awaitDone(SqlTaskManager tasks, TaskId task) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        tasks.addStateChangeListener(task, state -> {
            if (state.isDone()) {
                done.complete(null);
            }
        });
        // the task may have finished before the listener was added
        if (tasks.getTaskInfo(task).taskStatus().state().isDone()) {
            done.complete(null);
        }
        assertThat(done).as("task %s finishes", task).succeedsWithin(Duration.ofMinutes(1));
    }
}
