package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.LakeDeleteFiles;
import io.lakestream.testing.Seeds;
import io.lakestream.tiering.TableTiering;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lake files with Iceberg delete files read on Spark's fast path: equality delete files (tiering writes one for
 * every round that updates or deletes keys already in the lake; compaction is off here) and position delete files
 * (another engine's merge-on-read DELETE, written with Iceberg's own writer), without and with a log tail. For a
 * long key (matched as primitive longs), a string key and a key of two columns (the canonical encoding), random
 * upserts and deletes from a seed; the rows are compared with an oracle built from what the test wrote, and the
 * scan's counters show that Spark's Parquet reader served every split (no fall-back to the union split reader).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkLakeDeletes {
    private static final String NS = "dl";
    private static final int KEYS = 80;

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);
    // compaction only far away: the delete files stay
    private final TableTiering tiering = SparkTables.tiering(threads, 1_000, 1_000);

    /** A primary key: its column definitions, names, and the SQL literals of key number {@code i}. */
    record Key(String name, String columns, String names, IntFunction<String> values) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Key> keys() {
        return Stream.of(
                new Key("bigint", "k BIGINT", "k", i -> "CAST(%s AS BIGINT)".formatted(i * 1_000_000_007L - 5)),
                new Key("string", "k STRING", "k", i -> "'key-%s%s'".formatted(i, "x".repeat(i % 3))),
                new Key("twocolumns", "k STRING, k2 INT", "k, k2", i -> "'k-%s', %s".formatted(i % 4, i / 4)));
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
    void deleteFilesAreAppliedOnSparkBatches(Key key) {
        Random random = Seeds.random(21);
        String name = "t_" + key.name();
        String table = "ls.%s.%s".formatted(NS, name);
        testing.sql("CREATE TABLE %s (%s, i INT, v STRING) TBLPROPERTIES ('primary-key'='%s', 'bucket.num'='2')"
                .formatted(table, key.columns(), key.names()));
        // key number -> version of its row (absent: no row)
        Map<Integer, Integer> oracle = new TreeMap<>();
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            all.add(i);
        }
        upsert(table, key, oracle, all, 0);
        SparkTables.tierAll(tiering, SparkTables.load(NS, name));

        // position deletes of random rows of every data file, as another engine's DELETE writes them
        Table lake = SparkTables.load(NS, name).lake();
        for (DataFile file : LakeDeleteFiles.dataFiles(lake)) {
            // the key numbers (column i) of the file's rows, in file order
            List<Object> keysInFileOrder = LakeDeleteFiles.valuesInFileOrder(lake, file, "i");
            List<Long> rows = new ArrayList<>();
            for (int row = 0; row < keysInFileOrder.size(); row++) {
                if (random.nextInt(5) == 0) {
                    rows.add((long) row);
                    oracle.remove((Integer) keysInFileOrder.get(row));
                }
            }
            LakeDeleteFiles.writePositionDeletes(lake, file, rows);
        }

        // updates and deletes tiered without compaction: equality delete files and new data files
        upsert(table, key, oracle, randomKeys(random, 0.3), 1);
        delete(table, key, oracle, randomKeys(random, 0.15));
        SparkTables.tierAll(tiering, SparkTables.load(NS, name));
        assertThat(deleteFiles(SparkTables.load(NS, name).lake())).isGreaterThanOrEqualTo(3);

        Dataset<Row> lakeOnly = testing.sql("SELECT * FROM " + table);
        assertSameRows(lakeOnly, key, oracle, "*", "true");
        assertThat(SparkTables.metric(lakeOnly, LakestreamMetrics.LAKE_PARQUET_SPLITS))
                .as("splits read by Spark's Parquet reader")
                .isEqualTo(2);
        assertThat(SparkTables.metric(lakeOnly, LakestreamMetrics.LAKE_ROWS)).isEqualTo(oracle.size());
        assertSameRows(testing.sql("SELECT v FROM %s WHERE i < 40".formatted(table)), key, oracle, "v", "i < 40");

        // a log tail over the same lake: merged on Spark's batches, the delete files still applied
        upsert(table, key, oracle, randomKeys(random, 0.2), 2);
        delete(table, key, oracle, randomKeys(random, 0.1));
        Dataset<Row> merged = testing.sql("SELECT * FROM " + table);
        assertSameRows(merged, key, oracle, "*", "true");
        assertThat(SparkTables.metric(merged, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                .as("splits merged on Spark's batches")
                .isEqualTo(2);
        assertSameRows(
                testing.sql("SELECT %s, v FROM %s WHERE i >= 20".formatted(key.names(), table)),
                key,
                oracle,
                key.names() + ", v",
                "i >= 20");
        assertThat(SparkTesting.rows(testing.sql("SELECT count(*) FROM " + table)))
                .isEqualTo(List.of(List.of((long) oracle.size())));
    }

    private static List<Integer> randomKeys(Random random, double share) {
        List<Integer> keys = new ArrayList<>();
        for (int i = 0; i < KEYS + 10; i++) {
            if (random.nextDouble() < share) {
                keys.add(i);
            }
        }
        return keys;
    }

    private void upsert(String table, Key key, Map<Integer, Integer> oracle, List<Integer> numbers, int version) {
        if (numbers.isEmpty()) {
            return;
        }
        List<String> rows = new ArrayList<>();
        for (int i : numbers) {
            rows.add(row(key, i, version));
            oracle.put(i, version);
        }
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, String.join(", ", rows)));
    }

    private void delete(String table, Key key, Map<Integer, Integer> oracle, List<Integer> numbers) {
        if (numbers.isEmpty()) {
            return;
        }
        List<String> matches = new ArrayList<>();
        for (int i : numbers) {
            matches.add("(i = %s)".formatted(i));
            oracle.remove(i);
        }
        testing.sql("DELETE FROM %s WHERE %s".formatted(table, String.join(" OR ", matches)));
    }

    private static String row(Key key, int i, int version) {
        return "(%s, %s, 'v%s-%s')".formatted(key.values().apply(i), i, version, i);
    }

    private void assertSameRows(
            Dataset<Row> actual, Key key, Map<Integer, Integer> oracle, String projection, String filter) {
        Map<Integer, String> rows = new TreeMap<>();
        oracle.forEach((i, version) -> rows.put(i, row(key, i, version)));
        assertThat(SparkOracle.normalized(actual))
                .as("%s WHERE %s", projection, filter)
                .isEqualTo(
                        SparkOracle.expected(testing, rows, key.columns() + ", i INT, v STRING", projection, filter));
    }

    private static long deleteFiles(Table lake) {
        return Long.parseLong(lake.currentSnapshot().summary().getOrDefault("total-delete-files", "0"));
    }
}
