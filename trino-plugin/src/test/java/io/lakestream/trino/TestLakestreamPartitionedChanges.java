package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedChanges;
import io.lakestream.testing.PartitionedScores;
import io.trino.operator.OperatorStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * {@code t$changes} of a partitioned table names each change's log by {@code _partition} (after {@code _bucket}):
 * offsets of a log kept per (partition, bucket) restart in every partition, so {@code (_bucket, _offset)} alone does
 * not identify a change there. Unpartitioned tables keep their four change columns. Also {@code lakestream.logSegments}
 * on every split: the segments of a log tail, and an explicit 0 on lake-only splits (a tiered table).
 */
final class TestLakestreamPartitionedChanges extends AbstractLakestreamSqlTest {
    /** The segment counts of a read right after tiering: the read must pin that lake. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void changesOfTwoPartitionsInOneBucketAreNamedByPartition() {
        LakestreamTable table = tables.catalog()
                .createTable(TableIdentifier.of(LakestreamQueryRunner.SCHEMA, "pchanges"), PartitionedScores.spec(1));
        PartitionedChanges.write(table, tables.allocator());

        MaterializedResult result = computeActual("SELECT * FROM \"pchanges$changes\"");
        PartitionedChanges.assertLogPositionsUnique(
                result.getColumnNames(),
                result.getMaterializedRows().stream()
                        .map(MaterializedRow::getFields)
                        .toList());
        assertThat(result.getColumnNames())
                .containsExactly(
                        "_change_type",
                        "_bucket",
                        "_partition",
                        "_offset",
                        "_commit_timestamp",
                        "id",
                        "region",
                        "score");
        List<List<Object>> rows = new ArrayList<>();
        for (MaterializedRow row : result.getMaterializedRows()) {
            rows.add(Arrays.asList(
                    row.getField(0),
                    row.getField(2),
                    row.getField(1),
                    row.getField(3),
                    row.getField(5),
                    row.getField(6),
                    row.getField(7)));
        }
        PartitionedChanges.assertReadBack(rows);
        // a filter on the partition path is applied like any other
        assertQuery("SELECT count(*) FROM \"pchanges$changes\" WHERE _partition = 'region=us'", "VALUES 3");
    }

    /** A partitioned table whose log is kept per bucket has the column too, NULL: its offsets are per bucket. */
    @Test
    void perBucketLogOfAPartitionedTableHasANullPartition() {
        tables.catalog()
                .createTable(
                        TableIdentifier.of(LakestreamQueryRunner.SCHEMA, "old_changes"),
                        PartitionedScores.perBucketLogSpec(1));
        assertUpdate("INSERT INTO old_changes VALUES (1, 'eu', 1), (2, 'us', 2)", 2);
        assertQuery(
                "SELECT count(*), count(_partition), count(DISTINCT _offset) FROM \"old_changes$changes\"",
                "VALUES (2, 0, 2)");
    }

    /** The changes of an unpartitioned table keep their columns and positions. */
    @Test
    void unpartitionedTableKeepsItsChangeColumns() {
        assertUpdate("CREATE TABLE plain_changes (id bigint NOT NULL, v varchar) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO plain_changes VALUES (1, 'a')", 1);
        assertThat(computeActual("SELECT * FROM \"plain_changes$changes\"").getColumnNames())
                .containsExactly("_change_type", "_bucket", "_offset", "_commit_timestamp", "id", "v");
    }

    /** An identity partition on a timestamp column is pruned in the log by a filter on the column. */
    @Test
    void filterOnATimestampIdentityPartitionOpensOnlyItsSegments() {
        assertUpdate("CREATE TABLE by_ts (id bigint, ts timestamp(6)) WITH (partitioning = ARRAY['ts'])");
        assertUpdate("INSERT INTO by_ts VALUES (1, TIMESTAMP '2026-12-01 10:00:00')", 1);
        assertUpdate("INSERT INTO by_ts VALUES (2, TIMESTAMP '2026-12-01 10:00:00.123456')", 1);
        assertUpdate("INSERT INTO by_ts VALUES (3, TIMESTAMP '2026-12-02 00:00:01')", 1);
        assertThat(tables.load("by_ts").log().latestSnapshot().partitions()).hasSize(3);
        assertThat(logSegments("SELECT * FROM by_ts")).isEqualTo(3);
        assertQuery("SELECT id FROM by_ts WHERE ts = TIMESTAMP '2026-12-01 10:00:00.123456'", "VALUES 2");
        assertThat(logSegments("SELECT id FROM by_ts WHERE ts = TIMESTAMP '2026-12-01 10:00:00.123456'"))
                .isEqualTo(1);
        assertThat(logSegments("SELECT id FROM by_ts WHERE ts >= TIMESTAMP '2026-12-02 00:00:00'"))
                .isEqualTo(1);
    }

    @Test
    void lakeOnlySplitsReportZeroSegments() {
        assertUpdate(
                "CREATE TABLE seg (id bigint NOT NULL, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO seg VALUES (1, 'a'), (2, 'b'), (3, 'c')", 3);
        assertUpdate("INSERT INTO seg VALUES (4, 'd')", 1);
        long segments = tables.load("seg").log().latestSnapshot().liveSegments().size();
        assertThat(logSegments("SELECT * FROM seg")).isEqualTo(segments).isPositive();

        tables.tier("seg");
        assertThat(logSegments("SELECT * FROM seg")).isZero();
        assertThat(logSegments("SELECT * FROM \"seg$lake\"")).isZero();
        assertThat(logSegments("SELECT count(*) FROM seg WHERE id = 1")).isZero();
    }

    private long logSegments(String sql) {
        Metrics[] result = new Metrics[1];
        assertQueryStats(
                getSession(),
                sql,
                stats -> result[0] = stats.getOperatorSummaries().stream()
                        .map(OperatorStats::getConnectorMetrics)
                        .reduce(Metrics.EMPTY, Metrics::mergeWith),
                rows -> {});
        assertThat(result[0].getMetrics()).as("the metrics of %s", sql).containsKey(LakestreamMetrics.LOG_SEGMENTS);
        return ((LongCount) result[0].getMetrics().get(LakestreamMetrics.LOG_SEGMENTS)).getTotal();
    }
}
