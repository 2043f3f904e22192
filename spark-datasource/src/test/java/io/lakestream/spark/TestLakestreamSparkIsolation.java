package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.PartitionDelete;
import io.lakestream.write.LakestreamWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Snapshot isolation of DELETE, UPDATE and MERGE through Spark SQL: an operation commits only if no
 * change committed after the log version its scan read touches a key it writes or a row its pushed
 * filter may match; otherwise it fails with a conflict and publishes nothing. Blind INSERT stays
 * last-writer-wins. Races are deterministic: {@code race(x)} (a UDF) commits another writer's change
 * after the operation's scan read the table and before the operation commits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkIsolation {
    private static final String NS = "iso";
    private static final int INCREMENTS = Integer.getInteger("lakestream.test.increments", 10);
    private static final AtomicReference<Runnable> ARMED = new AtomicReference<>();

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void setUp() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        testing.spark()
                .udf()
                .register("race", (UDF1<Long, Long>) TestLakestreamSparkIsolation::race, DataTypes.LongType);
    }

    /** Returns its argument; the first call after {@link #arm} runs the armed action (once). */
    private static Long race(Long value) {
        Runnable action = ARMED.getAndSet(null);
        if (action != null) {
            action.run();
        }
        return value;
    }

    private static void arm(Runnable action) {
        ARMED.set(action);
    }

    private void createTable(String name, String columns) {
        testing.sql("CREATE TABLE ls.%s.%s (%s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')"
                .formatted(NS, name, columns));
    }

    @Test
    void concurrentIncrementsNeverLoseAnUpdate() throws Exception {
        createTable("counter", "id BIGINT, n BIGINT");
        testing.sql("INSERT INTO ls.iso.counter VALUES (1, 0), (2, 0)");
        long before = SparkTables.logVersion(NS, "counter");

        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> sessions = new ArrayList<>();
            for (int session = 0; session < 2; session++) {
                SparkSession own = testing.spark().newSession();
                sessions.add(threads.submit(incrementer(own, "UPDATE ls.iso.counter SET n = n + 1 WHERE id = 1")));
            }
            int conflicts = 0;
            for (Future<Integer> session : sessions) {
                conflicts += session.get();
            }
            // every acknowledged increment is there, each one commit: none lost, none applied twice
            assertThat(rows(testing.sql("SELECT id, n FROM ls.iso.counter ORDER BY id")))
                    .isEqualTo(List.of(List.of(1L, (long) 2 * INCREMENTS), List.of(2L, 0L)));
            assertThat(SparkTables.logVersion(NS, "counter")).isEqualTo(before + 2 * INCREMENTS);
            System.out.printf("%s increments by two sessions: %s conflicts retried%n", 2 * INCREMENTS, conflicts);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void updateRacingAnUpsertOfTheSameKeyConflicts() {
        createTable("scores", "id BIGINT, score BIGINT");
        testing.sql("INSERT INTO ls.iso.scores VALUES (1, 10), (2, 20)");
        arm(() -> upsert("scores", Map.of("id", 1L, "score", 100L)));

        assertConflict("scores", "UPDATE ls.iso.scores SET score = race(score) + 1 WHERE id = 1");
        assertThat(rows(testing.sql("SELECT id, score FROM ls.iso.scores ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 100L), List.of(2L, 20L)));
        testing.sql("UPDATE ls.iso.scores SET score = score + 1 WHERE id = 1");
        assertThat(rows(testing.sql("SELECT score FROM ls.iso.scores WHERE id = 1")))
                .isEqualTo(List.of(List.of(101L)));
    }

    @Test
    void updateRacingAChangeOfAnotherKeyCommits() {
        createTable("others", "id BIGINT, score BIGINT");
        testing.sql("INSERT INTO ls.iso.others VALUES (1, 10), (2, 20), (3, 30)");
        arm(() -> commit("others", writer -> {
            writer.upsert(Map.of("id", 2L, "score", 200L));
            writer.delete(Map.of("id", 3L));
        }));

        testing.sql("UPDATE ls.iso.others SET score = race(score) + 1 WHERE id = 1");
        assertThat(ARMED.get()).isNull();
        assertThat(rows(testing.sql("SELECT id, score FROM ls.iso.others ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 11L), List.of(2L, 200L)));
    }

    @Test
    void deleteByConditionRacingAReUpsertOfItsRowConflicts() {
        createTable("sessions", "id BIGINT, status STRING");
        testing.sql("INSERT INTO ls.iso.sessions VALUES (1, 'expired'), (2, 'active'), (3, 'expired')");
        arm(() -> upsert("sessions", Map.of("id", 3L, "status", "active")));

        assertConflict("sessions", "DELETE FROM ls.iso.sessions WHERE status = 'expired' AND race(id) = id");
        // the renewed row survives, and nothing of the DELETE was published (key 1 is still there)
        assertThat(rows(testing.sql("SELECT id, status FROM ls.iso.sessions ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, "expired"), List.of(2L, "active"), List.of(3L, "active")));
        testing.sql("DELETE FROM ls.iso.sessions WHERE status = 'expired'");
        assertThat(rows(testing.sql("SELECT id FROM ls.iso.sessions ORDER BY id")))
                .isEqualTo(List.of(List.of(2L), List.of(3L)));
    }

    @Test
    void deleteByConditionRacingANewMatchingRowConflicts() {
        createTable("tokens", "id BIGINT, status STRING");
        testing.sql("INSERT INTO ls.iso.tokens VALUES (1, 'expired'), (2, 'active')");
        arm(() -> upsert("tokens", Map.of("id", 7L, "status", "expired")));

        assertConflict("tokens", "DELETE FROM ls.iso.tokens WHERE status = 'expired' AND race(id) = id");
        assertThat(rows(testing.sql("SELECT id FROM ls.iso.tokens ORDER BY id")))
                .isEqualTo(List.of(List.of(1L), List.of(2L), List.of(7L)));
    }

    @Test
    void deleteByConditionRacingAnUnrelatedRowCommits() {
        createTable("leases", "id BIGINT, status STRING");
        testing.sql("INSERT INTO ls.iso.leases VALUES (1, 'expired'), (2, 'active')");
        arm(() -> upsert("leases", Map.of("id", 5L, "status", "active")));

        testing.sql("DELETE FROM ls.iso.leases WHERE status = 'expired' AND race(id) = id");
        assertThat(ARMED.get()).isNull();
        assertThat(rows(testing.sql("SELECT id, status FROM ls.iso.leases ORDER BY id")))
                .isEqualTo(List.of(List.of(2L, "active"), List.of(5L, "active")));
    }

    @Test
    void mergeRacingAnUpsertOfAMatchedKeyConflicts() {
        createTable("merged", "id BIGINT, v BIGINT");
        testing.sql("INSERT INTO ls.iso.merged VALUES (1, 1), (2, 2)");
        arm(() -> upsert("merged", Map.of("id", 1L, "v", 100L)));

        assertConflict(
                "merged",
                "MERGE INTO ls.iso.merged t USING (SELECT * FROM VALUES (1L, 5L), (3L, 3L) AS s(id, v)) s ON t.id = s.id "
                        + "WHEN MATCHED THEN UPDATE SET v = race(t.v) + s.v "
                        + "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)");
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.merged ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 100L), List.of(2L, 2L)));
    }

    @Test
    void blindInsertRacingAnUpsertIsLastWriterWins() {
        createTable("blind", "id BIGINT, v BIGINT");
        testing.sql("INSERT INTO ls.iso.blind VALUES (1, 1)");
        long before = SparkTables.logVersion(NS, "blind");
        arm(() -> upsert("blind", Map.of("id", 1L, "v", 100L)));

        testing.sql("INSERT INTO ls.iso.blind SELECT id, race(v) FROM VALUES (1L, 7L) AS s(id, v)");
        assertThat(ARMED.get()).isNull();
        // both commits landed; the INSERT committed last and wins
        assertThat(SparkTables.logVersion(NS, "blind")).isEqualTo(before + 2);
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.blind"))).isEqualTo(List.of(List.of(1L, 7L)));
    }

    /**
     * A MERGE with only NOT MATCHED clauses, which Spark runs as an append of the source rows its left anti join
     * against the table leaves (no row-level operation): it decided "not matched" from what it read, so a key that
     * another writer inserts after that read must fail it, not be overwritten by it. Before, the MERGE committed and
     * its row replaced the racing one.
     */
    @Test
    void notMatchedOnlyMergeRacingAnInsertOfTheSameKeyConflicts() {
        createTable("insert_only", "id BIGINT, v BIGINT");
        testing.sql("INSERT INTO ls.iso.insert_only VALUES (1, 1)");
        arm(() -> upsert("insert_only", Map.of("id", 3L, "v", 300L)));

        assertConflict(
                "insert_only",
                "MERGE INTO ls.iso.insert_only t USING (SELECT * FROM VALUES (1L, 5L), (3L, 3L) AS s(id, v)) s "
                        + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, race(s.v))");
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.insert_only ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 1L), List.of(3L, 300L)));
        // the retry reads key 3: matched, nothing to insert
        testing.sql("MERGE INTO ls.iso.insert_only t USING (SELECT * FROM VALUES (1L, 5L), (3L, 3L) AS s(id, v)) s "
                + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)");
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.insert_only ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 1L), List.of(3L, 300L)));
    }

    /** Without a race the append of a NOT-MATCHED-only MERGE (one clause, or several: Spark's two plans) commits. */
    @Test
    void notMatchedOnlyMergeWithoutARaceInsertsTheUnmatchedRows() {
        createTable("unmatched", "id BIGINT, v BIGINT");
        testing.sql("INSERT INTO ls.iso.unmatched VALUES (1, 1), (2, 2)");
        long before = SparkTables.logVersion(NS, "unmatched");

        testing.sql("MERGE INTO ls.iso.unmatched t USING (SELECT * FROM VALUES (1L, 10L), (3L, 30L) AS s(id, v)) s "
                + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, race(s.v))");
        testing.sql("MERGE INTO ls.iso.unmatched t "
                + "USING (SELECT * FROM VALUES (2L, 20L), (4L, 40L), (5L, 50L), (6L, -6L) AS s(id, v)) s ON t.id = s.id "
                + "WHEN NOT MATCHED AND s.v > 45 THEN INSERT (id, v) VALUES (s.id, s.v + 1) "
                + "WHEN NOT MATCHED AND s.v > 0 THEN INSERT (id, v) VALUES (s.id, s.v)");
        assertThat(SparkTables.logVersion(NS, "unmatched")).isEqualTo(before + 2);
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.unmatched ORDER BY id")))
                .isEqualTo(List.of(
                        List.of(1L, 1L), List.of(2L, 2L), List.of(3L, 30L), List.of(4L, 40L), List.of(5L, 51L)));
    }

    /**
     * A NOT-MATCHED-only MERGE that inserts into a day whose whole-partition DELETE committed after the MERGE read the
     * table: ordered before the delete its row would be deleted, ordered after it the MERGE would have read the day
     * empty; so it fails, like the row-level MERGE. Before, its row of the deleted day stayed. A plain INSERT of the
     * same row, racing the same delete, is a blind write and commits (ordered after the delete).
     */
    @Test
    void notMatchedOnlyMergeRacingAPartitionDeleteConflictsAndABlindInsertDoesNot() {
        testing.sql(("CREATE TABLE ls.%s.merge_days (id BIGINT, day DATE, score BIGINT) PARTITIONED BY (day) "
                        + "TBLPROPERTIES ('primary-key'='id,day', 'bucket.num'='2')")
                .formatted(NS));
        testing.sql("INSERT INTO ls.iso.merge_days VALUES (5, DATE '2026-11-29', 5), (6, DATE '2026-11-30', 6)");
        String select = "SELECT id, CAST(day AS STRING), score FROM ls.iso.merge_days ORDER BY id";

        armDelete("merge_days", "2026-11-29");
        assertPartitionDeleteConflict("MERGE INTO ls.iso.merge_days t "
                + "USING (SELECT * FROM VALUES (5L, DATE '2026-11-29', 50L), (8L, DATE '2026-11-29', 8L) AS s(id, day, score)) s "
                + "ON t.id = s.id AND t.day = s.day "
                + "WHEN NOT MATCHED THEN INSERT (id, day, score) VALUES (s.id, s.day, race(s.score))");
        assertThat(rows(testing.sql(select))).isEqualTo(List.of(List.of(6L, "2026-11-30", 6L)));

        testing.sql("INSERT INTO ls.iso.merge_days VALUES (5, DATE '2026-11-29', 5)");
        armDelete("merge_days", "2026-11-29");
        testing.sql("INSERT INTO ls.iso.merge_days "
                + "SELECT id, day, race(score) FROM VALUES (8L, DATE '2026-11-29', 8L) AS s(id, day, score)");
        assertThat(ARMED.get()).isNull();
        assertThat(rows(testing.sql(select)))
                .isEqualTo(List.of(List.of(6L, "2026-11-30", 6L), List.of(8L, "2026-11-29", 8L)));
    }

    /**
     * {@code INSERT INTO t SELECT ... FROM t} reads the table it writes (Spark resolves both to one loaded table), so
     * it is planned from a read too: here it is an UPDATE in disguise, and without the check the racing upsert would
     * be lost.
     */
    @Test
    void insertSelectingFromTheSameTableRacingAnUpsertConflicts() {
        createTable("self", "id BIGINT, v BIGINT");
        testing.sql("INSERT INTO ls.iso.self VALUES (1, 1), (2, 2)");
        arm(() -> upsert("self", Map.of("id", 1L, "v", 100L)));

        assertConflict("self", "INSERT INTO ls.iso.self SELECT id, race(v) + 1 FROM ls.iso.self WHERE id = 1");
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.self ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 100L), List.of(2L, 2L)));
    }

    /**
     * The limit of the link: a DataFrame read from the table and appended to it with {@code writeTo} is two loads of
     * the table (the DataFrame's, when it was created, and the write's), so the append sees no scan and is blind:
     * last writer wins, as documented (docs/writes.md).
     */
    @Test
    void dataFrameReadFromTheTableAndAppendedWithWriteToIsBlind() throws Exception {
        createTable("frames", "id BIGINT, v BIGINT");
        testing.sql("INSERT INTO ls.iso.frames VALUES (1, 1)");
        long before = SparkTables.logVersion(NS, "frames");
        arm(() -> upsert("frames", Map.of("id", 1L, "v", 100L)));

        testing.spark()
                .table("ls.iso.frames")
                .where("id = 1")
                .selectExpr("id", "race(v) + 1 AS v")
                .writeTo("ls.iso.frames")
                .append();
        assertThat(ARMED.get()).isNull();
        assertThat(SparkTables.logVersion(NS, "frames")).isEqualTo(before + 2);
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.frames"))).isEqualTo(List.of(List.of(1L, 2L)));
    }

    /**
     * On an append-only table (where Spark's NOT-MATCHED-only MERGE works, as an append) the MERGE has no key to
     * collide on: a row inserted after its read that its ON condition would have matched makes it fail (its scan's
     * condition is {@code true}, as for every MERGE), so it never inserts a second "absent" row.
     */
    @Test
    void notMatchedOnlyMergeIntoAnAppendOnlyTableRacingAMatchingInsertConflicts() {
        testing.sql("CREATE TABLE ls.iso.events (id BIGINT, v BIGINT) TBLPROPERTIES ('bucket.num'='2')");
        testing.sql("INSERT INTO ls.iso.events VALUES (1, 1)");
        arm(() -> commit("events", writer -> writer.append(Map.of("id", 3L, "v", 300L))));

        assertConflict(
                "events",
                "MERGE INTO ls.iso.events t USING (SELECT * FROM VALUES (1L, 5L), (3L, 3L) AS s(id, v)) s "
                        + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, race(s.v))");
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.events ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 1L), List.of(3L, 300L)));
        testing.sql("MERGE INTO ls.iso.events t USING (SELECT * FROM VALUES (1L, 5L), (4L, 4L) AS s(id, v)) s "
                + "ON t.id = s.id WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)");
        assertThat(rows(testing.sql("SELECT id, v FROM ls.iso.events ORDER BY id")))
                .isEqualTo(List.of(List.of(1L, 1L), List.of(3L, 300L), List.of(4L, 4L)));
    }

    /**
     * An UPDATE that read a row of a day, racing a DELETE of that whole day (a lake-only partition delete, through
     * the engine-neutral {@link PartitionDelete} that {@code deleteWhere} runs) committed between the UPDATE's scan
     * and its commit: the UPDATE fails with the conflict and the deleted row stays deleted.
     */
    @Test
    void updateRacingAPartitionDeleteConflicts() {
        testing.sql(("CREATE TABLE ls.%s.days (id BIGINT, day DATE, score BIGINT) PARTITIONED BY (day) "
                        + "TBLPROPERTIES ('primary-key'='id,day', 'bucket.num'='2')")
                .formatted(NS));
        testing.sql("INSERT INTO ls.iso.days VALUES (5, DATE '2026-11-29', 5), (6, DATE '2026-11-30', 6)");
        arm(() -> {
            LakestreamTable table = SparkTables.load(NS, "days");
            new PartitionDelete()
                    .delete(
                            table,
                            Expressions.equal("day", "2026-11-29"),
                            table.log().latestSnapshot().version());
        });

        Throwable update =
                catchThrowable(() -> testing.sql("UPDATE ls.iso.days SET score = race(score) + 1 WHERE id = 5"));

        assertThat(ARMED.get()).isNull();
        String select = "SELECT id, CAST(day AS STRING), score FROM ls.iso.days";
        // never the updated row of the deleted day back
        assertThat(rows(testing.sql(select))).isEqualTo(List.of(List.of(6L, "2026-11-30", 6L)));
        assertThat(update).isNotNull();
        assertThat(messages(update))
                .contains("LOG_COMMIT_CONFLICT")
                .contains("partition delete")
                .contains("retry the statement");
        // the retry reads the day deleted: nothing to update, no conflict
        testing.sql("UPDATE ls.iso.days SET score = score + 1 WHERE id = 5");
        assertThat(rows(testing.sql(select))).isEqualTo(List.of(List.of(6L, "2026-11-30", 6L)));
    }

    /**
     * The fence is per partition: a DELETE of one whole day, committed between a statement's scan and its commit,
     * fails only statements that read or write that day. An UPDATE of the other day commits (before, every racing
     * statement failed); an UPDATE whose condition covers the deleted day but writes only the other one, and a MERGE
     * inserting into the deleted day, still conflict. (A MERGE with only NOT MATCHED clauses, which Spark plans as
     * an append: {@link #notMatchedOnlyMergeRacingAPartitionDeleteConflictsAndABlindInsertDoesNot}.)
     */
    @Test
    void partitionDeleteConflictsOnlyWithStatementsTouchingItsPartitions() {
        testing.sql(("CREATE TABLE ls.%s.two_days (id BIGINT, day DATE, score BIGINT) PARTITIONED BY (day) "
                        + "TBLPROPERTIES ('primary-key'='id,day', 'bucket.num'='2')")
                .formatted(NS));
        testing.sql("INSERT INTO ls.iso.two_days VALUES (5, DATE '2026-11-29', 5), (6, DATE '2026-11-30', 6)");
        String select = "SELECT id, CAST(day AS STRING), score FROM ls.iso.two_days";
        armDelete("two_days", "2026-11-29");
        testing.sql("UPDATE ls.iso.two_days SET score = race(score) + 1 WHERE day = DATE '2026-11-30'");
        assertThat(ARMED.get()).isNull();
        assertThat(rows(testing.sql(select))).isEqualTo(List.of(List.of(6L, "2026-11-30", 7L)));

        testing.sql("INSERT INTO ls.iso.two_days VALUES (5, DATE '2026-11-29', 5)");
        armDelete("two_days", "2026-11-29");
        assertPartitionDeleteConflict("UPDATE ls.iso.two_days SET score = race(score) + 1 "
                + "WHERE day IN (DATE '2026-11-29', DATE '2026-11-30') AND id = 6");
        assertThat(rows(testing.sql(select))).isEqualTo(List.of(List.of(6L, "2026-11-30", 7L)));

        armDelete("two_days", "2026-11-29");
        assertPartitionDeleteConflict("MERGE INTO ls.iso.two_days t "
                + "USING (SELECT 8L AS id, DATE '2026-11-29' AS day, 8L AS score) s "
                + "ON t.id = s.id AND t.day = s.day "
                + "WHEN MATCHED THEN UPDATE SET score = s.score "
                + "WHEN NOT MATCHED THEN INSERT (id, day, score) VALUES (s.id, s.day, race(s.score))");
        assertThat(rows(testing.sql(select))).isEqualTo(List.of(List.of(6L, "2026-11-30", 7L)));
    }

    /** The next {@code race(x)} deletes the whole day through {@link PartitionDelete}, as another session would. */
    private void armDelete(String table, String day) {
        arm(() -> {
            LakestreamTable loaded = SparkTables.load(NS, table);
            new PartitionDelete()
                    .delete(
                            loaded,
                            Expressions.equal("day", day),
                            loaded.log().latestSnapshot().version());
        });
    }

    private void assertPartitionDeleteConflict(String statement) {
        Throwable failure = catchThrowable(() -> testing.sql(statement));
        assertThat(ARMED.get()).isNull();
        assertThat(failure).isNotNull();
        assertThat(messages(failure))
                .contains("LOG_COMMIT_CONFLICT")
                .contains("partition delete")
                .contains("retry the statement");
    }

    private void assertConflict(String table, String statement) {
        long before = SparkTables.logVersion(NS, table);
        long segments = SparkTables.segmentFiles(NS, table);
        assertThatThrownBy(() -> testing.sql(statement))
                .satisfies(e ->
                        assertThat(messages(e)).contains("LOG_COMMIT_CONFLICT").contains("retry the statement"));
        assertThat(ARMED.get()).isNull();
        // only the racing commit landed, and the operation's staged segments were deleted
        assertThat(SparkTables.logVersion(NS, table)).isEqualTo(before + 1);
        assertThat(SparkTables.segmentFiles(NS, table)).isEqualTo(segments + 1);
    }

    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            all.append(cause.getMessage()).append('\n');
        }
        return all.toString();
    }

    /** Runs the increment {@link #INCREMENTS} times in its own session, retrying each conflict; returns how many. */
    private static Callable<Integer> incrementer(SparkSession session, String statement) {
        return () -> {
            int conflicts = 0;
            for (int done = 0; done < INCREMENTS; ) {
                try {
                    session.sql(statement);
                    done++;
                } catch (RuntimeException e) {
                    if (!messages(e).contains("LOG_COMMIT_CONFLICT")) {
                        throw e;
                    }
                    conflicts++;
                }
            }
            return conflicts;
        };
    }

    private void upsert(String table, Map<String, ?> row) {
        commit(table, writer -> writer.upsert(row));
    }

    private void commit(String table, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(
                SparkTables.load(NS, table), testing.warehouse().allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }
}
