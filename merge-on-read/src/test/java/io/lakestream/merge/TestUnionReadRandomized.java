package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BucketUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random inserts, updates and deletes by key over many buckets, tiering at random points (partial
 * rounds, compaction), and after each step reads in every mode with random projections and
 * filters, compared with the oracle: no gaps, no duplicates, no resurrected deletes. The oracle
 * ({@link ChangeOracle}) is built from the rows the test wrote, placed in buckets and offsets by the
 * format's rules; nothing of the implementation's readers feeds it.
 */
@ExtendWith(Seeds.class)
class TestUnionReadRandomized {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "name", Types.StringType.get()),
            Types.NestedField.optional(4, "score", Types.IntegerType.get()));
    private static final List<String> COLUMNS = List.of("id", "region", "name", "score");
    private static final String[] REGIONS = {"eu", "us", "ap"};

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private ExecutorService tieringThreads;
    private final MergeCounters counters = new MergeCounters();
    // merged splits read; with a small index limit some need several passes, so passes must exceed this
    private long splitsWithTail;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        tieringThreads = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void tearDown() {
        tieringThreads.shutdownNow();
        warehouse.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void primaryKeyTable(int seed) {
        run(seed, TableSpec.builder(SCHEMA).primaryKey("id").bucketCount(5).build(), List.of("id"), List.of("id"));
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 5})
    void multiColumnPrimaryKeyTable(int seed) {
        run(
                seed,
                TableSpec.builder(SCHEMA)
                        .primaryKey("id", "region")
                        .bucketCount(4)
                        .build(),
                List.of("id", "region"),
                List.of("id", "region"));
    }

    @ParameterizedTest
    @ValueSource(ints = {6, 7})
    void appendOnlyTable(int seed) {
        run(seed, TableSpec.builder(SCHEMA).bucketKey("id").bucketCount(3).build(), List.of(), List.of("id"));
    }

    @ParameterizedTest
    @ValueSource(ints = {8})
    void appendOnlyTableWithoutBucketKey(int seed) {
        run(seed, TableSpec.builder(SCHEMA).bucketCount(3).build(), List.of(), List.of());
    }

    private void run(int seed, TableSpec spec, List<String> primaryKey, List<String> bucketKey) {
        Random random = Seeds.random(seed);
        LakestreamTable table = warehouse.create("t" + seed, spec);
        ChangeOracle oracle = new ChangeOracle(primaryKey, bucketFunction(bucketKey, spec.bucketCount()));
        List<Long> versions = new ArrayList<>();
        int steps = 40;
        for (int step = 0; step < steps; step++) {
            int action = random.nextInt(10);
            if (action < 6) {
                writeCommit(table, oracle, random, primaryKey);
            } else {
                tier(table, random);
            }
            versions.add(table.log().latestSnapshot().version());
            verifyUnion(table, oracle, random, ReadOptions.UNION, "step " + step);
            verifyLake(table, oracle, random);
            if (random.nextInt(4) == 0) {
                long version = versions.get(random.nextInt(versions.size()));
                verifyUnion(
                        table,
                        oracle,
                        random,
                        ReadOptions.UNION.atLogVersion(version),
                        "time travel to version " + version);
            }
            if (random.nextInt(4) == 0) {
                verifyChanges(table, oracle, random, versions);
            }
        }
        // the run must have exercised what it claims to test
        assertThat(counters.lakeRows()).as("lake rows read").isPositive();
        assertThat(counters.logRows()).as("log rows read").isPositive();
        if (!primaryKey.isEmpty()) {
            assertThat(counters.lakeRowsHidden())
                    .as("lake rows hidden by newer versions")
                    .isPositive();
            assertThat(counters.mergePasses()).as("merge passes").isGreaterThan(splitsWithTail);
        }
    }

    private void writeCommit(LakestreamTable table, ChangeOracle oracle, Random random, List<String> primaryKey) {
        LogSnapshot before = table.log().latestSnapshot();
        try (LakestreamWriter writer =
                new LakestreamWriter(table, warehouse.allocator(), Clock.systemUTC(), 1 + random.nextInt(50))) {
            int rows = 1 + random.nextInt(60);
            for (int i = 0; i < rows; i++) {
                Map<String, Object> row = new HashMap<>();
                row.put("id", (long) random.nextInt(80));
                row.put("region", REGIONS[random.nextInt(REGIONS.length)]);
                row.put("name", random.nextInt(5) == 0 ? null : "n" + random.nextInt(10));
                row.put("score", random.nextInt(5) == 0 ? null : random.nextInt(100));
                if (primaryKey.isEmpty()) {
                    writer.append(row);
                    oracle.write(ChangeType.INSERT, row);
                } else if (random.nextInt(4) == 0) {
                    writer.delete(Map.of("id", row.get("id"), "region", row.get("region")));
                    oracle.write(ChangeType.DELETE, row);
                } else {
                    writer.upsert(row);
                    oracle.write(ChangeType.UPSERT, row);
                }
            }
            writer.commit();
        }
        oracle.committed(before.endOffsets(), table.log().latestSnapshot().endOffsets(), before.bucketCount());
    }

    /**
     * The bucket of a row by the format's rule (docs/format.md), from Iceberg's bucket hash: one column
     * is Iceberg's {@code bucket(N, col)}; several combine as {@code h = 31 * h + hash(column)}. Empty
     * for a table without a bucket key, whose writer chooses the bucket.
     */
    private static Optional<Function<Map<String, Object>, Integer>> bucketFunction(
            List<String> bucketKey, int bucketCount) {
        if (bucketKey.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(row -> {
            int hash = 0;
            for (String column : bucketKey) {
                int columnHash = switch (row.get(column)) {
                    case Long value -> BucketUtil.hash(value);
                    case String value -> BucketUtil.hash(value);
                    case Object value -> throw new IllegalArgumentException("no hash for " + value);
                };
                hash = 31 * hash + columnHash;
            }
            return (hash & Integer.MAX_VALUE) % bucketCount;
        });
    }

    private void tier(LakestreamTable table, Random random) {
        TieringConfig config = TieringConfig.builder()
                .maxRecordsPerBucket(random.nextBoolean() ? 1_000_000 : 1 + random.nextInt(40))
                .retention(Duration.ofDays(1))
                .compactionDeleteFiles(2 + random.nextInt(4))
                .build();
        new TableTiering(config, warehouse.allocator(), tieringThreads, TieringHooks.NONE, Clock.systemUTC())
                .tier(table);
    }

    private void verifyUnion(
            LakestreamTable table, ChangeOracle oracle, Random random, ReadOptions base, String context) {
        RandomFilter filter = RandomFilter.next(random, table);
        List<String> projection = randomProjection(random);
        ReadPlan plan = UnionReadPlanner.plan(table, base.withFilter(filter.expression()));
        List<Map<String, Object>> expected = (oracle.placesChanges()
                        ? oracle.stateAt(plan.logEnds())
                        : oracle.stateAtCommit(plan.logEnds()))
                .stream().filter(filter.predicate()).toList();
        MergeConfig mergeConfig = new MergeConfig(random.nextBoolean() ? 4_000_000 : 1 + random.nextInt(30));
        List<List<Object>> actual = read(table, plan, projection, filter.expression(), mergeConfig);
        splitsWithTail += plan.splits().stream()
                .filter(split -> split.mergeByKey() && !split.isLakeOnly())
                .count();
        assertThat(sorted(actual))
                .as(
                        "%s: union read of %s with filter %s, projection %s, plan %s",
                        context,
                        table,
                        filter.expression(),
                        projection,
                        plan.splits().size())
                .isEqualTo(sorted(project(expected, projection)));
    }

    private void verifyLake(LakestreamTable table, ChangeOracle oracle, Random random) {
        RandomFilter filter = RandomFilter.next(random, table);
        if (!oracle.placesChanges()) {
            verifyLakeOfUnplacedRows(table, oracle);
            return;
        }
        ReadPlan plan =
                UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE).withFilter(filter.expression()));
        List<Map<String, Object>> expected = oracle.stateAt(plan.lakeOffsets()).stream()
                .filter(filter.predicate())
                .toList();
        List<List<Object>> actual = read(table, plan, COLUMNS, filter.expression(), MergeConfig.DEFAULT);
        assertThat(sorted(actual))
                .as("lake read of %s with filter %s", table, filter.expression())
                .isEqualTo(sorted(project(expected, COLUMNS)));
    }

    /**
     * The lake of a table without a bucket key: the model does not know which bucket the writer put a
     * row in, so a commit that tiering took in part gives a choice. The lake holds every row of the
     * commits tiered in full, then rows of the commits tiered in part, as many as the lake offsets
     * count, and nothing else.
     */
    private void verifyLakeOfUnplacedRows(LakestreamTable table, ChangeOracle oracle) {
        ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE));
        OffsetMap lake = plan.lakeOffsets();
        List<String> actual =
                new ArrayList<>(sorted(read(table, plan, COLUMNS, Expressions.alwaysTrue(), MergeConfig.DEFAULT)));
        List<String> fromPartialCommits = new ArrayList<>();
        for (ChangeOracle.Commit commit : oracle.commits()) {
            List<String> rows = sorted(project(
                    commit.changes().stream().map(ChangeOracle.Change::row).toList(), COLUMNS));
            if (ChangeOracle.covers(lake, commit.after())) {
                for (String row : rows) {
                    assertThat(actual.remove(row))
                            .as("lake of %s holds %s of a commit tiered in full", table, row)
                            .isTrue();
                }
            } else if (!ChangeOracle.covers(commit.before(), lake)) {
                fromPartialCommits.addAll(rows);
            }
        }
        for (String row : actual) {
            assertThat(fromPartialCommits.remove(row))
                    .as("lake of %s: %s is a row of a commit tiered in part, not yet counted", table, row)
                    .isTrue();
        }
        long lakeRows =
                lake.offsets().values().stream().mapToLong(Long::longValue).sum();
        long fullRows = oracle.commits().stream()
                .filter(commit -> ChangeOracle.covers(lake, commit.after()))
                .mapToLong(commit -> commit.changes().size())
                .sum();
        assertThat(actual)
                .as("rows of commits tiered in part in the lake of %s", table)
                .hasSize((int) (lakeRows - fullRows));
    }

    private void verifyChanges(LakestreamTable table, ChangeOracle oracle, Random random, List<Long> versions) {
        long after = versions.get(random.nextInt(versions.size()));
        ReadPlan plan =
                UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.CHANGES).changesAfter(after));
        OffsetMap from = table.log().snapshot(after).endOffsets();
        List<List<Object>> expected = new ArrayList<>();
        for (ChangeOracle.Commit commit : oracle.commits()) {
            if (!ChangeOracle.covers(commit.before(), from) || !ChangeOracle.covers(plan.logEnds(), commit.after())) {
                continue;
            }
            for (ChangeOracle.Change change : commit.changes()) {
                List<Object> row = new ArrayList<>();
                row.add(change.type().name().toLowerCase(java.util.Locale.ROOT));
                if (change.placed()) {
                    row.add(change.bucket());
                    row.add(change.offset());
                }
                row.add(change.row().get("id"));
                expected.add(row);
            }
        }
        List<List<Object>> actual = new ArrayList<>();
        java.util.Set<List<Object>> positions = new java.util.HashSet<>();
        for (List<Object> row : read(table, plan, List.of("id"), Expressions.alwaysTrue(), MergeConfig.DEFAULT)) {
            // drop the commit timestamp (column 3): the oracle does not know it
            int bucket = ((Number) row.get(1)).intValue();
            long offset = ((Number) row.get(2)).longValue();
            assertThat(offset)
                    .as("offset of a change after version %s", after)
                    .isBetween(from.offset(bucket), plan.logEnds().offset(bucket) - 1);
            assertThat(positions.add(List.of(bucket, offset)))
                    .as("one change at %s/%s", bucket, offset)
                    .isTrue();
            actual.add(
                    oracle.placesChanges()
                            ? List.of(row.get(0), row.get(1), row.get(2), row.get(4))
                            : List.of(row.get(0), row.get(4)));
        }
        assertThat(sorted(actual)).as("changes after version %s", after).isEqualTo(sorted(expected));
    }

    private List<List<Object>> read(
            LakestreamTable table, ReadPlan plan, List<String> projection, Expression filter, MergeConfig config) {
        return UnionReads.read(table, plan, projection, filter, config, counters, warehouse.allocator());
    }

    private static List<String> randomProjection(Random random) {
        List<String> columns = new ArrayList<>();
        for (String column : COLUMNS) {
            if (random.nextBoolean()) {
                columns.add(column);
            }
        }
        if (columns.isEmpty()) {
            columns.add(COLUMNS.get(random.nextInt(COLUMNS.size())));
        }
        java.util.Collections.shuffle(columns, random);
        return columns;
    }

    private static List<List<Object>> project(Collection<Map<String, Object>> rows, List<String> projection) {
        List<List<Object>> result = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            List<Object> values = new ArrayList<>();
            for (String column : projection) {
                values.add(row.get(column));
            }
            result.add(values);
        }
        return result;
    }

    private static List<String> sorted(List<List<Object>> rows) {
        return rows.stream().map(Objects::toString).sorted().toList();
    }

    /** A filter as Iceberg expression (what the reader gets) and as a Java predicate (what the oracle uses). */
    record RandomFilter(Expression expression, Predicate<Map<String, Object>> predicate) {
        static RandomFilter next(Random random, LakestreamTable table) {
            int bound = random.nextInt(100);
            long id = random.nextInt(80);
            String name = "n" + random.nextInt(10);
            return switch (random.nextInt(7)) {
                case 0 -> new RandomFilter(Expressions.alwaysTrue(), row -> true);
                case 1 ->
                    new RandomFilter(
                            Expressions.lessThan("score", bound),
                            row -> row.get("score") != null && (Integer) row.get("score") < bound);
                case 2 ->
                    new RandomFilter(
                            Expressions.or(
                                    Expressions.greaterThanOrEqual("score", bound), Expressions.equal("name", name)),
                            row -> (row.get("score") != null && (Integer) row.get("score") >= bound)
                                    || name.equals(row.get("name")));
                case 3 ->
                    new RandomFilter(
                            Expressions.equal("id", id), row -> row.get("id").equals(id));
                case 4 ->
                    new RandomFilter(
                            Expressions.in("id", id, id + 1, id + 7),
                            row -> List.of(id, id + 1, id + 7).contains(row.get("id")));
                case 5 ->
                    new RandomFilter(
                            Expressions.and(Expressions.equal("id", id), Expressions.equal("region", "eu")),
                            row -> row.get("id").equals(id) && row.get("region").equals("eu"));
                default -> new RandomFilter(Expressions.isNull("name"), row -> row.get("name") == null);
            };
        }
    }
}
