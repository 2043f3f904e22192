package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import io.lakestream.tiering.TableTiering;
import io.lakestream.write.LakestreamWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Random upserts (Spark INSERT and the Java writer), deletes (Java writer) and appends, tiering at
 * random points, and after each step random filters and projections read through Spark (now and
 * as of a random earlier log version), compared
 * with an oracle: the expected table state in a Spark in-memory view, filtered by Spark itself, so
 * every pushed predicate must agree with Spark's own semantics (nulls included).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkRandomized {
    private static final String NS = "rnd";
    private static final StructType SCHEMA = new StructType()
            .add("id", DataTypes.LongType, false)
            .add("name", DataTypes.StringType, true)
            .add("score", DataTypes.IntegerType, true);
    private static final String[] NAMES = {"ann", "bob", "cid", "dee", null};
    private static final String[] COLUMNS = {"id", "name", "score"};

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService compactionThreads = Executors.newFixedThreadPool(2);

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @AfterAll
    void stopThreads() {
        compactionThreads.shutdownNow();
    }

    @Test
    void primaryKeyTableMatchesTheOracle() {
        run(11, "pk", "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='3')", true, testing.tiering());
    }

    @Test
    void appendOnlyTableMatchesTheOracle() {
        Map<String, Long> paths = run(12, "ao", "TBLPROPERTIES ('bucket.num'='2')", false, testing.tiering());
        // an append-only table's lake files have no deletes: Spark's Parquet reader reads them
        assertThat(paths.get(LakestreamMetrics.LAKE_PARQUET_SPLITS)).isPositive();
    }

    /**
     * Tiering that compacts every bucket it tiers leaves lake files without delete files, so the lake
     * is read by Spark's Parquet reader and a log tail is merged on its batches.
     */
    @Test
    void primaryKeyTableOnACompactedLakeMatchesTheOracle() {
        Map<String, Long> paths = run(
                13,
                "pkc",
                "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='3')",
                true,
                SparkTables.tiering(compactionThreads, 1, 2));
        assertThat(paths.get(LakestreamMetrics.LAKE_PARQUET_SPLITS)).isPositive();
        assertThat(paths.get(LakestreamMetrics.PARQUET_MERGE_SPLITS)).isPositive();
        assertThat(paths.get(LakestreamMetrics.LAKE_ROWS_HIDDEN)).isPositive();
    }

    /** @return the read path metrics, summed over every read */
    private Map<String, Long> run(long seed, String name, String properties, boolean primaryKey, TableTiering tiering) {
        Map<String, Long> paths = new HashMap<>();
        Random random = Seeds.random(seed);
        testing.sql("CREATE TABLE ls.rnd.%s (id BIGINT, name STRING, score INT) %s".formatted(name, properties));
        // key -> row for a primary-key table; for append-only every row under a unique sequence number
        Map<Long, Object[]> oracle = new TreeMap<>();
        long sequence = 0;
        // log version -> the expected state at that version
        Map<Long, Map<Long, Object[]>> history = new TreeMap<>();
        for (int step = 0; step < 14; step++) {
            int action = random.nextInt(10);
            if (action < 4) {
                List<Object[]> batch = randomRows(random, 1 + random.nextInt(6));
                testing.sql("INSERT INTO ls.rnd.%s VALUES %s"
                        .formatted(
                                name,
                                batch.stream()
                                        .map(TestLakestreamSparkRandomized::sqlRow)
                                        .collect(Collectors.joining(", "))));
                for (Object[] row : batch) {
                    oracle.put(primaryKey ? (Long) row[0] : sequence++, row);
                }
            } else if (action < 7) {
                try (LakestreamWriter writer = new LakestreamWriter(
                        SparkTables.load(NS, name), testing.warehouse().allocator())) {
                    for (Object[] row : randomRows(random, 1 + random.nextInt(4))) {
                        if (primaryKey && random.nextInt(3) == 0) {
                            writer.delete(Map.of("id", row[0]));
                            oracle.remove((Long) row[0]);
                            continue;
                        }
                        Map<String, Object> values = new HashMap<>();
                        for (int i = 0; i < COLUMNS.length; i++) {
                            values.put(COLUMNS[i], row[i]);
                        }
                        if (primaryKey) {
                            writer.upsert(values);
                            oracle.put((Long) row[0], row);
                        } else {
                            writer.append(values);
                            oracle.put(sequence++, row);
                        }
                    }
                    writer.commit();
                }
            } else {
                tiering.tier(SparkTables.load(NS, name));
            }
            history.put(SparkTables.logVersion(NS, name), new TreeMap<>(oracle));
            for (int query = 0; query < 2; query++) {
                addPathMetrics(paths, assertSameRows(step, "ls.rnd." + name, oracle, random));
            }
            // time travel to an earlier log version: possibly before the lake's newest snapshot
            List<Long> versions = new ArrayList<>(history.keySet());
            long version = versions.get(random.nextInt(versions.size()));
            assertSameRows(step, "ls.rnd.%s VERSION AS OF %s".formatted(name, version), history.get(version), random);
        }
        return paths;
    }

    private static void addPathMetrics(Map<String, Long> paths, Dataset<Row> read) {
        for (String metric : List.of(
                LakestreamMetrics.LAKE_PARQUET_SPLITS,
                LakestreamMetrics.PARQUET_MERGE_SPLITS,
                LakestreamMetrics.LAKE_ROWS_HIDDEN)) {
            paths.merge(metric, SparkTables.metricIfScanned(read, metric), Long::sum);
        }
    }

    /** @return the read, executed */
    private Dataset<Row> assertSameRows(int step, String table, Map<Long, Object[]> expected, Random random) {
        expected(expected).createOrReplaceTempView("oracle");
        String filter = randomFilter(random, 2);
        String projection = randomProjection(random);
        String actualSql = "SELECT %s FROM %s WHERE %s".formatted(projection, table, filter);
        String expectedSql = "SELECT %s FROM oracle WHERE %s".formatted(projection, filter);
        Dataset<Row> actual = testing.sql(actualSql);
        assertThat(sorted(rows(actual)))
                .as("step %s: %s", step, actualSql)
                .isEqualTo(sorted(rows(testing.sql(expectedSql))));
        return actual;
    }

    private Dataset<Row> expected(Map<Long, Object[]> oracle) {
        List<Row> rows = new ArrayList<>();
        for (Object[] row : oracle.values()) {
            rows.add(RowFactory.create(row));
        }
        return testing.spark().createDataFrame(rows, SCHEMA);
    }

    private static List<Object[]> randomRows(Random random, int count) {
        List<Object[]> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rows.add(new Object[] {
                (long) random.nextInt(30),
                NAMES[random.nextInt(NAMES.length)],
                random.nextInt(5) == 0 ? null : random.nextInt(100) - 20
            });
        }
        return rows;
    }

    private static String sqlRow(Object[] row) {
        return "(%s, %s, %s)"
                .formatted(row[0], row[1] == null ? "NULL" : "'" + row[1] + "'", row[2] == null ? "NULL" : row[2]);
    }

    private static String randomFilter(Random random, int depth) {
        int kind = random.nextInt(depth > 0 ? 11 : 7);
        return switch (kind) {
            case 0 -> "id %s %s".formatted(comparison(random), random.nextInt(30));
            case 1 -> "score %s %s".formatted(comparison(random), random.nextInt(100) - 20);
            case 2 -> "name %s '%s'".formatted(comparison(random), NAMES[random.nextInt(NAMES.length - 1)]);
            case 3 -> random.nextBoolean() ? "score IS NULL" : "name IS NOT NULL";
            case 4 -> "id IN (%s, %s, %s)".formatted(random.nextInt(30), random.nextInt(30), random.nextInt(30));
            case 5 -> "score <=> %s".formatted(random.nextBoolean() ? "NULL" : Integer.toString(random.nextInt(50)));
            case 6 -> random.nextBoolean() ? "name LIKE 'b%'" : "score + 1 > 10";
            case 7 -> "NOT (%s)".formatted(randomFilter(random, depth - 1));
            case 8 -> "(%s) OR (%s)".formatted(randomFilter(random, depth - 1), randomFilter(random, depth - 1));
            default -> "(%s) AND (%s)".formatted(randomFilter(random, depth - 1), randomFilter(random, depth - 1));
        };
    }

    private static String comparison(Random random) {
        return new String[] {"=", "<>", "<", "<=", ">", ">="}[random.nextInt(6)];
    }

    private static String randomProjection(Random random) {
        List<String> columns = new ArrayList<>(Arrays.asList(COLUMNS));
        java.util.Collections.shuffle(columns, random);
        return String.join(", ", columns.subList(0, 1 + random.nextInt(columns.size())));
    }

    private static List<String> sorted(List<List<Object>> rows) {
        return rows.stream()
                .map(String::valueOf)
                .sorted(Comparator.naturalOrder())
                .toList();
    }
}
