package io.lakestream.trino;

import static io.lakestream.trino.LakestreamSessionProperties.SINGLE_STAGE_POINT_READS_ENABLED;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import io.lakestream.write.LakestreamWriter;
import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import io.trino.testing.QueryRunner.MaterializedResultWithPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Point reads on the primary key run in one stage ({@link LakestreamPointReads}), on a cluster of a coordinator
 * that runs no splits and two workers: the plan has one stage with one task, on a worker, and returns the same
 * rows as the two-stage plan (the session property off) for keys in the lake, in the log tail over the lake, new
 * in the log, and deleted. Every other read keeps two stages. Row-level writes whose scan is a point read plan and
 * commit as before. The random seed is {@code -Dlakestream.test.seed}.
 */
@ExtendWith(Seeds.class)
final class TestLakestreamPointReads extends AbstractTestQueryFramework {
    private static final long SEED = 18L;
    private static final int BUCKETS = 4;

    private LakestreamTestTables otherNode;

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        Path warehouse = Files.createTempDirectory("lakestream-trino-point-reads");
        QueryRunner runner = LakestreamQueryRunner.builder(warehouse)
                .setWorkerCount(2)
                .addCoordinatorProperty("node-scheduler.include-coordinator", "false")
                .build();
        otherNode = new LakestreamTestTables(warehouse);
        return runner;
    }

    @AfterAll
    void closeOtherNode() throws Exception {
        otherNode.close();
    }

    @Test
    void pointReadsRunInOneStageAndMatchTheTwoStagePlan() {
        assertUpdate("CREATE TABLE points (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = "
                + BUCKETS + ")");
        assertUpdate("INSERT INTO points SELECT x, x * 10 FROM UNNEST(sequence(1, 200)) t(x)", 200);
        otherNode.tier("points");
        Map<Long, Long> oracle = new TreeMap<>();
        for (long id = 1; id <= 200; id++) {
            oracle.put(id, id * 10);
        }
        // a log tail over the lake: upserts of lake keys, new keys, deletes of lake keys
        write("points", writer -> {
            for (long id = 150; id <= 250; id++) {
                writer.upsert(Map.of("id", id, "v", -id));
                oracle.put(id, -id);
            }
            for (long id = 1; id <= 20; id++) {
                writer.delete(Map.of("id", id));
                oracle.remove(id);
            }
        });

        Random random = Seeds.random(SEED);
        List<Long> keys = new ArrayList<>(List.of(1L, 20L, 21L, 149L, 150L, 200L, 201L, 250L, 251L));
        for (int i = 0; i < 12; i++) {
            keys.add(1 + (long) random.nextInt(260));
        }
        for (long id : keys) {
            Long v = oracle.get(id);
            String count = "SELECT count(*), max(v) FROM points WHERE id = " + id;
            List<Object> expected = new ArrayList<>();
            expected.add(v == null ? 0L : 1L);
            expected.add(v);
            MaterializedResultWithPlan single = execute(getSession(), count);
            assertThat(row(single)).as(count).isEqualTo(expected);
            assertThat(tasks().tasksPerStage(single.queryId()))
                    .as("one stage of one task: " + count)
                    .containsExactly(1);
            assertThat(tasks().workers())
                    .as("the task's node")
                    .containsAll(tasks().lakestreamSplits(single.queryId()).keySet());

            MaterializedResultWithPlan twoStages = execute(twoStagePointReads(), count);
            assertThat(row(twoStages)).as(count + ", two stages").isEqualTo(expected);
            assertThat(tasks().tasksPerStage(twoStages.queryId())).hasSize(2);

            assertThat(rows(execute(getSession(), "SELECT id, v FROM points WHERE id = " + id)))
                    .isEqualTo(v == null ? List.of() : List.of(List.of(id, v)));
        }

        // not point reads: a scan of every bucket, a range, a key set, the lake view
        for (String notAPointRead : List.of(
                "SELECT count(*) FROM points",
                "SELECT count(*) FROM points WHERE id BETWEEN 10 AND 12",
                "SELECT count(*) FROM points WHERE id IN (10, 11)",
                "SELECT count(*) FROM \"points$lake\" WHERE id = 30")) {
            assertThat(tasks().tasksPerStage(
                                    execute(getSession(), notAPointRead).queryId()))
                    .as(notAPointRead)
                    .hasSize(2);
        }
        assertThat(computeActual("EXPLAIN (TYPE DISTRIBUTED) SELECT count(*) FROM points WHERE id = 30")
                        .getOnlyValue()
                        .toString())
                .contains("Fragment 0")
                .doesNotContain("Fragment 1");
    }

    /** A key of two columns: fixing one of them is not a point read (it may match many rows), fixing both is. */
    @Test
    void aPointReadFixesEveryKeyColumn() {
        assertUpdate("CREATE TABLE pairs (a bigint, b bigint, v bigint) WITH (primary_key = ARRAY['a', 'b'], "
                + "bucket_count = " + BUCKETS + ")");
        assertUpdate("INSERT INTO pairs SELECT x % 5, x, x FROM UNNEST(sequence(1, 50)) t(x)", 50);
        MaterializedResultWithPlan both =
                execute(getSession(), "SELECT count(*), sum(v) FROM pairs WHERE a = 2 AND b = 7");
        assertThat(row(both)).containsExactly(1L, 7L);
        assertThat(tasks().tasksPerStage(both.queryId())).containsExactly(1);
        MaterializedResultWithPlan one = execute(getSession(), "SELECT count(*), sum(v) FROM pairs WHERE a = 2");
        assertThat(row(one)).containsExactly(10L, 245L);
        assertThat(tasks().tasksPerStage(one.queryId())).hasSize(2);
    }

    /**
     * Deciding that a scan is a point read costs no table load: the handle carries the primary key, and the optimizer
     * asks for the table properties many times per query. So a point read asks for its pinned table as often as the
     * same query planned in two stages, where the decision is never made (it loaded the table for every ask before).
     */
    @Test
    void decidingAPointReadLoadsNoTable() {
        assertUpdate("CREATE TABLE loads (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = "
                + BUCKETS + ")");
        assertUpdate("INSERT INTO loads SELECT x, x FROM UNNEST(sequence(1, 20)) t(x)", 20);
        String query = "SELECT count(*) FROM loads WHERE id = 7";
        long singleStage = pinnedTableLoads(getSession(), query);
        long twoStages = pinnedTableLoads(twoStagePointReads(), query);
        assertThat(singleStage)
                .as("pinned table loads of a point read in one stage")
                .isEqualTo(twoStages);
    }

    private long pinnedTableLoads(Session session, String query) {
        long before = pinnedTableLoads();
        assertThat(row(execute(session, query))).containsExactly(1L);
        return pinnedTableLoads() - before;
    }

    private long pinnedTableLoads() {
        return LakestreamQueryRunner.metadataReads(getDistributedQueryRunner(), LakestreamQueryRunner.CATALOG)
                .get("pinnedTableLoads");
    }

    /**
     * {@code DELETE}, {@code UPDATE} and {@code MERGE} whose target scan is a point read plan with it and change
     * exactly the rows they name, one log commit each.
     */
    @Test
    void rowLevelWritesOfOneKey() {
        assertUpdate("CREATE TABLE written (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = "
                + BUCKETS + ")");
        assertUpdate("INSERT INTO written SELECT x, x FROM UNNEST(sequence(1, 40)) t(x)", 40);
        otherNode.tier("written");
        long version = logVersion("written");
        assertUpdate("DELETE FROM written WHERE id = 3", 1);
        assertUpdate("UPDATE written SET v = 500 WHERE id = 5", 1);
        assertUpdate(
                "MERGE INTO written t USING (VALUES (7, 700), (41, 4100)) s(id, v) ON t.id = s.id "
                        + "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)",
                2);
        assertUpdate(
                "MERGE INTO written t USING (VALUES 9) s(id) ON t.id = s.id AND t.id = 9 " + "WHEN MATCHED THEN DELETE",
                1);
        assertUpdate("DELETE FROM written WHERE id = 1000", 0);
        assertThat(logVersion("written") - version).isEqualTo(4);
        assertQuery("SELECT id, v FROM written WHERE id IN (3, 5, 7, 9, 41)", "VALUES (5, 500), (7, 700), (41, 4100)");
        assertQuery(
                "SELECT count(*), sum(v) FROM written",
                "VALUES (39, %s)".formatted(820 - 3 - 5 - 7 - 9 + 500 + 700 + 4100));
    }

    /**
     * A point read as a join side (with another point read, and with a scan of every bucket) and as the source of an
     * {@code INSERT}: Trino plans around the single-node scan (gathers the other side to it, or moves the writer)
     * and the rows are those of the two-stage plan.
     */
    @Test
    void pointReadsInJoinsAndInserts() {
        assertUpdate("CREATE TABLE left_side (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = "
                + BUCKETS + ")");
        assertUpdate("CREATE TABLE right_side (id bigint, w bigint) WITH (primary_key = ARRAY['id'], bucket_count = "
                + BUCKETS + ")");
        assertUpdate("INSERT INTO left_side SELECT x, x FROM UNNEST(sequence(1, 60)) t(x)", 60);
        assertUpdate("INSERT INTO right_side SELECT x, x * 2 FROM UNNEST(sequence(1, 60)) t(x)", 60);
        otherNode.tier("right_side");
        for (String join : List.of(
                "SELECT l.id, l.v, r.w FROM left_side l JOIN right_side r ON l.id = r.id WHERE l.id = 7",
                "SELECT l.id, r.id FROM left_side l JOIN right_side r ON l.v * 2 = r.w WHERE l.id = 8",
                "SELECT l.id, count(*) FROM left_side l CROSS JOIN right_side r WHERE l.id = 9 GROUP BY l.id")) {
            assertThat(rows(execute(getSession(), join)))
                    .as(join)
                    .containsExactlyInAnyOrderElementsOf(rows(execute(twoStagePointReads(), join)));
        }
        assertQuery(
                "SELECT l.id, count(*) FROM left_side l CROSS JOIN right_side r WHERE l.id = 9 GROUP BY l.id",
                "VALUES (9, 60)");

        assertUpdate("CREATE TABLE copied (id bigint, v bigint) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO copied SELECT id, v FROM left_side WHERE id = 11", 1);
        assertUpdate("INSERT INTO copied SELECT id, w FROM right_side WHERE id = 12", 1);
        assertQuery("SELECT id, v FROM copied", "VALUES (11, 11), (12, 24)");
    }

    private MaterializedResultWithPlan execute(Session session, String sql) {
        return getDistributedQueryRunner().executeWithPlan(session, sql);
    }

    private Session twoStagePointReads() {
        return Session.builder(getSession())
                .setCatalogSessionProperty(LakestreamQueryRunner.CATALOG, SINGLE_STAGE_POINT_READS_ENABLED, "false")
                .build();
    }

    private static List<Object> row(MaterializedResultWithPlan result) {
        return result.result().getMaterializedRows().getFirst().getFields();
    }

    private static List<List<Object>> rows(MaterializedResultWithPlan result) {
        return result.result().getMaterializedRows().stream()
                .map(MaterializedRow::getFields)
                .toList();
    }

    private void write(String table, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(otherNode.load(table), otherNode.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }

    private long logVersion(String table) {
        return otherNode.load(table).log().latestSnapshot().version();
    }

    private QueryTasksPerNode tasks() {
        return new QueryTasksPerNode(getDistributedQueryRunner());
    }
}
