package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code UPDATE} and {@code MERGE INTO} through Spark SQL on primary-key tables: rows in the log tail
 * and in the lake, across the real tiering service; each statement is one log commit, a failed
 * statement commits nothing, and what they change stays changed after tiering.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkUpdateMerge {
    private static final String NS = "upd";
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    private void createTable(String name) {
        testing.sql(("CREATE TABLE ls.%s.%s (id BIGINT, name STRING, score INT) "
                        + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='3')")
                .formatted(NS, name));
    }

    private List<List<Object>> all(String name) {
        return rows(testing.sql("SELECT id, name, score FROM ls.upd.%s ORDER BY id".formatted(name)));
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    /** Runs a statement and checks that it published exactly {@code commits} log commits. */
    private void run(String name, String sql, int commits) {
        long before = SparkTables.logVersion(NS, name);
        testing.sql(sql);
        assertThat(SparkTables.logVersion(NS, name)).as(sql).isEqualTo(before + commits);
    }

    @Test
    void updateRowsInTheLakeAndInTheLogTail() {
        createTable("scores");
        testing.sql("INSERT INTO ls.upd.scores VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30), (4, 'd', 40)");
        tier("scores");
        testing.sql("INSERT INTO ls.upd.scores VALUES (5, 'e', 50), (2, 'b2', 21)");

        // rows 1 and 3 only in the lake, 2 in both (the log version wins), 5 only in the log
        run("scores", "UPDATE ls.upd.scores SET score = score + 100 WHERE id IN (1, 2, 5)", 1);
        List<List<Object>> expected = List.of(
                List.of(1L, "a", 110),
                List.of(2L, "b2", 121),
                List.of(3L, "c", 30),
                List.of(4L, "d", 40),
                List.of(5L, "e", 150));
        assertThat(all("scores")).isEqualTo(expected);
        // a predicate on a non-key column, evaluated over the union read
        run("scores", "UPDATE ls.upd.scores SET name = upper(name) WHERE score < 45", 1);
        expected = List.of(
                List.of(1L, "a", 110),
                List.of(2L, "b2", 121),
                List.of(3L, "C", 30),
                List.of(4L, "D", 40),
                List.of(5L, "e", 150));
        assertThat(all("scores")).isEqualTo(expected);
        // an UPDATE that matches nothing commits nothing
        run("scores", "UPDATE ls.upd.scores SET score = 0 WHERE id = 99", 0);

        tier("scores");
        assertThat(all("scores")).isEqualTo(expected);
        assertThat(rows(testing.sql("SELECT id, name, score FROM ls.upd.`scores$lake` ORDER BY id")))
                .isEqualTo(expected);
    }

    @Test
    void updateOfThePrimaryKeyFailsAndCommitsNothing() {
        createTable("keys");
        testing.sql("INSERT INTO ls.upd.keys VALUES (1, 'a', 10), (2, 'b', 20)");
        long before = SparkTables.logVersion(NS, "keys");
        assertThatThrownBy(() -> testing.sql("UPDATE ls.upd.keys SET id = id + 10, score = 0"))
                .hasStackTraceContaining("UPDATE of primary key column id")
                .hasStackTraceContaining("delete the row and insert it with the new key");
        assertThat(SparkTables.logVersion(NS, "keys")).isEqualTo(before);
        assertThat(all("keys")).isEqualTo(List.of(List.of(1L, "a", 10), List.of(2L, "b", 20)));
    }

    @Test
    void mergeUpdatesDeletesAndInsertsInOneCommit() {
        createTable("target");
        testing.sql("INSERT INTO ls.upd.target VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)");
        tier("target");
        testing.sql("INSERT INTO ls.upd.target VALUES (4, 'd', 40)");
        testing.sql("CREATE OR REPLACE TEMPORARY VIEW changes AS SELECT * FROM VALUES"
                + " (1, 'a1', 11, 'upsert'), (2, NULL, NULL, 'delete'), (4, 'd1', 41, 'upsert'), (6, 'f', 60, 'upsert')"
                + " AS changes(id, name, score, op)");

        run(
                "target",
                "MERGE INTO ls.upd.target t USING changes c ON t.id = c.id"
                        + " WHEN MATCHED AND c.op = 'delete' THEN DELETE"
                        + " WHEN MATCHED THEN UPDATE SET t.name = c.name, t.score = c.score"
                        + " WHEN NOT MATCHED THEN INSERT (id, name, score) VALUES (c.id, c.name, c.score)",
                1);
        List<List<Object>> expected =
                List.of(List.of(1L, "a1", 11), List.of(3L, "c", 30), List.of(4L, "d1", 41), List.of(6L, "f", 60));
        assertThat(all("target")).isEqualTo(expected);

        tier("target");
        assertThat(all("target")).isEqualTo(expected);
        assertThat(rows(testing.sql("SELECT id FROM ls.upd.`target$lake` ORDER BY id")))
                .isEqualTo(List.of(List.of(1L), List.of(3L), List.of(4L), List.of(6L)));
    }

    @Test
    void updateAndMergeOnAnAppendOnlyTableFailClearly() {
        testing.sql("CREATE TABLE ls.upd.events (id BIGINT, kind STRING) TBLPROPERTIES ('bucket.num'='2')");
        testing.sql("INSERT INTO ls.upd.events VALUES (1, 'a')");
        assertThatThrownBy(() -> testing.sql("UPDATE ls.upd.events SET kind = 'b' WHERE id = 1"))
                .hasMessageContaining("UPDATE on")
                .hasMessageContaining("append-only table");
        assertThatThrownBy(() -> testing.sql("MERGE INTO ls.upd.events t USING (SELECT 1L AS id) s ON t.id = s.id"
                        + " WHEN MATCHED THEN DELETE"))
                .hasMessageContaining("append-only table");
        assertThat(rows(testing.sql("SELECT id, kind FROM ls.upd.events"))).isEqualTo(List.of(List.of(1L, "a")));
    }
}
