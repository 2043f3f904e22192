package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.Seeds;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.write.LakestreamWriter;
import io.trino.sql.planner.plan.FilterNode;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The connector through SQL on a real Trino runner: DDL, inserts through the log, union reads before
 * and after real tiering, the {@code $lake}, {@code $changes} and {@code $offsets} views, filter
 * pushdown, and the errors a user sees. Changes that Trino cannot make yet (deletes) go through the
 * Java writer on the same warehouse.
 */
@ExtendWith(Seeds.class)
final class TestLakestreamSql extends AbstractTestQueryFramework {
    private Path warehouse;
    private LakestreamCatalog catalog;
    private BufferAllocator allocator;
    private ExecutorService tieringThreads;

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        warehouse = Files.createTempDirectory("lakestream-trino-test");
        QueryRunner runner =
                LakestreamQueryRunner.builder(warehouse).setWorkerCount(1).build();
        catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
        allocator = new RootAllocator();
        tieringThreads = Executors.newFixedThreadPool(2);
        return runner;
    }

    @AfterAll
    void closeResources() throws Exception {
        tieringThreads.shutdownNow();
        catalog.close();
        allocator.close();
    }

    @Test
    void appendOnlyTable() {
        assertUpdate("CREATE TABLE append_only (id bigint, name varchar, score double) WITH (bucket_count = 3)");
        assertUpdate("INSERT INTO append_only VALUES (1, 'a', 1.5), (2, 'b', NULL), (3, NULL, 3.5)", 3);
        assertUpdate("INSERT INTO append_only VALUES (1, 'a', 1.5), (4, 'd', 4.5)", 2);
        // an append-only table keeps every row, also a repeated one
        assertQuery(
                "SELECT id, name, score FROM append_only",
                "VALUES (1, 'a', 1.5), (2, 'b', NULL), (3, NULL, 3.5), (1, 'a', 1.5), (4, 'd', 4.5)");
        assertQuery("SELECT count(*) FROM append_only", "VALUES 5");

        tier("append_only");
        assertUpdate("INSERT INTO append_only VALUES (5, 'e', 5.5)", 1);
        assertQuery("SELECT count(*), sum(id) FROM append_only", "VALUES (6, 16)");
        assertQuery("SELECT count(*) FROM \"append_only$lake\"", "VALUES 5");
    }

    @Test
    void primaryKeyInsertIsAnUpsert() {
        assertUpdate("CREATE TABLE upserts (id bigint, region varchar, score integer) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate("INSERT INTO upserts VALUES (1, 'eu', 10), (2, 'us', 20), (3, 'ap', 30)", 3);
        assertUpdate("INSERT INTO upserts VALUES (1, 'ap', 11), (4, 'eu', 40)", 2);
        assertQuery(
                "SELECT id, region, score FROM upserts",
                "VALUES (1, 'ap', 11), (2, 'us', 20), (3, 'ap', 30), (4, 'eu', 40)");

        tier("upserts");
        assertUpdate("INSERT INTO upserts VALUES (2, 'eu', 21)", 1);
        delete("upserts", Map.of("id", 3L));
        assertQuery("SELECT id, region, score FROM upserts", "VALUES (1, 'ap', 11), (2, 'eu', 21), (4, 'eu', 40)");
        // the lake still holds the state of the tiering run
        assertQuery(
                "SELECT id, region, score FROM \"upserts$lake\"",
                "VALUES (1, 'ap', 11), (2, 'us', 20), (3, 'ap', 30), (4, 'eu', 40)");

        // after the next tiering run both agree, and the delete is not resurrected
        tier("upserts");
        assertQuery("SELECT id, region, score FROM upserts", "VALUES (1, 'ap', 11), (2, 'eu', 21), (4, 'eu', 40)");
        assertQuery(
                "SELECT id, region, score FROM \"upserts$lake\"", "VALUES (1, 'ap', 11), (2, 'eu', 21), (4, 'eu', 40)");
    }

    @Test
    void lakeViewIsEmptyBeforeTiering() {
        assertUpdate("CREATE TABLE untiered (id bigint, v varchar) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO untiered VALUES (1, 'x')", 1);
        assertQuery("SELECT id, v FROM untiered", "VALUES (1, 'x')");
        assertQueryReturnsEmptyResult("SELECT * FROM \"untiered$lake\"");
    }

    @Test
    void changesView() {
        assertUpdate(
                "CREATE TABLE changelog (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO changelog VALUES (1, 'a'), (2, 'b')", 2);
        assertUpdate("INSERT INTO changelog VALUES (1, 'c')", 1);
        delete("changelog", Map.of("id", 2L));
        tier("changelog");

        assertQuery(
                "SELECT _change_type, id, v FROM \"changelog$changes\"",
                "VALUES ('upsert', 1, 'a'), ('upsert', 2, 'b'), ('upsert', 1, 'c'), ('delete', 2, NULL)");
        // per bucket the offsets are 0, 1, ... in commit order, and the commit times are set
        MaterializedResult changes = computeActual(
                "SELECT _bucket, _offset, id, v, _commit_timestamp IS NOT NULL FROM \"changelog$changes\" ORDER BY _bucket, _offset");
        long previousBucket = -1;
        long expectedOffset = 0;
        for (MaterializedRow row : changes.getMaterializedRows()) {
            int bucket = (Integer) row.getField(0);
            if (bucket != previousBucket) {
                previousBucket = bucket;
                expectedOffset = 0;
            }
            assertThat(row.getField(1)).isEqualTo(expectedOffset++);
            assertThat(row.getField(4)).isEqualTo(true);
        }
        // the versions of one key are in one bucket, in commit order
        assertQuery("SELECT v FROM \"changelog$changes\" WHERE id = 1 ORDER BY _offset", "VALUES 'a', 'c'");
        assertQuery("SELECT count(DISTINCT _bucket) FROM \"changelog$changes\" WHERE id = 1", "VALUES 1");
        assertQuery("SELECT _change_type FROM \"changelog$changes\" WHERE _change_type = 'delete'", "VALUES 'delete'");
    }

    @Test
    void offsetsView() {
        assertUpdate(
                "CREATE TABLE freshness (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        assertUpdate("INSERT INTO freshness SELECT x, 'v' FROM UNNEST(sequence(1, 20)) t(x)", 20);
        assertUpdate("INSERT INTO freshness VALUES (1, 'w'), (2, 'w')", 2);

        assertQuery("SELECT count(*) FROM \"freshness$offsets\"", "VALUES 3");
        assertQuery(
                "SELECT sum(log_end_offset), sum(records_behind), max(lake_offset), count(lake_snapshot_id) FROM \"freshness$offsets\"",
                "VALUES (22, 22, 0, 0)");
        assertQuery(
                "SELECT count(*) FROM \"freshness$offsets\" WHERE records_behind > 0 AND oldest_untiered_change IS NULL",
                "VALUES 0");

        tier("freshness");
        assertQuery(
                "SELECT sum(log_end_offset), sum(records_behind), sum(lake_offset), count(lake_snapshot_id), count(oldest_untiered_change) FROM \"freshness$offsets\"",
                "VALUES (22, 0, 22, 3, 0)");
        assertQuery("SELECT count(DISTINCT lake_snapshot_id) FROM \"freshness$offsets\"", "VALUES 1");

        assertUpdate("INSERT INTO freshness VALUES (3, 'x')", 1);
        assertQuery(
                "SELECT sum(records_behind), count(oldest_untiered_change) FROM \"freshness$offsets\"",
                "VALUES (1, 1)");
        // the one change behind is in the bucket the changelog puts key 3's new version in
        Object bucket = computeScalar("SELECT _bucket FROM \"freshness$changes\" WHERE id = 3 AND v = 'x'");
        assertThat(computeScalar("SELECT bucket FROM \"freshness$offsets\" WHERE records_behind > 0"))
                .isEqualTo(bucket);
    }

    @Test
    void filterOnValuesChangedInTheLogTail() {
        assertUpdate("CREATE TABLE changed (id bigint, region varchar, score double) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate("INSERT INTO changed SELECT x, 'eu', x * 1.0 FROM UNNEST(sequence(1, 40)) t(x)", 40);
        tier("changed");
        // ids 1..10 move to 'us' in the log tail; their lake versions still say 'eu'
        assertUpdate("INSERT INTO changed SELECT x, 'us', x * 1.0 FROM UNNEST(sequence(1, 10)) t(x)", 10);
        delete("changed", Map.of("id", 40L));

        assertThat(query("SELECT id FROM changed WHERE region = 'eu'")).isFullyPushedDown();
        assertQuery("SELECT count(*), min(id), max(id) FROM changed WHERE region = 'eu'", "VALUES (29, 11, 39)");
        assertQuery("SELECT count(*), min(id), max(id) FROM changed WHERE region = 'us'", "VALUES (10, 1, 10)");
        assertQuery("SELECT count(*) FROM changed WHERE region IN ('us', 'eu')", "VALUES 39");
        // a key that moved out of a range is not returned from its old lake version
        assertQuery("SELECT id FROM changed WHERE region = 'eu' AND id <= 11", "VALUES 11");
        assertQuery("SELECT region FROM changed WHERE id = 5", "VALUES 'us'");
        assertQueryReturnsEmptyResult("SELECT id FROM changed WHERE id = 40");
        assertQuery("SELECT id FROM changed WHERE region = 'us' AND id BETWEEN 3 AND 4", "VALUES 3, 4");
        assertQuery("SELECT count(*) FROM changed WHERE region IS NULL", "VALUES 0");

        // floating point filters are applied by the engine, and still correct
        assertThat(query("SELECT id FROM changed WHERE score > 38.5")).isNotFullyPushedDown(FilterNode.class);
        assertQuery("SELECT id FROM changed WHERE score > 38.5", "VALUES 39");

        // the lake view sees only what tiering committed
        assertQuery("SELECT count(*) FROM \"changed$lake\" WHERE region = 'eu'", "VALUES 40");

        // an equality on the key reads one bucket: fewer splits, so fewer drivers in the source stage
        int allBuckets = totalDrivers("SELECT * FROM changed");
        int oneBucket = totalDrivers("SELECT * FROM changed WHERE id = 5");
        assertThat(allBuckets - oneBucket).isEqualTo(3);
    }

    private int totalDrivers(String sql) {
        int[] drivers = new int[1];
        assertQueryStats(getSession(), sql, stats -> drivers[0] = stats.getTotalDrivers(), result -> {});
        return drivers[0];
    }

    @Test
    void limitIsAHint() {
        assertUpdate("CREATE TABLE limited (id bigint) WITH (bucket_count = 2)");
        assertUpdate("INSERT INTO limited SELECT x FROM UNNEST(sequence(1, 50)) t(x)", 50);
        assertQuery("SELECT count(*) FROM (SELECT * FROM limited LIMIT 7)", "VALUES 7");
        assertQuery("SELECT count(*) FROM (SELECT * FROM limited LIMIT 70)", "VALUES 50");
    }

    @Test
    void allTypesThroughLogAndLake() {
        assertUpdate("CREATE TABLE all_types ("
                + "id integer, b boolean, l bigint, r real, d double, sd decimal(10, 2), ld decimal(30, 5), "
                + "dt date, t time(6), ts timestamp(6), tstz timestamp(6) with time zone, s varchar, u uuid, bin varbinary) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate(
                "INSERT INTO all_types VALUES "
                        + "(1, true, 9223372036854775807, REAL '1.5', -2.25, DECIMAL '-12345678.91', DECIMAL '1234567890123456789012345.12345', "
                        + "DATE '2024-02-29', TIME '23:59:59.999999', TIMESTAMP '1969-12-31 23:59:59.999999', "
                        + "TIMESTAMP '2024-01-02 03:04:05.678901 UTC', 'héllo ☃', UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', X'00ff10'), "
                        + "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
                2);
        String expected = "SELECT * FROM (VALUES "
                + "(1, true, BIGINT '9223372036854775807', REAL '1.5', DOUBLE '-2.25', DECIMAL '-12345678.91', DECIMAL '1234567890123456789012345.12345', "
                + "DATE '2024-02-29', TIME '23:59:59.999999', TIMESTAMP '1969-12-31 23:59:59.999999', "
                + "TIMESTAMP '2024-01-02 03:04:05.678901 UTC', CAST('héllo ☃' AS varchar), UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', X'00ff10'), "
                + "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL))";
        // from the log, then from the lake's Parquet files
        assertThat(query("SELECT * FROM all_types")).matches(expected);
        tier("all_types");
        assertThat(query("SELECT * FROM all_types")).matches(expected);
        assertThat(query("SELECT * FROM \"all_types$lake\"")).matches(expected);
        // pushed-down filters on each translatable type match exactly the row they should
        assertQuery("SELECT id FROM all_types WHERE sd = DECIMAL '-12345678.91'", "VALUES 1");
        assertQuery("SELECT id FROM all_types WHERE ld > DECIMAL '1234567890123456789012345.12344'", "VALUES 1");
        assertQuery("SELECT id FROM all_types WHERE dt = DATE '2024-02-29'", "VALUES 1");
        assertQuery("SELECT id FROM all_types WHERE ts < TIMESTAMP '1970-01-01 00:00:00'", "VALUES 1");
        assertQuery("SELECT id FROM all_types WHERE tstz = TIMESTAMP '2024-01-02 04:04:05.678901 +01:00'", "VALUES 1");
        assertQuery("SELECT id FROM all_types WHERE s = 'héllo ☃'", "VALUES 1");
        assertQuery("SELECT id FROM all_types WHERE b", "VALUES 1");
        assertQuery("SELECT id FROM all_types WHERE l IS NULL", "VALUES 2");
    }

    @Test
    void showCreateTable() {
        assertUpdate(
                "CREATE TABLE described (id bigint NOT NULL COMMENT 'the key', region varchar, v varchar) "
                        + "COMMENT 'a described table' WITH (primary_key = ARRAY['id', 'region'], bucket_key = ARRAY['id'], bucket_count = 5)");
        String ddl = (String) computeScalar("SHOW CREATE TABLE described");
        assertThat(ddl)
                .contains("id bigint NOT NULL COMMENT 'the key'")
                .contains("region varchar NOT NULL")
                .contains("v varchar")
                .contains("COMMENT 'a described table'")
                .contains("primary_key = ARRAY['id','region']")
                .contains("bucket_key = ARRAY['id']")
                .contains("bucket_count = 5");

        assertQuery(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = '" + SCHEMA
                        + "' AND table_name = 'described'",
                "VALUES ('id', 'bigint'), ('region', 'varchar'), ('v', 'varchar')");
        assertTableColumnNames(
                "\"described$changes\"",
                "_change_type",
                "_bucket",
                "_offset",
                "_commit_timestamp",
                "id",
                "region",
                "v");
    }

    @Test
    void createAndDrop() {
        assertUpdate("CREATE SCHEMA other");
        assertUpdate("CREATE TABLE other.dropped (id bigint) WITH (primary_key = ARRAY['id'])");
        assertUpdate("INSERT INTO other.dropped VALUES 1", 1);
        assertQuery("SHOW TABLES FROM other", "VALUES 'dropped'");
        assertQueryFails("DROP SCHEMA other", ".*Cannot drop non-empty schema 'other'.*");
        assertUpdate("CREATE TABLE IF NOT EXISTS other.dropped (id bigint)");
        assertUpdate("DROP TABLE other.dropped");
        assertQueryReturnsEmptyResult("SHOW TABLES FROM other");
        assertQueryFails("SELECT * FROM other.dropped", ".*Table 'lakestream.other.dropped' does not exist.*");
        assertUpdate("DROP SCHEMA other");
        assertThat(computeActual("SHOW SCHEMAS").getOnlyColumnAsSet()).doesNotContain("other");
    }

    @Test
    void createTableAsSelectAndTypeCoercion() {
        assertUpdate(
                "CREATE TABLE copied WITH (primary_key = ARRAY['id'], bucket_count = 2) AS "
                        + "SELECT CAST(x AS bigint) id, CAST('v' || CAST(x AS varchar) AS varchar(10)) v, CAST(x AS tinyint) small "
                        + "FROM UNNEST(sequence(1, 5)) t(x)",
                5);
        // narrower types are stored as the nearest type a Lakestream table has
        assertQuery(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = '" + SCHEMA
                        + "' AND table_name = 'copied'",
                "VALUES ('id', 'bigint'), ('v', 'varchar'), ('small', 'integer')");
        assertQuery("SELECT id, v, small FROM copied WHERE id > 3", "VALUES (4, 'v4', 4), (5, 'v5', 5)");
        assertThat((String) computeScalar("SHOW CREATE TABLE copied")).contains("primary_key = ARRAY['id']");

        // a CREATE TABLE AS that fails leaves no table behind
        assertQueryFails(
                "CREATE TABLE failed_copy AS SELECT 1 / (x - 3) v FROM UNNEST(sequence(1, 5)) t(x)",
                ".*Division by zero.*");
        assertQueryReturnsEmptyResult("SHOW TABLES LIKE 'failed_copy'");
    }

    @Test
    void badCatalogConfiguration() {
        assertThatThrownBy(() -> getQueryRunner()
                        .createCatalog(
                                "bad_type",
                                LakestreamConnectorFactory.CONNECTOR_NAME,
                                Map.of(
                                        "lakestream.warehouse",
                                        warehouse.toString(),
                                        "lakestream.catalog.type",
                                        "nessie")))
                .hasStackTraceContaining("lakestream.catalog.type")
                .hasStackTraceContaining("must be jdbc, hadoop or rest");
        assertThatThrownBy(() -> getQueryRunner()
                        .createCatalog("no_warehouse", LakestreamConnectorFactory.CONNECTOR_NAME, Map.of()))
                .hasStackTraceContaining("lakestream.warehouse");
    }

    @Test
    void badTableDefinitions() {
        assertQueryFails(
                "CREATE TABLE bad (id bigint) WITH (primary_key = ARRAY['nope'])",
                ".*primary key column 'nope' does not exist; the columns are \\[id\\].*");
        assertQueryFails(
                "CREATE TABLE bad (id bigint) WITH (bucket_count = 0)",
                ".*bucket_count must be at least 1, but was 0.*");
        assertQueryFails(
                "CREATE TABLE bad (id bigint, k bigint NOT NULL) WITH (primary_key = ARRAY['id'], bucket_key = ARRAY['k'])",
                ".*bucket key \\[k\\] must be a subset of the primary key \\[id\\].*");
        assertQueryFails(
                "CREATE TABLE bad (id bigint, c char(3))",
                ".*Unsupported type: char\\(3\\) of column 'c'. Lakestream tables support boolean, integer.*"
                        + " and array, map and row of these .*char\\(n\\) is not stored: use varchar\\)");
        assertQueryFails(
                "CREATE TABLE bad (id double) WITH (primary_key = ARRAY['id'])",
                ".*primary key column 'id' has type double, which cannot be a key.*");
        assertQueryFails(
                "CREATE TABLE \"bad$x\" (id bigint)",
                ".*Table name 'bad\\$x' contains '\\$', which is reserved for the views.*");
        assertQueryReturnsEmptyResult("SHOW TABLES LIKE 'bad%'");
    }

    @Test
    void badQueries() {
        assertUpdate("CREATE TABLE guarded (id bigint, v varchar) WITH (primary_key = ARRAY['id'])");
        assertQueryFails(
                "INSERT INTO guarded VALUES (NULL, 'x')", ".*NULL value not allowed for NOT NULL column: id.*");
        assertQueryFails(
                "INSERT INTO \"guarded$lake\" VALUES (1, 'x')",
                ".*INSERT is not supported on .*guarded\\$lake.*read-only view.*");
        assertQueryFails(
                "SELECT * FROM \"guarded$history\"",
                ".*'\\$history' is not a view of a Lakestream table; use \\$lake, \\$changes or \\$offsets.*");
        assertQueryReturnsEmptyResult("SELECT * FROM guarded");
    }

    /**
     * Random upserts through INSERT, deletes through the Java writer and tiering at random points;
     * after each step random filters and projections on the union read, and the lake view after
     * each tiering run, are compared with an oracle of the expected table state.
     */
    @Test
    void randomChangesAgainstAnOracle() {
        assertUpdate("CREATE TABLE randomized (id bigint, region varchar, score integer) "
                + "WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        Random random = Seeds.random(20261129);
        Map<Long, Row> expected = new TreeMap<>();
        Map<Long, Row> expectedLake = new TreeMap<>();
        long changes = 0;
        for (int step = 0; step < 24; step++) {
            int action = random.nextInt(10);
            if (action < 6) {
                List<Long> keys = randomKeys(random, 1 + random.nextInt(8));
                List<String> values = new ArrayList<>();
                for (long key : keys) {
                    Row row = new Row(
                            random.nextInt(5) == 0 ? null : REGIONS[random.nextInt(REGIONS.length)],
                            random.nextInt(6) == 0 ? null : random.nextInt(100));
                    expected.put(key, row);
                    values.add("(%s, %s, %s)".formatted(key, sqlLiteral(row.region()), row.score()));
                }
                assertUpdate("INSERT INTO randomized VALUES " + String.join(", ", values), keys.size());
                changes += keys.size();
            } else if (action < 8) {
                for (long key : randomKeys(random, 1 + random.nextInt(3))) {
                    delete("randomized", Map.of("id", key));
                    expected.remove(key);
                    changes++;
                }
            } else {
                tier("randomized");
                expectedLake = new TreeMap<>(expected);
                assertThat(rows("SELECT id, region, score FROM \"randomized$lake\""))
                        .containsExactlyInAnyOrderElementsOf(rowsOf(expectedLake, row -> true));
            }
            assertQuery("SELECT count(*) FROM \"randomized$changes\"", "VALUES " + changes);
            for (int query = 0; query < 3; query++) {
                RandomFilter filter = RandomFilter.random(random);
                assertThat(rows("SELECT id, region, score FROM randomized WHERE " + filter.sql()))
                        .as("step %s: %s", step, filter.sql())
                        .containsExactlyInAnyOrderElementsOf(rowsOf(expected, filter.predicate()));
            }
        }
    }

    private static final String[] REGIONS = {"eu", "us", "ap"};

    private record Row(String region, Integer score) {}

    /** A WHERE clause and the same condition in Java, with SQL's null semantics (a comparison with NULL is not true). */
    private record RandomFilter(String sql, java.util.function.BiPredicate<Long, Row> predicate) {
        static RandomFilter random(Random random) {
            RandomFilter first = simple(random);
            return switch (random.nextInt(4)) {
                case 0 -> {
                    RandomFilter second = simple(random);
                    yield new RandomFilter(
                            "(%s) AND (%s)".formatted(first.sql(), second.sql()),
                            (id, row) -> first.predicate().test(id, row)
                                    && second.predicate().test(id, row));
                }
                case 1 -> {
                    RandomFilter second = simple(random);
                    yield new RandomFilter(
                            "(%s) OR (%s)".formatted(first.sql(), second.sql()),
                            (id, row) -> first.predicate().test(id, row)
                                    || second.predicate().test(id, row));
                }
                default -> first;
            };
        }

        private static RandomFilter simple(Random random) {
            String region = REGIONS[random.nextInt(REGIONS.length)];
            long key = 1 + random.nextInt(40);
            int score = random.nextInt(100);
            return switch (random.nextInt(7)) {
                case 0 -> new RandomFilter("region = '%s'".formatted(region), (id, row) -> region.equals(row.region()));
                case 1 -> new RandomFilter("region IS NULL", (id, row) -> row.region() == null);
                case 2 ->
                    new RandomFilter(
                            "region IN ('%s', 'ap')".formatted(region),
                            (id, row) -> region.equals(row.region()) || "ap".equals(row.region()));
                case 3 ->
                    new RandomFilter(
                            "score > %s".formatted(score), (id, row) -> row.score() != null && row.score() > score);
                case 4 ->
                    new RandomFilter(
                            "score BETWEEN %s AND %s".formatted(score, score + 30),
                            (id, row) -> row.score() != null && row.score() >= score && row.score() <= score + 30);
                case 5 -> new RandomFilter("id = %s".formatted(key), (id, row) -> id == key);
                default -> new RandomFilter("id < %s".formatted(key), (id, row) -> id < key);
            };
        }
    }

    private static List<Long> randomKeys(Random random, int count) {
        Set<Long> keys = new LinkedHashSet<>();
        while (keys.size() < count) {
            keys.add(1L + random.nextInt(40));
        }
        return List.copyOf(keys);
    }

    private static String sqlLiteral(String value) {
        return value == null ? "NULL" : "'" + value + "'";
    }

    private static List<List<Object>> rowsOf(Map<Long, Row> state, java.util.function.BiPredicate<Long, Row> filter) {
        List<List<Object>> rows = new ArrayList<>();
        state.forEach((id, row) -> {
            if (filter.test(id, row)) {
                rows.add(Arrays.asList(id, row.region(), row.score()));
            }
        });
        return rows;
    }

    private static List<List<Object>> rowsOf(Map<Long, Row> state, Predicate<Row> filter) {
        return rowsOf(state, (id, row) -> filter.test(row));
    }

    private List<List<Object>> rows(String sql) {
        return computeActual(sql).getMaterializedRows().stream()
                .map(MaterializedRow::getFields)
                .map(fields -> Arrays.asList(fields.toArray()))
                .toList();
    }

    private void tier(String table) {
        TieringResult result = new TableTiering(
                        TieringConfig.defaults(), allocator, tieringThreads, TieringHooks.NONE, Clock.systemUTC())
                .tier(load(table));
        assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
    }

    private void delete(String table, Map<String, ?> key) {
        try (LakestreamWriter writer = new LakestreamWriter(load(table), allocator)) {
            writer.delete(key);
            writer.commit();
        }
    }

    private LakestreamTable load(String table) {
        return catalog.loadTable(TableIdentifier.of(SCHEMA, table));
    }
}
