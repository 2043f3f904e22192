package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.plan.UnionSplit;
import io.lakestream.write.LakestreamWriter;
import io.trino.Session;
import io.trino.operator.OperatorStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metrics;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
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

    /**
     * Dereference pushdown reads less: a lake read of {@code r.a} opens the Parquet column chunks of {@code id} and
     * {@code r.a} only (not {@code r}'s four leaves), and a log tail read of {@code r.c.e} converts one Arrow vector per
     * batch instead of {@code r}'s six (the row, its three fields, the nested row's two fields).
     */
    @Test
    void dereferencePushdownReadsOnlyTheFieldsAsked() {
        String row = "row(a bigint, b varchar, c row(d double, e varchar))";
        assertUpdate("CREATE TABLE counted_rows (id bigint, r " + row + ") WITH (primary_key = ARRAY['id'])");
        assertUpdate(
                "INSERT INTO counted_rows SELECT x, CAST(ROW(x, 'b', ROW(0.5, 'e')) AS " + row + ")"
                        + " FROM UNNEST(sequence(1, 10)) t(x)",
                10);
        tables.tier("counted_rows");

        Metrics lakeField = scanMetrics("SELECT id, r.a FROM \"counted_rows$lake\"");
        Metrics lakeRow = scanMetrics(
                LakestreamQueryRunner.withoutProjectionPushdown(getSession()),
                "SELECT id, r.a FROM \"counted_rows$lake\"");
        // one lake file of one row group: id and r.a; without the pushdown id and r's four leaves
        assertThat(count(lakeField, LakestreamMetrics.LAKE_COLUMN_CHUNKS)).isEqualTo(2);
        assertThat(count(lakeRow, LakestreamMetrics.LAKE_COLUMN_CHUNKS)).isEqualTo(5);
        assertThat(count(lakeField, LakestreamMetrics.LAKE_COLUMN_BYTES))
                .isLessThan(count(lakeRow, LakestreamMetrics.LAKE_COLUMN_BYTES));
        // Trino's Parquet reader read the lake split (no Arrow): the union split reader, asked for, converts one
        // batch: id and r.a, or id and r's six vectors
        assertThat(count(lakeField, LakestreamMetrics.FAST_PATH_SPLITS)).isEqualTo(1);
        Session unionSplitReader = Session.builder(getSession())
                .setCatalogSessionProperty(
                        LakestreamQueryRunner.CATALOG,
                        LakestreamSessionProperties.NATIVE_PARQUET_READER_ENABLED,
                        "false")
                .build();
        Metrics lakeFieldConverted = scanMetrics(unionSplitReader, "SELECT id, r.a FROM \"counted_rows$lake\"");
        Metrics lakeRowConverted = scanMetrics(
                LakestreamQueryRunner.withoutProjectionPushdown(unionSplitReader),
                "SELECT id, r.a FROM \"counted_rows$lake\"");
        assertThat(count(lakeFieldConverted, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                .isEqualTo(2);
        assertThat(count(lakeRowConverted, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                .isEqualTo(5);
        assertThat(count(lakeFieldConverted, LakestreamMetrics.ARROW_VECTORS_CONVERTED))
                .isEqualTo(2);
        assertThat(count(lakeRowConverted, LakestreamMetrics.ARROW_VECTORS_CONVERTED))
                .isEqualTo(7);

        // the tail: a new version of every key, read from the log (the lake's rows all hidden)
        assertUpdate(
                "INSERT INTO counted_rows SELECT x, CAST(ROW(-x, 'b', ROW(0.5, 'tail')) AS " + row + ")"
                        + " FROM UNNEST(sequence(1, 10)) t(x)",
                10);
        Metrics tailField = scanMetrics("SELECT r.c.e FROM counted_rows");
        Metrics tailRow = scanMetrics(
                LakestreamQueryRunner.withoutProjectionPushdown(getSession()), "SELECT r.c.e FROM counted_rows");
        assertThat(count(tailField, LakestreamMetrics.LOG_ROWS)).isEqualTo(10);
        assertThat(count(tailField, LakestreamMetrics.LAKE_ROWS_HIDDEN)).isEqualTo(10);
        // the merge (on Trino's Parquet reader's pages) reads r.c.e from the lake, never the whole row; the key it
        // matches the tail's keys with comes from the lake key cache (the query does not read it)
        assertThat(count(tailField, LakestreamMetrics.LAKE_COLUMN_CHUNKS)).isEqualTo(1);
        assertThat(count(tailRow, LakestreamMetrics.LAKE_COLUMN_CHUNKS)).isEqualTo(4);
        assertThat(count(tailField, LakestreamMetrics.LAKE_KEY_CACHE_HITS)
                        + count(tailField, LakestreamMetrics.LAKE_KEY_CACHE_MISSES))
                .isEqualTo(1);
        assertThat(count(tailField, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(1);
        // one batch of the tail's winners (the only rows converted from Arrow): r.c.e alone, or r whole
        assertThat(count(tailField, LakestreamMetrics.ARROW_VECTORS_CONVERTED)).isEqualTo(1);
        assertThat(count(tailRow, LakestreamMetrics.ARROW_VECTORS_CONVERTED)).isEqualTo(6);
        assertThat(query("SELECT DISTINCT r.c.e FROM counted_rows")).matches("VALUES CAST('tail' AS varchar)");
    }

    /**
     * A log tail held by more segments than a split carries ({@link UnionSplit#MAX_CARRIED_SEGMENTS}) is counted as
     * a shorter one: the segments and bytes reported are the segment files the tail's commits wrote into the
     * bucket's log directory, on Trino's Parquet merge and on the union split reader.
     */
    @Test
    void logSegmentsOfATailLongerThanASplitCarries() throws IOException {
        String table = "long_tail";
        assertUpdate(
                "CREATE TABLE " + table + " (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO " + table + " VALUES (0, 'lake')", 1);
        tables.tier(table);
        Path bucketLog = logDirectory(table).resolve("bucket-0000");
        Map<Path, Long> lakeSegments = segmentFiles(bucketLog);
        int commits = UnionSplit.MAX_CARRIED_SEGMENTS + 3;
        for (long id = 1; id <= commits; id++) {
            // one small commit each: one segment each
            try (LakestreamWriter writer = new LakestreamWriter(tables.load(table), tables.allocator())) {
                writer.upsert(Map.of("id", id, "v", "tail"));
                writer.commit();
            }
        }
        Map<Path, Long> tailSegments = segmentFiles(bucketLog);
        tailSegments.keySet().removeAll(lakeSegments.keySet());
        assertThat(tailSegments).hasSize(commits);
        long tailBytes =
                tailSegments.values().stream().mapToLong(Long::longValue).sum();

        String sql = "SELECT count(*), count_if(v = 'tail') FROM " + table;
        Session unionSplitReader = Session.builder(getSession())
                .setCatalogSessionProperty(
                        LakestreamQueryRunner.CATALOG,
                        LakestreamSessionProperties.NATIVE_PARQUET_READER_ENABLED,
                        "false")
                .build();
        for (Session session : List.of(getSession(), unionSplitReader)) {
            assertThat(query(session, sql))
                    .matches("VALUES (BIGINT '%d', BIGINT '%d')".formatted(commits + 1, commits));
            Metrics metrics = scanMetrics(session, sql);
            assertThat(count(metrics, LakestreamMetrics.LOG_ROWS)).isEqualTo(commits);
            assertThat(count(metrics, LakestreamMetrics.LOG_SEGMENTS)).isEqualTo(commits);
            assertThat(count(metrics, LakestreamMetrics.LOG_SEGMENT_BYTES)).isEqualTo(tailBytes);
        }
        assertThat(count(scanMetrics(sql), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(1);
        assertThat(count(scanMetrics(unionSplitReader, sql), LakestreamMetrics.UNION_SPLIT_READER_SPLITS))
                .isEqualTo(1);
    }

    /** The table's log directory (the default one, under the table's location). */
    private Path logDirectory(String table) {
        String location = tables.load(table).lake().location();
        Path tableDirectory = location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
        return tableDirectory.resolve("log");
    }

    /** The segment files in a directory, with their sizes. */
    private static Map<Path, Long> segmentFiles(Path directory) throws IOException {
        Map<Path, Long> files = new HashMap<>();
        try (Stream<Path> paths = Files.list(directory)) {
            for (Path path :
                    paths.filter(path -> path.toString().endsWith(".arrow")).toList()) {
                files.put(path, Files.size(path));
            }
        }
        return files;
    }

    /** The connector metrics of the query's table scan, summed over its splits. */
    private Metrics scanMetrics(String sql) {
        return scanMetrics(getSession(), sql);
    }

    private Metrics scanMetrics(Session session, String sql) {
        Metrics[] result = new Metrics[1];
        assertQueryStats(
                session,
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
