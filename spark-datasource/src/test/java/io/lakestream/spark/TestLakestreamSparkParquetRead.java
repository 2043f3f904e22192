package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.tiering.TableTiering;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lake files without delete files (tiered and compacted) read by Spark's own Parquet reader: as they
 * are without a log tail, and minus the keys the tail changes with one. For every key type and every
 * column type the lake path serves, with updates, deletes and re-inserts in the tail and filters that
 * the new version fails, compared with an oracle (an inline Spark table of the expected rows), and
 * checked to have taken the path through the scan's metrics.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkParquetRead {
    private static final String NS = "pq";

    private final SparkTesting testing = SparkTesting.get();
    private final java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
    private final TableTiering compacting = SparkTables.tiering(threads, 1, 2);

    /**
     * A primary key: its column definitions, names, and the SQL literals of key number {@code i}.
     */
    record Key(String name, String columns, String names, IntFunction<List<String>> values) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Key> keys() {
        return Stream.of(
                new Key("int", "k INT", "k", i -> List.of(Integer.toString(i * 7 - 100))),
                new Key("bigint", "k BIGINT", "k", i -> List.of("CAST(%s AS BIGINT)".formatted(i * 1_000_000_007L))),
                new Key("date", "k DATE", "k", i -> List.of("date_add(DATE'1999-12-25', %s)".formatted(i * 3))),
                new Key("string", "k STRING", "k", i -> List.of("'key-%s%s'".formatted(i, "x".repeat(i % 5)))),
                new Key(
                        "decimal",
                        "k DECIMAL(10, 2)",
                        "k",
                        i -> List.of("CAST(%s.25 AS DECIMAL(10, 2))".formatted(i - 20))),
                new Key(
                        "longdecimal",
                        "k DECIMAL(30, 3)",
                        "k",
                        i -> List.of("CAST('%s12345678901234567.125' AS DECIMAL(30, 3))".formatted(i - 20))),
                new Key(
                        "timestamp",
                        "k TIMESTAMP",
                        "k",
                        i -> List.of("timestamp_micros(%s)".formatted(1_700_000_000_000_000L + i * 1_000_003L))),
                new Key(
                        "timestampntz",
                        "k TIMESTAMP_NTZ",
                        "k",
                        i -> List.of("CAST(timestamp_micros(%s) AS TIMESTAMP_NTZ)".formatted(i * 86_400_000_001L))),
                new Key(
                        "twocolumns",
                        "k STRING, k2 INT",
                        "k, k2",
                        i -> List.of("'k-%s'".formatted(i % 4), Integer.toString(i / 4))));
    }

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @AfterAll
    void stopThreads() {
        threads.shutdownNow();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keys")
    void tailMergesOnSparkBatchesForEveryKeyType(Key key) {
        String table = "ls.pq.key_" + key.name();
        testing.sql("CREATE TABLE %s (%s, v STRING, n INT) TBLPROPERTIES ('primary-key'='%s', 'bucket.num'='2')"
                .formatted(table, key.columns(), key.names()));
        // key number -> version of its row (absent: no row)
        Map<Integer, Integer> oracle = new TreeMap<>();
        upsert(table, key, oracle, 0, 40, 0);
        SparkTables.tierAll(compacting, SparkTables.load(NS, "key_" + key.name()));

        Dataset<Row> lakeOnly = testing.sql("SELECT * FROM " + table);
        assertSameRows(lakeOnly, key, oracle, "*", "true");
        assertThat(SparkTables.metric(lakeOnly, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .isEqualTo(2);
        assertCount(table, oracle.size());

        // the tail: updates (whose new n fails n < 50), deletes, deletes then re-inserts, new keys
        upsert(table, key, oracle, 0, 10, 1);
        delete(table, key, oracle, 10, 18);
        upsert(table, key, oracle, 15, 18, 2);
        upsert(table, key, oracle, 40, 45, 1);

        Dataset<Row> merged = testing.sql("SELECT * FROM " + table);
        assertSameRows(merged, key, oracle, "*", "true");
        assertThat(SparkTables.metric(merged, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(2);
        assertThat(SparkTables.metric(merged, LakestreamMetrics.LAKE_ROWS)).isEqualTo(40);
        assertThat(SparkTables.metric(merged, LakestreamMetrics.LAKE_ROWS_HIDDEN))
                .isEqualTo(18);

        assertCount(table, oracle.size());
        for (String filter : List.of("n < 50", "n >= 50 OR v = 'v0-3'", "n IS NULL", "v LIKE 'v2%'")) {
            assertSameRows(testing.sql("SELECT v FROM %s WHERE %s".formatted(table, filter)), key, oracle, "v", filter);
            assertSameRows(
                    testing.sql("SELECT %s, n FROM %s WHERE %s".formatted(key.names(), table, filter)),
                    key,
                    oracle,
                    key.names() + ", n",
                    filter);
        }
    }

    @Test
    void everyColumnTypeReadsAsTheUnionReadReturnsIt() {
        String columns = "id INT, b BOOLEAN, i INT, l BIGINT, f FLOAT, x DOUBLE, d DATE, ts TIMESTAMP, "
                + "ntz TIMESTAMP_NTZ, dec DECIMAL(9, 2), dec18 DECIMAL(18, 4), dec38 DECIMAL(38, 6), s STRING, bin BINARY";
        testing.sql("CREATE TABLE ls.pq.types (%s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')"
                .formatted(columns));
        Map<Integer, String> oracle = new TreeMap<>();
        insertTypes(oracle, 0, 30, 0);
        SparkTables.tierAll(compacting, SparkTables.load(NS, "types"));

        Dataset<Row> lakeOnly = testing.sql("SELECT * FROM ls.pq.types");
        assertThat(normalized(lakeOnly)).isEqualTo(expected(oracle, columns, "*", "true"));
        assertThat(SparkTables.metric(lakeOnly, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .isEqualTo(2);

        insertTypes(oracle, 20, 35, 1);
        Dataset<Row> merged = testing.sql("SELECT * FROM ls.pq.types");
        assertThat(normalized(merged)).isEqualTo(expected(oracle, columns, "*", "true"));
        assertThat(SparkTables.metric(merged, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .isEqualTo(2);
        for (String filter : List.of("d > DATE'2001-01-10'", "dec18 < 50", "ts IS NULL", "s = 's-21-1'", "NOT b")) {
            assertThat(normalized(testing.sql("SELECT l, s FROM ls.pq.types WHERE " + filter)))
                    .as(filter)
                    .isEqualTo(expected(oracle, columns, "l, s", filter));
        }
    }

    /** No column at all: Spark asks the lake reader for row counts only. */
    private void assertCount(String table, int expected) {
        assertThat(SparkTesting.rows(testing.sql("SELECT count(*) FROM " + table)))
                .isEqualTo(List.of(List.of((long) expected)));
    }

    private void insertTypes(Map<Integer, String> oracle, int from, int to, int version) {
        List<String> rows = new ArrayList<>();
        for (int id = from; id < to; id++) {
            // every seventh row's values are NULL
            boolean nulls = (id + version) % 7 == 0;
            String row = "(%s, %s)"
                    .formatted(
                            id,
                            nulls
                                    ? String.join(", ", java.util.Collections.nCopies(13, "NULL"))
                                    : ("%2$s, %1$s * 3, CAST(%1$s AS BIGINT) * 10000000000, CAST(%1$s / 4.0 AS FLOAT), %1$s / 3.0, "
                                                    + "date_add(DATE'2001-01-01', %1$s), timestamp_micros(CAST(%1$s AS BIGINT) * 1000000007), "
                                                    + "CAST(timestamp_micros(CAST(%1$s AS BIGINT) * 999999937) AS TIMESTAMP_NTZ), "
                                                    + "CAST(%1$s * 1.5 AS DECIMAL(9, 2)), CAST(%1$s * 7.125 AS DECIMAL(18, 4)), "
                                                    + "CAST('%1$s1234567890123456789.5' AS DECIMAL(38, 6)), 's-%1$s-%3$s', "
                                                    + "X'%4$s'")
                                            .formatted(
                                                    id,
                                                    id % 2 == 0,
                                                    version,
                                                    HexFormat.of().formatHex(new byte[] {(byte) id, (byte) version})));
            rows.add(row);
            oracle.put(id, row);
        }
        testing.sql("INSERT INTO ls.pq.types VALUES " + String.join(", ", rows));
    }

    private void upsert(String table, Key key, Map<Integer, Integer> oracle, int from, int to, int version) {
        List<String> rows = new ArrayList<>();
        for (int i = from; i < to; i++) {
            rows.add(row(key, i, version));
            oracle.put(i, version);
        }
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, String.join(", ", rows)));
    }

    private void delete(String table, Key key, Map<Integer, Integer> oracle, int from, int to) {
        List<String> names = List.of(key.names().split(", "));
        List<String> matches = new ArrayList<>();
        for (int i = from; i < to; i++) {
            List<String> values = key.values().apply(i);
            List<String> equalities = new ArrayList<>();
            for (int c = 0; c < names.size(); c++) {
                equalities.add("%s = %s".formatted(names.get(c), values.get(c)));
            }
            matches.add("(" + String.join(" AND ", equalities) + ")");
            oracle.remove(i);
        }
        testing.sql("DELETE FROM %s WHERE %s".formatted(table, String.join(" OR ", matches)));
    }

    /** Key number {@code i} at a version: the version's n fails {@code n < 50} for updates, NULL for some. */
    private static String row(Key key, int i, int version) {
        String n = switch (version) {
            case 0 -> i % 9 == 0 ? "NULL" : Integer.toString(i % 10 * 10);
            case 1 -> "95";
            default -> Integer.toString(i % 10);
        };
        return "(%s, 'v%s-%s', %s)".formatted(String.join(", ", key.values().apply(i)), version, i, n);
    }

    private void assertSameRows(
            Dataset<Row> actual, Key key, Map<Integer, Integer> oracle, String projection, String filter) {
        List<String> rows = new ArrayList<>();
        oracle.forEach((i, version) -> rows.add(row(key, i, version)));
        Map<Integer, String> byNumber = new TreeMap<>();
        for (int i = 0; i < rows.size(); i++) {
            byNumber.put(i, rows.get(i));
        }
        assertThat(normalized(actual))
                .as("%s WHERE %s", projection, filter)
                .isEqualTo(expected(byNumber, key.columns() + ", v STRING, n INT", projection, filter));
    }

    private List<String> expected(Map<Integer, String> rows, String columns, String projection, String filter) {
        return SparkOracle.expected(testing, rows, columns, projection, filter);
    }

    private static List<String> normalized(Dataset<Row> frame) {
        return SparkOracle.normalized(frame);
    }
}
