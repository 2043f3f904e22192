package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.operator.OperatorStats;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.MaterializedRow;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;

/**
 * {@code LIMIT} through Trino ({@link LakestreamMetadata#applyLimit}) on tables with rows in the lake and in the log
 * tail (updates and deletes, so primary-key splits take the merge): every returned row is one the oracle of the
 * written rows says is live (no deleted or superseded version passes a limit), as many as asked, and the work is
 * counted: a limit that the first splits surely hold opens only those ({@link io.lakestream.merge.SplitsForLimit}),
 * and a limit met in a split's lake rows never reads its tail.
 */
final class TestLakestreamLimits extends AbstractReadPathTest {
    @Test
    void primaryKeyTableWithATail() {
        assertUpdate(
                "CREATE TABLE pk_limits (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        Map<Long, String> oracle = new HashMap<>();
        insert("pk_limits", oracle, 1, 400, "lake");
        // one file per bucket, no delete files: every lake row of a split is sure to be read
        tierAndCompact("pk_limits");
        updateWhereIdModTen("pk_limits", oracle, 0, "upd");
        deleteWhereIdModTen("pk_limits", oracle, 5);
        insert("pk_limits", oracle, 401, 440, "new");

        // 4 buckets of about 100 lake rows and 40 changes each: the first split alone surely holds 7 rows
        Read limited = read("SELECT id, v FROM pk_limits LIMIT 7");
        assertLive(limited.rows(), oracle, 7);
        assertThat(splits(limited.metrics())).as("splits read").isEqualTo(1);
        assertThat(count(limited.metrics(), LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(1);
        assertThat(count(limited.metrics(), LakestreamMetrics.LAKE_FILES)).isEqualTo(1);
        // the limit was met in the lake rows: the tail's winners were never read from the log
        assertThat(count(limited.metrics(), LakestreamMetrics.TAILS_OPENED))
                .as("tails opened")
                .isZero();
        assertThat(count(limited.metrics(), LakestreamMetrics.LOG_ROWS)).isZero();
        // without the limit, every split reads its tail after its lake rows
        Metrics all = read("SELECT id, v FROM pk_limits").metrics();
        assertThat(count(all, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(4);
        assertThat(count(all, LakestreamMetrics.TAILS_OPENED))
                .as("tails opened without a limit")
                .isEqualTo(4);
        assertThat(count(all, LakestreamMetrics.LOG_ROWS)).isPositive();

        assertAllRowsForLargeLimits("pk_limits", oracle, 4);
        // filters: every split is read (a filtered split may return nothing), and the tail hides what it changed
        assertFilteredLimit("pk_limits", oracle, "v = 'upd'", (id, v) -> v.equals("upd"), 5, OptionalLong.of(4));
        assertFilteredLimit("pk_limits", oracle, "v = 'lake'", (id, v) -> v.equals("lake"), 1000, OptionalLong.of(4));
        assertFilteredLimit("pk_limits", oracle, "id > 390", (id, v) -> id > 390, 1000, OptionalLong.of(4));
        assertThat(computeActual("SELECT * FROM pk_limits LIMIT 0").getRowCount())
                .isZero();
    }

    @Test
    void primaryKeyTableWithLakeDeletesAndATail() {
        assertUpdate("CREATE TABLE pk_lake_deletes (id bigint, v varchar) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        Map<Long, String> oracle = new HashMap<>();
        insert("pk_lake_deletes", oracle, 1, 200, "lake");
        tables.tier("pk_lake_deletes");
        // tiered without compaction: equality delete files in the lake
        updateWhereIdModTen("pk_lake_deletes", oracle, 1, "tiered");
        deleteWhereIdModTen("pk_lake_deletes", oracle, 2);
        tables.tier("pk_lake_deletes");
        updateWhereIdModTen("pk_lake_deletes", oracle, 3, "upd");
        deleteWhereIdModTen("pk_lake_deletes", oracle, 4);

        for (long limit : List.of(1L, oracle.size() - 1L)) {
            assertLive(read("SELECT id, v FROM pk_lake_deletes LIMIT " + limit).rows(), oracle, limit);
        }
        assertAllRowsForLargeLimits("pk_lake_deletes", oracle, 2);
        assertFilteredLimit(
                "pk_lake_deletes", oracle, "v = 'lake'", (id, v) -> v.equals("lake"), 3, OptionalLong.of(2));
        assertFilteredLimit(
                "pk_lake_deletes", oracle, "v <> 'upd'", (id, v) -> !v.equals("upd"), 1000, OptionalLong.of(2));
    }

    @Test
    void appendOnlyTableWithATail() {
        assertUpdate("CREATE TABLE ao_limits (id bigint, v varchar) WITH (bucket_count = 4)");
        Map<Long, String> oracle = new HashMap<>();
        insert("ao_limits", oracle, 1, 100, "lake");
        insert("ao_limits", oracle, 101, 200, "lake");
        tables.tier("ao_limits");
        insert("ao_limits", oracle, 201, 300, "log");
        Metrics all = read("SELECT id, v FROM ao_limits").metrics();
        long lakeFiles = count(all, LakestreamMetrics.LAKE_FILES);
        assertThat(lakeFiles).isGreaterThan(1);

        Read limited = read("SELECT id, v FROM ao_limits LIMIT 3");
        assertLive(limited.rows(), oracle, 3);
        // the first lake file alone holds 3 rows: no other file and no log range is opened
        assertThat(splits(limited.metrics())).as("splits read").isEqualTo(1);
        assertThat(count(limited.metrics(), LakestreamMetrics.LAKE_FILES)).isEqualTo(1);
        assertThat(count(limited.metrics(), LakestreamMetrics.LOG_ROWS)).isZero();
        assertThat(count(all, LakestreamMetrics.LOG_SEGMENTS))
                .as("log segments of a full read")
                .isPositive();
        assertThat(count(limited.metrics(), LakestreamMetrics.LOG_SEGMENTS))
                .as("log segments of the limited read")
                .isZero();

        assertAllRowsForLargeLimits("ao_limits", oracle, splits(all));
        assertFilteredLimit("ao_limits", oracle, "v = 'log'", (id, v) -> v.equals("log"), 10, OptionalLong.empty());
        assertFilteredLimit("ao_limits", oracle, "id > 150", (id, v) -> id > 150, 1000, OptionalLong.empty());
        assertThat(computeActual("SELECT * FROM ao_limits LIMIT 0").getRowCount())
                .isZero();
    }

    /** A limit at, just above and far above the row count returns every live row once. */
    private void assertAllRowsForLargeLimits(String table, Map<Long, String> oracle, long splits) {
        for (long limit : List.of((long) oracle.size(), oracle.size() + 1L, 1_000_000L)) {
            Read read = read("SELECT id, v FROM %s LIMIT %s".formatted(table, limit));
            assertLive(read.rows(), oracle, oracle.size());
            assertThat(splits(read.metrics()))
                    .as("splits read for LIMIT %s", limit)
                    .isEqualTo(splits);
        }
    }

    /**
     * A limit over a filter the connector enforces returns live matching rows only; {@code splits}, if given, is how
     * many splits must be read (all of them: a filter may leave any split without rows).
     */
    private void assertFilteredLimit(
            String table,
            Map<Long, String> oracle,
            String filter,
            BiPredicate<Long, String> matches,
            long limit,
            OptionalLong splits) {
        Read read = read("SELECT id, v FROM %s WHERE %s LIMIT %s".formatted(table, filter, limit));
        Map<Long, String> matching = new HashMap<>(oracle);
        matching.entrySet().removeIf(row -> !matches.test(row.getKey(), row.getValue()));
        assertLive(read.rows(), matching, Math.min(limit, matching.size()));
        splits.ifPresent(expected -> assertThat(splits(read.metrics()))
                .as("splits read for WHERE %s", filter)
                .isEqualTo(expected));
    }

    /** {@code rows} are {@code expected} rows, distinct and live in the oracle, with the oracle's value. */
    private static void assertLive(List<MaterializedRow> rows, Map<Long, String> oracle, long expected) {
        assertThat(rows).hasSize((int) expected);
        Set<Long> seen = new HashSet<>();
        for (MaterializedRow row : rows) {
            long id = (Long) row.getField(0);
            assertThat(seen.add(id)).as("id %s returned twice", id).isTrue();
            assertThat(oracle).as("id %s", id).containsEntry(id, (String) row.getField(1));
        }
    }

    private void insert(String table, Map<Long, String> oracle, long from, long to, String value) {
        assertUpdate(
                "INSERT INTO %s SELECT x, '%s' FROM UNNEST(sequence(%s, %s)) t(x)".formatted(table, value, from, to),
                to - from + 1);
        for (long id = from; id <= to; id++) {
            oracle.put(id, value);
        }
    }

    private void updateWhereIdModTen(String table, Map<Long, String> oracle, int remainder, String value) {
        long rows = oracle.keySet().stream().filter(id -> id % 10 == remainder).count();
        assertUpdate("UPDATE %s SET v = '%s' WHERE id %% 10 = %s".formatted(table, value, remainder), rows);
        oracle.replaceAll((id, v) -> id % 10 == remainder ? value : v);
    }

    private void deleteWhereIdModTen(String table, Map<Long, String> oracle, int remainder) {
        long rows = oracle.keySet().stream().filter(id -> id % 10 == remainder).count();
        assertUpdate("DELETE FROM %s WHERE id %% 10 = %s".formatted(table, remainder), rows);
        oracle.keySet().removeIf(id -> id % 10 == remainder);
    }

    /** The rows of a query and the connector metrics of its table scan, summed over the splits read. */
    private Read read(String sql) {
        AtomicReference<List<MaterializedRow>> rows = new AtomicReference<>();
        AtomicReference<Metrics> metrics = new AtomicReference<>();
        assertQueryStats(
                getSession(),
                sql,
                stats -> metrics.set(stats.getOperatorSummaries().stream()
                        .map(OperatorStats::getConnectorMetrics)
                        .reduce(Metrics.EMPTY, Metrics::mergeWith)),
                result -> rows.set(result.getMaterializedRows()));
        return new Read(rows.get(), metrics.get());
    }

    private record Read(List<MaterializedRow> rows, Metrics metrics) {}
}
