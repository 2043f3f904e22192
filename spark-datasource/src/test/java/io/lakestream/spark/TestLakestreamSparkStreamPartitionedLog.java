package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Structured Streaming of tables whose log is kept per (partition, bucket) (docs/format.md "The log of a partitioned
 * table"): Java-writer and Spark commits into several partitions, new partitions appearing while the stream runs and
 * while it is stopped, tiering at random points, a restart from the checkpoint in the middle and a last run with
 * {@code Trigger.AvailableNow}, all in batches bounded by {@code max-rows-per-trigger} and {@code max-commits-per-trigger}. The stream's rows equal an
 * oracle built from what the test wrote: the {@code changelog} and {@code upsert} outputs of a primary-key table, and
 * the rows of an append-only table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkStreamPartitionedLog {
    private static final String NS = "stream_plog";
    private static final Trigger FAST = Trigger.ProcessingTime("50 milliseconds");
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));
    /** Regions in the order they appear: the first two from the start, each later one new mid-stream. */
    private static final List<String> REGIONS = List.of("eu", "us", "ap", "sa", "af");

    private static final int KEYS = 30;
    /** Admission limits of every stream: whole commits, at most two and at most 25 rows (unless one is larger). */
    private static final Map<String, String> LIMITS =
            Map.of("max-rows-per-trigger", "25", "max-commits-per-trigger", "2");
    // rows of t$changes: _change_type, _bucket, _partition, _offset, _commit_timestamp, id, region, score
    private static final int TYPE = 0;
    private static final int OFFSET = 3;
    private static final int FIRST_COLUMN = 5;

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /** {@code stream.output=changelog}: the state at the start, then each key's net change per commit, in order. */
    @Test
    void changelogOfAPartitionedLogMatchesTheOracle() throws Exception {
        long seed = Seeds.seed(4101);
        KeyedOracle oracle = new KeyedOracle();
        String name = "changelog-" + seed;
        LakestreamTable table = createTable("changelog_t", true);
        run(seed, table, oracle, changes("changelog_t", "changelog"), name);

        Map<List<Object>, List<Object>> applied = new HashMap<>();
        Map<List<Object>, List<List<Object>>> emitted = new LinkedHashMap<>();
        for (Row row : StreamCollector.rows(name)) {
            List<Object> values = values(row);
            List<Object> key = values.subList(0, 2);
            String type = row.getString(TYPE);
            if (row.isNullAt(OFFSET)) {
                assertThat(type).as("a state row").isEqualTo("insert");
                assertThat(applied.put(key, values))
                        .as("state row of %s twice", key)
                        .isNull();
                continue;
            }
            List<Object> change = new ArrayList<>();
            change.add(type);
            change.addAll(values);
            emitted.computeIfAbsent(key, ignored -> new ArrayList<>()).add(change);
            switch (type) {
                case "insert" ->
                    assertThat(applied.put(key, values))
                            .as("insert of present key %s", key)
                            .isNull();
                case "update_before" ->
                    assertThat(applied.get(key))
                            .as("update_before of %s is the current row", key)
                            .isEqualTo(values);
                case "update_after" ->
                    assertThat(applied.put(key, values))
                            .as("update_after of absent %s", key)
                            .isNotNull();
                case "delete" ->
                    assertThat(applied.remove(key))
                            .as("delete of %s carries the removed row", key)
                            .isEqualTo(values);
                default -> throw new AssertionError("change type " + type);
            }
        }
        assertThat(new HashMap<>(emitted)).isEqualTo(oracle.changelog);
        assertThat(applied).isEqualTo(oracle.state);
    }

    /**
     * {@code stream.output=upsert}: the state at the start, then per batch at most one row per key (its last change);
     * applied in order they give the oracle's state.
     */
    @Test
    void upsertsOfAPartitionedLogGiveTheOracleState() throws Exception {
        long seed = Seeds.seed(4102);
        KeyedOracle oracle = new KeyedOracle();
        String name = "upsert-" + seed;
        LakestreamTable table = createTable("upsert_t", true);
        run(seed, table, oracle, changes("upsert_t", "upsert"), name);

        Map<List<Object>, List<Object>> applied = new HashMap<>();
        for (StreamCollector.Batch batch : StreamCollector.batches(name)) {
            Set<List<Object>> keys = new HashSet<>();
            for (Row row : batch.rows()) {
                List<Object> values = values(row);
                List<Object> key = values.subList(0, 2);
                if (!row.isNullAt(OFFSET)) {
                    assertThat(keys.add(key))
                            .as("batch %s: key %s once", batch.id(), key)
                            .isTrue();
                }
                switch (row.getString(TYPE)) {
                    case "upsert" -> applied.put(key, values);
                    case "delete" -> applied.remove(key);
                    default -> throw new AssertionError("change type " + row.getString(TYPE));
                }
            }
        }
        assertThat(applied).isEqualTo(oracle.state);
    }

    /** An append-only table streams every row written once (each row has its own id, so a duplicate shows). */
    @Test
    void rowsOfAnAppendOnlyPartitionedLogMatchTheOracle() throws Exception {
        long seed = Seeds.seed(4103);
        AppendOracle oracle = new AppendOracle();
        String name = "append-" + seed;
        LakestreamTable table = createTable("append_t", false);
        Dataset<Row> stream = testing.spark().readStream().options(LIMITS).table("ls.%s.append_t".formatted(NS));
        run(seed, table, oracle, stream, name);

        List<List<Object>> streamed = new ArrayList<>();
        for (Row row : StreamCollector.rows(name)) {
            streamed.add(Arrays.asList(row.get(0), row.get(1), row.get(2)));
        }
        assertThat(streamed).containsExactlyInAnyOrderElementsOf(oracle.rows);
    }

    /**
     * A filter on the partition column prunes whole log partitions of a stream's batches: the filtered stream reads
     * exactly the segments of that partition ({@code logSegments}, counted from the batches' scans), fewer than the
     * whole stream, and returns exactly the changes the oracle wrote into it.
     */
    @Test
    void filterOnThePartitionColumnReadsOnlyThatPartitionsSegments() throws Exception {
        long seed = Seeds.seed(4104);
        Random random = new Random(seed);
        LakestreamTable created = createTable("pruned_t", true);
        KeyedOracle oracle = new KeyedOracle();
        oracle.startRecording();
        List<List<Object>> euChanges = new ArrayList<>();
        for (int commit = 0; commit < 4; commit++) {
            euChanges.addAll(oracle.writeWithJavaWriter(load(created), random, 3));
        }
        euChanges.removeIf(change -> !change.get(2).equals("eu"));
        long euSegments = load(created).log().latestSnapshot().partitions().stream()
                .filter(partition -> partition.path().equals("region=eu"))
                .flatMap(partition -> partition.buckets().stream())
                .mapToLong(bucket -> bucket.segments().size())
                .sum();
        long allSegments = load(created).log().latestSnapshot().liveSegments().size();
        assertThat(euSegments).isPositive().isLessThan(allSegments);

        Dataset<Row> all = testing.spark()
                .readStream()
                .option("startup.mode", "earliest")
                .table("ls.%s.`pruned_t$changes`".formatted(NS));
        String allName = "pruned-all-" + seed;
        StreamScanWork.runToEnd(all, allName, Files.createTempDirectory("lakestream-plog-all"), "append");
        String euName = "pruned-eu-" + seed;
        StreamScanWork.runToEnd(
                all.where("region = 'eu'"), euName, Files.createTempDirectory("lakestream-plog-eu"), "append");

        assertThat(StreamScanWork.logSegments(allName)).isEqualTo(allSegments);
        assertThat(StreamScanWork.logSegments(euName)).isEqualTo(euSegments);
        assertThat(logChanges(StreamCollector.rows(euName))).containsExactlyInAnyOrderElementsOf(euChanges);
    }

    /**
     * Retention removed, while the stream was stopped, changes it had not read: of a partition it had read before and
     * of a partition that appeared meanwhile (offset 0 is gone). The restarted stream fails with {@code
     * LOG_RANGE_REMOVED} naming the (partition, bucket) and delivers nothing more; so does a new {@code earliest}
     * stream.
     */
    @Test
    void unreadRangeOfAPartitionRemovedWhileStoppedFails() throws Exception {
        long seed = Seeds.seed(4105);
        Random random = new Random(seed);
        LakestreamTable created = createTable("retention_t", true);
        KeyedOracle oracle = new KeyedOracle();
        oracle.writeWithJavaWriter(load(created), random, 2);
        Dataset<Row> stream = testing.spark().readStream().table("ls.%s.`retention_t$changes`".formatted(NS));
        String name = "retention-" + seed;
        Path checkpoint = Files.createTempDirectory("lakestream-plog-retention");
        StreamingQuery query = StreamCollector.start(stream, name, checkpoint, FAST);
        try {
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        int delivered = StreamCollector.batches(name).size();

        oracle.writeWithJavaWriter(load(created), random, 3);
        LakestreamTable table = load(created);
        SparkTables.tierAll(testing.tiering(), table);
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();

        StreamCollector.assertQueryFails(
                stream,
                name,
                checkpoint,
                FAST,
                "[LOG_RANGE_REMOVED]",
                "which it has not read yet",
                "of partition region=",
                "startup.mode 'full'");
        assertThat(StreamCollector.batches(name)).hasSize(delivered);
        StreamCollector.assertQueryFails(
                testing.spark()
                        .readStream()
                        .option("startup.mode", "earliest")
                        .table("ls.%s.`retention_t$changes`".formatted(NS)),
                name + "-earliest",
                Files.createTempDirectory("lakestream-plog-earliest"),
                FAST,
                "[LOG_RANGE_REMOVED]",
                "of partition region=");
    }

    /**
     * Start modes {@code latest}, {@code version} and {@code timestamp} on a partitioned log: exactly the changes
     * committed after the start, of partitions the log had then and of partitions that appeared afterwards (from their
     * offset 0), and a {@code latest} stream restarted on its checkpoint continues with the new partitions.
     */
    @Test
    void laterStartsReadTheChangesAfterThemInEveryPartition() throws Exception {
        LakestreamTable created = createTable("starts_t", true);
        upserts(created, List.of(Arrays.asList(1L, "eu", 1), Arrays.asList(2L, "us", 2)));
        Dataset<Row> latest = changesFrom("starts_t", Map.of("startup.mode", "latest"));
        Path checkpoint = Files.createTempDirectory("lakestream-plog-latest");
        runAvailableNow(latest, "starts-latest", checkpoint);
        assertThat(StreamCollector.rows("starts-latest")).isEmpty();

        List<List<Object>> second = upserts(created, List.of(Arrays.asList(3L, "eu", 3), Arrays.asList(4L, "ap", 4)));
        long secondVersion = load(created).log().latestSnapshot().version();
        long secondCommitted = load(created).log().latestSnapshot().committedAtMillis();
        List<List<Object>> third = upserts(
                created, List.of(Arrays.asList(5L, "sa", 5), Arrays.asList(2L, "us", 6), Arrays.asList(6L, "ap", 7)));
        assertThat(load(created).log().latestSnapshot().partitions()).hasSize(4);

        runAvailableNow(latest, "starts-latest", checkpoint);
        List<List<Object>> both = new ArrayList<>(second);
        both.addAll(third);
        assertThat(logChanges(StreamCollector.rows("starts-latest"))).containsExactlyInAnyOrderElementsOf(both);

        runAvailableNow(
                changesFrom(
                        "starts_t", Map.of("startup.mode", "version", "startup.version", Long.toString(secondVersion))),
                "starts-version",
                Files.createTempDirectory("lakestream-plog-version"));
        assertThat(logChanges(StreamCollector.rows("starts-version"))).containsExactlyInAnyOrderElementsOf(third);
        runAvailableNow(
                changesFrom(
                        "starts_t",
                        Map.of("startup.mode", "timestamp", "startup.timestamp", Long.toString(secondCommitted))),
                "starts-timestamp",
                Files.createTempDirectory("lakestream-plog-timestamp"));
        assertThat(logChanges(StreamCollector.rows("starts-timestamp"))).containsExactlyInAnyOrderElementsOf(third);
    }

    /** One Java-writer commit of upserts of rows {@code [id, region, score]}; returns them as log changes. */
    private static List<List<Object>> upserts(LakestreamTable created, List<List<Object>> rows) {
        List<List<Object>> changes = new ArrayList<>();
        try (LakestreamWriter writer = new LakestreamWriter(
                load(created), SparkTesting.get().warehouse().allocator())) {
            for (List<Object> row : rows) {
                writer.upsert(columns(row));
                changes.add(Arrays.asList("upsert", row.get(0), row.get(1), row.get(2)));
            }
            writer.commit();
        }
        return changes;
    }

    private Dataset<Row> changesFrom(String table, Map<String, String> options) {
        return testing.spark().readStream().options(options).table("ls.%s.`%s$changes`".formatted(NS, table));
    }

    private static void runAvailableNow(Dataset<Row> stream, String name, Path checkpoint) throws Exception {
        StreamingQuery query = StreamCollector.start(stream, name, checkpoint, Trigger.AvailableNow());
        assertThat(query.awaitTermination(TimeUnit.SECONDS.toMillis(50))).isTrue();
        assertThat(query.exception().isEmpty())
                .as("the query did not fail: %s", query.exception())
                .isTrue();
    }

    /** type, id, region, score of {@code t$changes} rows. */
    private static List<List<Object>> logChanges(List<Row> rows) {
        List<List<Object>> changes = new ArrayList<>();
        for (Row row : rows) {
            List<Object> change = new ArrayList<>();
            change.add(row.getString(TYPE));
            change.addAll(values(row));
            changes.add(change);
        }
        return changes;
    }

    /**
     * The schedule every test runs: writes into the first regions and a tiering pass, then a {@code full} stream
     * while commits (into new regions too) and tiering happen, stopped; commits into a new region and tiering while
     * it is down; the stream restarted on its checkpoint; more commits into another new region; a last run with
     * {@code Trigger.AvailableNow} on the same checkpoint.
     */
    private void run(long seed, LakestreamTable created, Oracle oracle, Dataset<Row> stream, String name)
            throws Exception {
        Random random = new Random(seed);
        String qualified = "ls.%s.%s".formatted(NS, created.identifier().name());
        int regions = 2;
        for (int commit = 0; commit < 2; commit++) {
            oracle.write(load(created), qualified, random, regions);
        }
        SparkTables.tierAll(testing.tiering(), load(created));
        oracle.write(load(created), qualified, random, regions);
        oracle.startRecording();
        Path checkpoint = Files.createTempDirectory("lakestream-plog-checkpoint");

        StreamingQuery query = StreamCollector.start(stream, name, checkpoint, FAST);
        try {
            query.processAllAvailable();
            for (int round = 0; round < 2; round++) {
                regions = round == 1 ? 3 : regions;
                for (int commit = random.nextInt(2); commit >= 0; commit--) {
                    oracle.write(load(created), qualified, random, regions);
                }
                if (random.nextBoolean()) {
                    testing.tiering().tier(load(created));
                }
                query.processAllAvailable();
            }
        } finally {
            query.stop();
        }
        assertThat(query.exception().isEmpty())
                .as("the query did not fail: %s", query.exception())
                .isTrue();

        // while the stream is down: a new partition, tiering of everything
        regions = 4;
        oracle.write(load(created), qualified, random, regions);
        SparkTables.tierAll(testing.tiering(), load(created));
        oracle.write(load(created), qualified, random, regions);

        query = StreamCollector.start(stream, name, checkpoint, FAST);
        try {
            query.processAllAvailable();
            oracle.write(load(created), qualified, random, regions);
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        assertThat(query.exception().isEmpty())
                .as("the query did not fail: %s", query.exception())
                .isTrue();

        regions = 5;
        for (int commit = 0; commit < 3; commit++) {
            oracle.write(load(created), qualified, random, regions);
        }
        int batchesBefore = StreamCollector.batches(name).size();
        query = StreamCollector.start(stream, name, checkpoint, Trigger.AvailableNow());
        assertThat(query.awaitTermination(TimeUnit.SECONDS.toMillis(50)))
                .as("AvailableNow stops")
                .isTrue();
        assertThat(query.exception().isEmpty())
                .as("the query did not fail: %s", query.exception())
                .isTrue();
        assertThat(StreamCollector.batches(name).size() - batchesBefore)
                .as("AvailableNow reads the three commits since the last run in batches of at most two commits")
                .isGreaterThan(1);

        List<Long> ids = StreamCollector.batches(name).stream()
                .map(StreamCollector.Batch::id)
                .toList();
        assertThat(ids).as("no batch delivered twice").doesNotHaveDuplicates();
        assertThat(load(created).log().latestSnapshot().partitions())
                .as("every region is a partition of the log")
                .hasSize(REGIONS.size());
    }

    private LakestreamTable createTable(String name, boolean primaryKey) {
        TableSpec.Builder spec = TableSpec.builder(SCHEMA)
                .bucketCount(2)
                .partitioning(List.of("region"))
                .partitionedLog(true);
        if (primaryKey) {
            spec.primaryKey("id", "region");
        }
        return testing.warehouse().catalog().createTable(TableIdentifier.of(Namespace.of(NS), name), spec.build());
    }

    private static LakestreamTable load(LakestreamTable created) {
        return SparkTables.load(NS, created.identifier().name());
    }

    private Dataset<Row> changes(String table, String output) {
        return testing.spark()
                .readStream()
                .option("stream.output", output)
                .options(LIMITS)
                .table("ls.%s.`%s$changes`".formatted(NS, table));
    }

    /** id, region, score of a {@code t$changes} row. */
    private static List<Object> values(Row row) {
        return Arrays.asList(row.get(FIRST_COLUMN), row.get(FIRST_COLUMN + 1), row.get(FIRST_COLUMN + 2));
    }

    /** A row {@code [id, region, score]} as the Java writer takes it (score may be NULL). */
    private static Map<String, Object> columns(List<Object> row) {
        Map<String, Object> columns = new HashMap<>();
        columns.put("id", row.get(0));
        columns.put("region", row.get(1));
        columns.put("score", row.get(2));
        return columns;
    }

    /** What the test wrote, built only from its writes. */
    private interface Oracle {
        /** One commit, by the Java writer or a Spark {@code INSERT}, into the first {@code regions} regions. */
        void write(LakestreamTable table, String qualified, Random random, int regions);

        /** The commits from now on are what the stream emits after its {@code full} state. */
        void startRecording();
    }

    /**
     * A primary-key table: the state by key {@code (id, region)} and, once recording starts, each key's net change
     * per commit (insert, update_before + update_after, delete with the removed row).
     */
    private static final class KeyedOracle implements Oracle {
        final Map<List<Object>, List<Object>> state = new HashMap<>();
        final Map<List<Object>, List<List<Object>>> changelog = new HashMap<>();
        private boolean recording;

        @Override
        public void startRecording() {
            recording = true;
        }

        @Override
        public void write(LakestreamTable table, String qualified, Random random, int regions) {
            // key -> row after the commit (null: deleted), in the commit's order
            Map<List<Object>, List<Object>> commit = new LinkedHashMap<>();
            if (random.nextInt(3) == 0) {
                List<String> values = new ArrayList<>();
                for (int i = 1 + random.nextInt(8); i > 0; i--) {
                    List<Object> row = randomRow(random, regions);
                    if (commit.putIfAbsent(row.subList(0, 2), row) == null) {
                        values.add("(%s, '%s', %s)".formatted(row.get(0), row.get(1), row.get(2)));
                    }
                }
                SparkTesting.get().sql("INSERT INTO %s VALUES %s".formatted(qualified, String.join(", ", values)));
                apply(commit);
            } else {
                writeWithJavaWriter(table, random, regions);
            }
        }

        /**
         * One Java-writer commit of random upserts and deletes; returns its changes as the log holds them: type
         * ({@code upsert}, {@code delete}), id, region, score (NULL for a delete).
         */
        List<List<Object>> writeWithJavaWriter(LakestreamTable table, Random random, int regions) {
            Map<List<Object>, List<Object>> commit = new LinkedHashMap<>();
            List<List<Object>> changes = new ArrayList<>();
            try (LakestreamWriter writer =
                    new LakestreamWriter(table, SparkTesting.get().warehouse().allocator())) {
                for (int i = 1 + random.nextInt(20); i > 0; i--) {
                    List<Object> row = randomRow(random, regions);
                    List<Object> key = row.subList(0, 2);
                    if (random.nextInt(4) == 0) {
                        writer.delete(Map.of("id", key.get(0), "region", key.get(1)));
                        commit.remove(key);
                        commit.put(key, null);
                        changes.add(Arrays.asList("delete", key.get(0), key.get(1), null));
                    } else {
                        writer.upsert(columns(row));
                        commit.remove(key);
                        commit.put(key, row);
                        changes.add(Arrays.asList("upsert", row.get(0), row.get(1), row.get(2)));
                    }
                }
                writer.commit();
            }
            apply(commit);
            return changes;
        }

        /** Applies one commit: key to row after it (null: deleted), in the commit's order. */
        private void apply(Map<List<Object>, List<Object>> commit) {
            commit.forEach((key, after) -> {
                List<Object> before = after == null ? state.remove(key) : state.put(key, after);
                if (!recording) {
                    return;
                }
                List<List<Object>> keyLog = changelog.computeIfAbsent(key, ignored -> new ArrayList<>());
                if (before == null && after != null) {
                    keyLog.add(change("insert", after));
                } else if (before != null && after != null) {
                    keyLog.add(change("update_before", before));
                    keyLog.add(change("update_after", after));
                } else if (before != null) {
                    keyLog.add(change("delete", before));
                }
                if (keyLog.isEmpty()) {
                    changelog.remove(key);
                }
            });
        }

        private static List<Object> change(String type, List<Object> row) {
            List<Object> change = new ArrayList<>();
            change.add(type);
            change.addAll(row);
            return change;
        }

        private static List<Object> randomRow(Random random, int regions) {
            Integer score = random.nextInt(5) == 0 ? null : random.nextInt(1000);
            return Arrays.asList((long) random.nextInt(KEYS), REGIONS.get(random.nextInt(regions)), score);
        }
    }

    /** An append-only table: every row written, each with its own id. */
    private static final class AppendOracle implements Oracle {
        final List<List<Object>> rows = new ArrayList<>();
        private long nextId;

        @Override
        public void startRecording() {
            // a full start emits the rows written before it as its state: every row is expected either way
        }

        @Override
        public void write(LakestreamTable table, String qualified, Random random, int regions) {
            List<List<Object>> commit = new ArrayList<>();
            for (int i = 1 + random.nextInt(15); i > 0; i--) {
                Integer score = random.nextInt(5) == 0 ? null : random.nextInt(1000);
                commit.add(Arrays.asList(nextId++, REGIONS.get(random.nextInt(regions)), score));
            }
            if (random.nextInt(3) == 0) {
                SparkTesting.get()
                        .sql("INSERT INTO %s VALUES %s"
                                .formatted(
                                        qualified,
                                        String.join(
                                                ", ",
                                                commit.stream()
                                                        .map(row -> "(%s, '%s', %s)"
                                                                .formatted(row.get(0), row.get(1), row.get(2)))
                                                        .toList())));
            } else {
                try (LakestreamWriter writer = new LakestreamWriter(
                        table, SparkTesting.get().warehouse().allocator())) {
                    for (List<Object> row : commit) {
                        writer.append(columns(row));
                    }
                    writer.commit();
                }
            }
            rows.addAll(commit);
        }
    }
}
