package io.lakestream.trino;

import static io.lakestream.trino.LakestreamSessionProperties.SINGLE_STAGE_POINT_READS_ENABLED;
import static org.assertj.core.api.Assertions.assertThat;

import io.trino.Session;
import io.trino.plugin.exchange.filesystem.FileSystemExchangePlugin;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Point reads under Trino's fault-tolerant execution ({@code retry_policy = 'TASK'}, with Trino's file system exchange
 * manager, which that policy needs): the single-node partitioning of a point read ({@link LakestreamPointReads}) is
 * planned and scheduled by the fault-tolerant scheduler too, and returns the rows of the two-stage plan and of the
 * same read without retries. Writes refuse fault-tolerant execution (docs/trino.md), so the rows are written with
 * the default policy.
 */
final class TestLakestreamPointReadsTaskRetries extends AbstractTestQueryFramework {
    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        Path warehouse = Files.createTempDirectory("lakestream-trino-task-retries");
        Path exchange = Files.createTempDirectory("lakestream-trino-exchange");
        DistributedQueryRunner runner =
                LakestreamQueryRunner.builder(warehouse).setWorkerCount(1).build();
        runner.installPlugin(new FileSystemExchangePlugin());
        runner.loadExchangeManager(
                "filesystem",
                Map.of("exchange.base-directories", exchange.toUri().toString()));
        return runner;
    }

    @Test
    void pointReadsAndOneKeyWrites() {
        assertUpdate("CREATE TABLE retried (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate("INSERT INTO retried SELECT x, x * 10 FROM UNNEST(sequence(1, 50)) t(x)", 50);
        assertUpdate("UPDATE retried SET v = -7 WHERE id = 7", 1);
        assertUpdate("DELETE FROM retried WHERE id = 8", 1);
        for (long id : List.of(1L, 7L, 8L, 50L, 51L)) {
            for (String query : List.of(
                    "SELECT count(*), max(v) FROM retried WHERE id = " + id,
                    "SELECT id, v FROM retried WHERE id = " + id)) {
                List<List<Object>> expected = rows(getSession(), query);
                assertThat(rows(taskRetries(true), query)).as(query).isEqualTo(expected);
                assertThat(rows(taskRetries(false), query))
                        .as(query + ", two stages")
                        .isEqualTo(expected);
            }
        }
        // one fragment on the point read's single-node partitioning, as without retries
        assertThat(computeActual(
                                taskRetries(true),
                                "EXPLAIN (TYPE DISTRIBUTED) SELECT count(*) FROM retried WHERE id = 7")
                        .getOnlyValue()
                        .toString())
                .contains("Fragment 0 [lakestream:SINGLE_NODE]")
                .doesNotContain("Fragment 1");
        assertQuery(taskRetries(true), "SELECT count(*), max(v) FROM retried WHERE id = 7", "VALUES (1, -7)");
        assertQuery(taskRetries(true), "SELECT count(*) FROM retried WHERE id = 8", "VALUES 0");
        assertQuery(
                taskRetries(true),
                "SELECT count(*), sum(v) FROM retried",
                "VALUES (49, %s)".formatted(12750 - 70 - 7 - 80));
    }

    private List<List<Object>> rows(Session session, String sql) {
        return computeActual(session, sql).getMaterializedRows().stream()
                .map(MaterializedRow::getFields)
                .toList();
    }

    private Session taskRetries(boolean singleStagePointReads) {
        return Session.builder(getSession())
                .setSystemProperty("retry_policy", "TASK")
                .setCatalogSessionProperty(
                        LakestreamQueryRunner.CATALOG,
                        SINGLE_STAGE_POINT_READS_ENABLED,
                        Boolean.toString(singleStagePointReads))
                .build();
    }
}
