package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.PartitionDelete;
import io.lakestream.write.LakestreamWriter;
import io.trino.spi.Plugin;
import io.trino.testing.QueryRunner;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;

/**
 * Snapshot isolation of UPDATE, DELETE and MERGE through Trino: a statement commits only if no
 * change committed after the log version it read touches a key it writes or a row its filter may
 * match; otherwise it fails with a conflict and publishes nothing. Blind INSERT stays
 * last-writer-wins. Races are made deterministic with {@link RaceFunctions}: {@code race(x)} in the
 * statement commits another writer's change after the statement's scan read the table and before
 * it commits.
 */
final class TestLakestreamIsolation extends AbstractLakestreamSqlTest {
    private static final int INCREMENTS = Integer.getInteger("lakestream.test.increments", 10);

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        QueryRunner runner = super.createQueryRunner();
        runner.installPlugin(new Plugin() {
            @Override
            public Set<Class<?>> getFunctions() {
                return Set.of(RaceFunctions.class);
            }
        });
        return runner;
    }

    /**
     * Exact lake reads: a race's partition delete runs outside this cluster's {@code executeDelete} (which makes the
     * coordinator forget its recent lake); every statement's scan then pins the catalog's lake, so what each test
     * reads does not depend on the recent-lake rules (those are tested in {@code TestLakestreamPartitionDeletes}).
     */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void concurrentIncrementsNeverLoseAnUpdate() throws Exception {
        assertUpdate("CREATE TABLE counter (id bigint, n bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO counter VALUES (1, 0), (2, 0)", 2);
        long before = tables.load("counter").log().latestSnapshot().version();

        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            List<Future<Integer>> sessions = new ArrayList<>();
            for (int session = 0; session < 2; session++) {
                sessions.add(threads.submit(incrementer("UPDATE counter SET n = n + 1 WHERE id = 1")));
            }
            int conflicts = 0;
            for (Future<Integer> session : sessions) {
                conflicts += session.get();
            }
            // every acknowledged increment is there, and each is one commit: none was lost or applied twice
            assertQuery("SELECT n FROM counter WHERE id = 1", "VALUES " + 2 * INCREMENTS);
            assertQuery("SELECT n FROM counter WHERE id = 2", "VALUES 0");
            assertThat(tables.load("counter").log().latestSnapshot().version()).isEqualTo(before + 2 * INCREMENTS);
            System.out.printf("%s increments by two sessions: %s conflicts retried%n", 2 * INCREMENTS, conflicts);
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void updateRacingAnUpsertOfTheSameKeyConflicts() {
        assertUpdate(
                "CREATE TABLE scores (id bigint, score bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO scores VALUES (1, 10), (2, 20)", 2);
        RaceFunctions.arm(() -> upsert("scores", Map.of("id", 1L, "score", 100L)));

        assertConflict("UPDATE scores SET score = race(score) + 1 WHERE id = 1");
        // the racing upsert survives; the update published nothing
        assertQuery("SELECT id, score FROM scores", "VALUES (1, 100), (2, 20)");
        // retried, it reads the new state
        assertUpdate("UPDATE scores SET score = score + 1 WHERE id = 1", 1);
        assertQuery("SELECT score FROM scores WHERE id = 1", "VALUES 101");
    }

    @Test
    void updateRacingAChangeOfAnotherKeyCommits() {
        assertUpdate(
                "CREATE TABLE others (id bigint, score bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO others VALUES (1, 10), (2, 20), (3, 30)", 3);
        RaceFunctions.arm(() -> commit("others", writer -> {
            writer.upsert(Map.of("id", 2L, "score", 200L));
            writer.delete(Map.of("id", 3L));
        }));

        assertUpdate("UPDATE others SET score = race(score) + 1 WHERE id = 1", 1);
        assertThat(RaceFunctions.fired()).isTrue();
        assertQuery("SELECT id, score FROM others", "VALUES (1, 11), (2, 200)");
    }

    @Test
    void deleteByConditionRacingAReUpsertOfItsRowConflicts() {
        assertUpdate(
                "CREATE TABLE sessions (id bigint, status varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO sessions VALUES (1, 'expired'), (2, 'active'), (3, 'expired')", 3);
        // key 3 is renewed after the DELETE read it as expired
        RaceFunctions.arm(() -> upsert("sessions", Map.of("id", 3L, "status", "active")));

        assertConflict("DELETE FROM sessions WHERE status = 'expired' AND race(id) = id");
        // the renewed row survives, and nothing of the DELETE was published (key 1 is still there)
        assertQuery("SELECT id, status FROM sessions", "VALUES (1, 'expired'), (2, 'active'), (3, 'active')");
        assertUpdate("DELETE FROM sessions WHERE status = 'expired'", 1);
        assertQuery("SELECT id, status FROM sessions", "VALUES (2, 'active'), (3, 'active')");
    }

    @Test
    void deleteByConditionRacingANewMatchingRowConflicts() {
        assertUpdate(
                "CREATE TABLE tokens (id bigint, status varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO tokens VALUES (1, 'expired'), (2, 'active')", 2);
        RaceFunctions.arm(() -> upsert("tokens", Map.of("id", 7L, "status", "expired")));

        assertConflict("DELETE FROM tokens WHERE status = 'expired' AND race(id) = id");
        assertQuery("SELECT id FROM tokens", "VALUES 1, 2, 7");
    }

    @Test
    void deleteByConditionRacingAnUnrelatedRowCommits() {
        assertUpdate(
                "CREATE TABLE leases (id bigint, status varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO leases VALUES (1, 'expired'), (2, 'active')", 2);
        // another key, a row the condition does not match
        RaceFunctions.arm(() -> upsert("leases", Map.of("id", 5L, "status", "active")));

        assertUpdate("DELETE FROM leases WHERE status = 'expired' AND race(id) = id", 1);
        assertThat(RaceFunctions.fired()).isTrue();
        assertQuery("SELECT id, status FROM leases", "VALUES (2, 'active'), (5, 'active')");
    }

    @Test
    void mergeRacingAnUpsertOfAMatchedKeyConflicts() {
        assertUpdate("CREATE TABLE merged (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO merged VALUES (1, 1), (2, 2)", 2);
        RaceFunctions.arm(() -> upsert("merged", Map.of("id", 1L, "v", 100L)));

        assertConflict("MERGE INTO merged t USING (VALUES (1, 5), (3, 3)) s(id, v) ON t.id = s.id "
                + "WHEN MATCHED THEN UPDATE SET v = race(t.v) + s.v "
                + "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)");
        assertQuery("SELECT id, v FROM merged", "VALUES (1, 100), (2, 2)");
    }

    @Test
    void blindInsertRacingAnUpsertIsLastWriterWins() {
        assertUpdate("CREATE TABLE blind (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO blind VALUES (1, 1)", 1);
        long before = tables.load("blind").log().latestSnapshot().version();
        RaceFunctions.arm(() -> upsert("blind", Map.of("id", 1L, "v", 100L)));

        assertUpdate("INSERT INTO blind SELECT id, race(v) FROM (VALUES (BIGINT '1', BIGINT '7')) s(id, v)", 1);
        assertThat(RaceFunctions.fired()).isTrue();
        // both commits landed; the INSERT committed last and wins
        assertThat(tables.load("blind").log().latestSnapshot().version()).isEqualTo(before + 2);
        assertQuery("SELECT id, v FROM blind", "VALUES (1, 7)");
    }

    /**
     * An UPDATE that read a row of a day, racing a DELETE of that whole day (a lake-only partition delete, run
     * through the engine-neutral {@link PartitionDelete} that the connector's {@code executeDelete} runs) committed
     * between the UPDATE's scan and its commit: the UPDATE fails with the conflict and the deleted row stays deleted.
     */
    @Test
    void updateRacingAPartitionDeleteConflicts() {
        assertUpdate("CREATE TABLE days (id bigint, day date, score bigint) "
                + "WITH (primary_key = ARRAY['id', 'day'], bucket_count = 2, partitioning = ARRAY['day'])");
        assertUpdate("INSERT INTO days VALUES (5, DATE '2026-11-29', 5), (6, DATE '2026-11-30', 6)", 2);
        RaceFunctions.arm(() -> {
            LakestreamTable table = tables.load("days");
            new PartitionDelete()
                    .delete(
                            table,
                            Expressions.equal("day", "2026-11-29"),
                            table.log().latestSnapshot().version());
        });

        Throwable update =
                catchThrowable(() -> getQueryRunner().execute("UPDATE days SET score = race(score) + 1 WHERE id = 5"));

        assertThat(RaceFunctions.fired()).isTrue();
        // never the updated row of the deleted day back
        assertQuery("SELECT id, day, score FROM days", "VALUES (6, DATE '2026-11-30', 6)");
        assertThat(update)
                .hasMessageContaining("LOG_COMMIT_CONFLICT")
                .hasMessageContaining("partition delete")
                .hasMessageContaining("retry the statement");
        // the retry reads the day deleted: nothing to update, no conflict
        assertUpdate("UPDATE days SET score = score + 1 WHERE id = 5", 0);
        assertQuery("SELECT id, day, score FROM days", "VALUES (6, DATE '2026-11-30', 6)");
    }

    /**
     * The fence is per partition: a DELETE of one whole day, committed between a statement's scan and its commit,
     * fails only statements that read or write that day. An UPDATE of the other day commits (before, every racing
     * statement failed); an UPDATE whose condition covers the deleted day but writes only the other one, and a MERGE
     * inserting into the deleted day, still conflict.
     */
    @Test
    void partitionDeleteConflictsOnlyWithStatementsTouchingItsPartitions() {
        assertUpdate("CREATE TABLE two_days (id bigint, day date, score bigint) "
                + "WITH (primary_key = ARRAY['id', 'day'], bucket_count = 2, partitioning = ARRAY['day'])");
        assertUpdate("INSERT INTO two_days VALUES (5, DATE '2026-11-29', 5), (6, DATE '2026-11-30', 6)", 2);
        armDelete("two_days", "2026-11-29");
        assertUpdate("UPDATE two_days SET score = race(score) + 1 WHERE day = DATE '2026-11-30'", 1);
        assertThat(RaceFunctions.fired()).isTrue();
        assertQuery("SELECT id, day, score FROM two_days", "VALUES (6, DATE '2026-11-30', 7)");

        assertUpdate("INSERT INTO two_days VALUES (5, DATE '2026-11-29', 5)", 1);
        armDelete("two_days", "2026-11-29");
        assertConflict("UPDATE two_days SET score = race(score) + 1 "
                + "WHERE day IN (DATE '2026-11-29', DATE '2026-11-30') AND id = 6");
        assertQuery("SELECT id, day, score FROM two_days", "VALUES (6, DATE '2026-11-30', 7)");

        armDelete("two_days", "2026-11-29");
        assertConflict(
                "MERGE INTO two_days t USING (VALUES (BIGINT '8', DATE '2026-11-29', BIGINT '8')) s(id, day, score) "
                        + "ON t.id = s.id AND t.day = s.day "
                        + "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.day, race(s.score))");
        assertQuery("SELECT id, day, score FROM two_days", "VALUES (6, DATE '2026-11-30', 7)");
    }

    /** The next {@code race(x)} deletes the whole day through {@link PartitionDelete}, as another cluster would. */
    private void armDelete(String table, String day) {
        RaceFunctions.arm(() -> {
            LakestreamTable loaded = tables.load(table);
            new PartitionDelete()
                    .delete(
                            loaded,
                            Expressions.equal("day", day),
                            loaded.log().latestSnapshot().version());
        });
    }

    private void assertConflict(String statement) {
        long before = tables.load(tableOf(statement)).log().latestSnapshot().version();
        assertThatThrownBy(() -> getQueryRunner().execute(statement))
                .hasMessageContaining("LOG_COMMIT_CONFLICT")
                .hasMessageContaining("retry the statement");
        assertThat(RaceFunctions.fired()).isTrue();
        // only the racing commit landed
        assertThat(tables.load(tableOf(statement)).log().latestSnapshot().version())
                .isEqualTo(before + 1);
    }

    /** The table a test statement changes: the word after UPDATE, FROM or INTO. */
    private static String tableOf(String statement) {
        String[] words = statement.split("\\s+");
        for (int i = 0; i < words.length - 1; i++) {
            if (words[i].equals("UPDATE") || words[i].equals("FROM") || words[i].equals("INTO")) {
                return words[i + 1];
            }
        }
        throw new IllegalArgumentException(statement);
    }

    /** Runs the increment {@link #INCREMENTS} times, retrying each conflict; returns how many it retried. */
    private Callable<Integer> incrementer(String statement) {
        return () -> {
            int conflicts = 0;
            for (int done = 0; done < INCREMENTS; ) {
                try {
                    getQueryRunner().execute(statement);
                    done++;
                } catch (RuntimeException e) {
                    if (!String.valueOf(e.getMessage()).contains("LOG_COMMIT_CONFLICT")) {
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
        LakestreamTable loaded = tables.load(table);
        try (LakestreamWriter writer = new LakestreamWriter(loaded, tables.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }
}
