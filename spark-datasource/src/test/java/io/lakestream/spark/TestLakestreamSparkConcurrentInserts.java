package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two Spark sessions, each with its own catalog instance (as two applications would have), run many
 * {@code INSERT}s at the same time into the same append-only and primary-key tables, while tiering
 * runs next to them. Their log commits race on the same commit files: every statement must land
 * exactly once, in its own commit, before and after the lake catches up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkConcurrentInserts {
    private static final String NS = "concurrent";
    private static final int SESSIONS = 2;
    private static final int STATEMENTS = 12;
    private static final int ROWS_PER_STATEMENT = 25;
    private static final long EXPECTED_ROWS = (long) SESSIONS * STATEMENTS * ROWS_PER_STATEMENT;

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createTables() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        testing.sql("CREATE TABLE ls.concurrent.events (id BIGINT NOT NULL, session INT, statement INT) "
                + "TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='3')");
        testing.sql("CREATE TABLE ls.concurrent.users (id BIGINT, session INT, statement INT) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')");
    }

    @Test
    void concurrentInsertsFromTwoSessionsLandExactlyOnce() throws Exception {
        long eventsVersion = SparkTables.logVersion(NS, "events");
        long usersVersion = SparkTables.logVersion(NS, "users");
        ExecutorService writers = Executors.newFixedThreadPool(SESSIONS);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int session = 0; session < SESSIONS; session++) {
                // newSession: own SQL conf and own catalog instances, shared SparkContext
                SparkSession spark = testing.spark().newSession();
                int id = session;
                done.add(writers.submit(() -> {
                    start.await();
                    for (int statement = 0; statement < STATEMENTS; statement++) {
                        spark.sql(insert("events", id, statement));
                        spark.sql(insert("users", id, statement));
                    }
                    return null;
                }));
            }
            start.countDown();
            // tiering commits to the lake while the log commits race (a different process in production)
            int rounds = 0;
            while (!done.stream().allMatch(Future::isDone)) {
                testing.tiering().tier(SparkTables.load(NS, "events"));
                testing.tiering().tier(SparkTables.load(NS, "users"));
                rounds++;
            }
            for (Future<?> future : done) {
                future.get(5, TimeUnit.MINUTES);
            }
            assertThat(rounds).as("tiering rounds during the inserts").isPositive();
        } finally {
            writers.shutdownNow();
        }

        assertThat(SparkTables.logVersion(NS, "events") - eventsVersion)
                .as("one log commit per INSERT into events")
                .isEqualTo(SESSIONS * STATEMENTS);
        assertThat(SparkTables.logVersion(NS, "users") - usersVersion)
                .as("one log commit per INSERT into users")
                .isEqualTo(SESSIONS * STATEMENTS);
        assertEveryRowOnce("before the final tiering");

        testing.tiering().tier(SparkTables.load(NS, "events"));
        testing.tiering().tier(SparkTables.load(NS, "users"));
        assertThat(rows(testing.sql("SELECT sum(records_behind) FROM ls.concurrent.`users$offsets`")))
                .containsExactly(List.of(0L));
        assertEveryRowOnce("after tiering");
        for (String table : List.of("events", "users")) {
            assertThat(rows(testing.sql("SELECT count(*) FROM ls.concurrent." + table + " WITH ('read-mode'='lake')")))
                    .as("the lake alone holds every row of %s after tiering", table)
                    .containsExactly(List.of(EXPECTED_ROWS));
        }
    }

    /** Rows of one statement: ids unique across sessions and statements. */
    private static String insert(String table, int session, int statement) {
        long first = ((long) session * STATEMENTS + statement) * ROWS_PER_STATEMENT;
        return "INSERT INTO ls.concurrent.%s SELECT id, %d, %d FROM range(%d, %d)"
                .formatted(table, session, statement, first, first + ROWS_PER_STATEMENT);
    }

    private void assertEveryRowOnce(String when) {
        for (String table : List.of("events", "users")) {
            String name = "ls.concurrent." + table;
            assertThat(rows(testing.sql("SELECT count(*), count(DISTINCT id), min(id), max(id) FROM " + name)))
                    .as("%s: every row exactly once %s", table, when)
                    .containsExactly(List.of(EXPECTED_ROWS, EXPECTED_ROWS, 0L, EXPECTED_ROWS - 1));
            // each row carries the session and statement that wrote it
            assertThat(rows(testing.sql("SELECT count(*) FROM " + name + " WHERE id DIV " + ROWS_PER_STATEMENT
                            + " <> session * " + STATEMENTS + " + statement")))
                    .as("%s: rows with the wrong writer %s", table, when)
                    .containsExactly(List.of(0L));
            assertThat(rows(testing.sql("SELECT count(*) FROM (SELECT session, statement FROM " + name
                            + " GROUP BY session, statement HAVING count(*) = " + ROWS_PER_STATEMENT + ")")))
                    .as("%s: complete statements %s", table, when)
                    .containsExactly(List.of((long) SESSIONS * STATEMENTS));
        }
    }
}
