package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.CATALOG;
import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.trino.Session;
import io.trino.operator.OperatorStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;

/**
 * Tests of how splits are read ({@link io.lakestream.merge.LakeReadPath}): queries compared between Trino's
 * Parquet reader and the union split reader (the session property turned off), and the connector
 * metrics that show which path ran.
 */
abstract class AbstractReadPathTest extends AbstractLakestreamSqlTest {
    /** Read paths of a given lake: the first read after a tiering round must read the new lake. */
    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    private final ExecutorService tieringThreads = Executors.newFixedThreadPool(2);

    @AfterAll
    void stopTiering() {
        tieringThreads.shutdownNow();
    }

    /** Tiers the table and compacts every bucket with a delete file: its lake files are left without deletes. */
    protected void tierAndCompact(String table) {
        TieringResult result = new TableTiering(
                        TieringConfig.builder().compactionDeleteFiles(1).build(),
                        tables.allocator(),
                        tieringThreads,
                        TieringHooks.NONE,
                        Clock.systemUTC())
                .tier(tables.load(table));
        assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
    }

    /**
     * Through SQL: one time in four (if the oracle has rows) deletes {@code keys}, otherwise upserts them with
     * random values; the oracle ({@code id -> v}) gets the same change.
     */
    protected void changeKeysAtRandom(Random random, String table, List<Long> keys, Map<Long, Long> oracle) {
        if (random.nextInt(4) == 0 && !oracle.isEmpty()) {
            String in = keys.stream().map(String::valueOf).collect(joining(", "));
            long present = keys.stream().filter(oracle::containsKey).count();
            assertUpdate("DELETE FROM " + table + " WHERE id IN (" + in + ")", present);
            keys.forEach(oracle::remove);
            return;
        }
        List<String> rows = new ArrayList<>();
        for (long key : keys) {
            long value = random.nextInt(1000);
            oracle.put(key, value);
            rows.add("(" + key + ", " + value + ")");
        }
        assertUpdate("INSERT INTO " + table + " VALUES " + String.join(", ", rows), rows.size());
    }

    protected Session unionSplitReader() {
        return Session.builder(getSession())
                .setCatalogSessionProperty(CATALOG, LakestreamSessionProperties.NATIVE_PARQUET_READER_ENABLED, "false")
                .build();
    }

    /**
     * Trino's Parquet reader returns the same rows as the union split reader, which read every split the
     * other read (a filter may leave none). Runs the query once per path: returns the Parquet reader's
     * rows and metrics, for further checks without running the query again.
     */
    protected Scan assertSameOnBothPaths(String sql) {
        Scan fast = scan(getSession(), sql);
        assertSameRows(sql, fast, scan(unionSplitReader(), sql));
        return fast;
    }

    private static void assertSameRows(String sql, Scan fast, Scan reference) {
        assertThat(fast.result().getTypes()).isEqualTo(reference.result().getTypes());
        assertThat(fast.rows()).as(sql).containsExactlyInAnyOrderElementsOf(reference.rows());
        assertThat(count(reference.metrics(), LakestreamMetrics.FAST_PATH_SPLITS))
                .isZero();
        assertThat(count(reference.metrics(), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isZero();
        assertThat(count(reference.metrics(), LakestreamMetrics.UNION_SPLIT_READER_SPLITS))
                .as(sql)
                .isEqualTo(splits(fast.metrics()));
    }

    /**
     * {@link #assertSameOnBothPaths}, and both paths count the same merge (as {@link
     * #assertSameCountersOnBothPaths}), from the same two runs of the query.
     */
    protected Scan assertSameRowsAndCountersOnBothPaths(String sql) {
        Scan fast = scan(getSession(), sql);
        Scan reference = scan(unionSplitReader(), sql);
        assertSameRows(sql, fast, reference);
        assertSameCounters(sql, fast, reference);
        return fast;
    }

    /** Splits read, by any path. */
    protected static long splits(Metrics metrics) {
        return count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)
                + count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)
                + count(metrics, LakestreamMetrics.UNION_SPLIT_READER_SPLITS);
    }

    /** Both read paths count the same merge: lake rows read (deletes applied) and hidden, log rows read and superseded. */
    protected void assertSameCountersOnBothPaths(String sql) {
        assertSameCounters(sql, scan(getSession(), sql), scan(unionSplitReader(), sql));
    }

    private static void assertSameCounters(String sql, Scan merged, Scan reference) {
        for (String counter : List.of(
                LakestreamMetrics.LAKE_ROWS,
                LakestreamMetrics.LOG_ROWS,
                LakestreamMetrics.LAKE_ROWS_HIDDEN,
                LakestreamMetrics.LOG_ROWS_SUPERSEDED)) {
            assertThat(count(merged.metrics(), counter))
                    .as(sql + ": " + counter)
                    .isEqualTo(count(reference.metrics(), counter));
        }
    }

    /** Every split of the query is read by Trino's Parquet reader, none by the union split reader; its metrics. */
    protected Metrics assertReadByTrinoParquetReader(String sql) {
        return assertReadByTrinoParquetReader(sql, scan(getSession(), sql));
    }

    /** {@link #assertReadByTrinoParquetReader(String)} of a query already run. */
    protected static Metrics assertReadByTrinoParquetReader(String sql, Scan scan) {
        assertThat(scan.count(LakestreamMetrics.UNION_SPLIT_READER_SPLITS))
                .as(sql)
                .isZero();
        assertThat(scan.count(LakestreamMetrics.FAST_PATH_SPLITS) + scan.count(LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .as(sql)
                .isPositive();
        return scan.metrics();
    }

    protected long fastPathSplits(String sql) {
        return count(scanMetrics(getSession(), sql), LakestreamMetrics.FAST_PATH_SPLITS);
    }

    protected Metrics scanMetrics(Session session, String sql) {
        return scan(session, sql).metrics();
    }

    /** Runs the query once: its rows and the connector metrics of its scans. */
    protected Scan scan(Session session, String sql) {
        Scan[] scan = new Scan[1];
        Metrics[] metrics = new Metrics[1];
        assertQueryStats(
                session,
                sql,
                stats -> metrics[0] = stats.getOperatorSummaries().stream()
                        .map(OperatorStats::getConnectorMetrics)
                        .reduce(Metrics.EMPTY, Metrics::mergeWith),
                result -> scan[0] = new Scan(result, metrics[0]));
        return scan[0];
    }

    /** A query's result and the connector metrics of its scans. */
    protected record Scan(MaterializedResult result, Metrics metrics) {
        List<MaterializedRow> rows() {
            return result.getMaterializedRows();
        }

        long count(String counter) {
            return AbstractReadPathTest.count(metrics, counter);
        }
    }

    protected static long count(Metrics metrics, String name) {
        LongCount value = (LongCount) metrics.getMetrics().get(name);
        return value == null ? 0 : value.getTotal();
    }
}
