package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.operator.OperatorStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The union-read counters reach the engine's statistics and {@code EXPLAIN ANALYZE VERBOSE}. */
final class TestLakestreamReadMetrics extends AbstractLakestreamSqlTest {
    /** The counters of a read right after another catalog tiered: the read must pin that lake, not a recent one. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void unionReadCounters() {
        assertUpdate("CREATE TABLE counted (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO counted SELECT x, 'a' FROM UNNEST(sequence(1, 10)) t(x)", 10);
        tables.tier("counted");
        // in the log tail: two new versions of lake rows, one new key, one delete of a lake row
        assertUpdate("INSERT INTO counted VALUES (1, 'b'), (2, 'b'), (11, 'b')", 3);
        assertUpdate("DELETE FROM counted WHERE id = 3", 1);

        String explain = (String) computeScalar("EXPLAIN ANALYZE VERBOSE SELECT * FROM counted");
        assertThat(explain)
                .contains(LakestreamMetrics.LAKE_ROWS)
                .contains(LakestreamMetrics.LOG_ROWS)
                .contains(LakestreamMetrics.LAKE_ROWS_HIDDEN)
                .contains(LakestreamMetrics.LOG_ROWS_SUPERSEDED)
                .contains(LakestreamMetrics.MERGE_PASSES);

        Metrics metrics = scanMetrics("SELECT * FROM counted");
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS)).isEqualTo(10);
        assertThat(count(metrics, LakestreamMetrics.LOG_ROWS)).isEqualTo(4);
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS_HIDDEN)).isEqualTo(3);
        assertThat(count(metrics, LakestreamMetrics.MERGE_PASSES)).isGreaterThanOrEqualTo(1);
    }

    /** The connector metrics of the query's table scan, summed over its splits. */
    private Metrics scanMetrics(String sql) {
        Metrics[] result = new Metrics[1];
        assertQueryStats(
                getSession(),
                sql,
                stats -> result[0] = stats.getOperatorSummaries().stream()
                        .map(OperatorStats::getConnectorMetrics)
                        .reduce(Metrics.EMPTY, Metrics::mergeWith),
                rows -> {});
        return result[0];
    }

    private static long count(Metrics metrics, String name) {
        assertThat(metrics.getMetrics()).containsKey(name);
        return ((LongCount) metrics.getMetrics().get(name)).getTotal();
    }
}
