package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.SupportsAdmissionControl;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Structured Streaming reads of Lakestream tables ({@code spark.readStream}): the changelog {@code
 * t$changes} of a primary-key table and the rows of an append-only table, checked against an oracle of
 * what the test wrote with the Java writer while the stream ran and tiering and compaction ran at random
 * points. Seeds default to fixed values; {@code -Dlakestream.test.seed=N} overrides them, and every
 * assertion names the seed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamSource {
    private static final String NS = "stream";
    private static final Trigger FAST = Trigger.ProcessingTime("50 milliseconds");
    // changelog rows: _change_type, _bucket, _offset, _commit_timestamp, id, name, score
    private static final int TYPE = 0;
    private static final int BUCKET = 1;
    private static final int OFFSET = 2;
    private static final int ID = 4;
    private static final String[] NAMES = {"ann", "bob", "cid", null};

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService compactionThreads = Executors.newFixedThreadPool(2);
    private final TableTiering compaction = SparkTables.tiering(compactionThreads, 1, 2);

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @AfterAll
    void stopThreads() {
        compactionThreads.shutdownNow();
    }

    private static long seed(long defaultSeed) {
        return Long.getLong("lakestream.test.seed", defaultSeed);
    }

    /**
     * The seam: a stream started in mode {@code full} while the lake lags the log by thousands of changes
     * emits the table's state once, then every later change exactly once.
     */
    @Test
    void fullStartWhileTheLakeLagsSeesEveryChangeOnce() throws Exception {
        long seed = seed(2201);
        Random random = new Random(seed);
        createPrimaryKeyTable("seam");
        Oracle oracle = new Oracle();
        for (int commit = 0; commit < 20; commit++) {
            oracle.commit(table("seam"), random, 200, 400);
            if (commit == 4) {
                SparkTables.tierAll(testing.tiering(), table("seam"));
            }
        }
        OffsetMap lakeOffsets = LakePosition.current(table("seam").lake()).offsets();
        OffsetMap logEnds = table("seam").log().latestSnapshot().endOffsets();
        long lag = 0;
        for (int bucket = 0; bucket < 4; bucket++) {
            lag += logEnds.offset(bucket) - lakeOffsets.offset(bucket);
        }
        assertThat(lag).as("seed %s: the lake lags the log", seed).isGreaterThan(2000);

        List<Row> rows = streamWhile("seam", "seam-" + seed, Map.of(), oracle, 3, round -> {
            oracle.commit(table("seam"), random, 150, 400);
            oracle.commit(table("seam"), random, 150, 400);
        });
        oracle.assertChangelog(rows, logEnds, table("seam"), "seed " + seed);
    }

    /**
     * Writers (the Java writer and Spark INSERTs) commit while the stream runs; tiering and compaction run at random points; the
     * accumulated changelog equals the oracle's change sequence per key, and applied to an empty map its
     * final state; no batch of changes passes {@code max-rows-per-trigger}.
     */
    @Test
    void changelogMatchesTheOracleWhileTieringAndCompactionRun() throws Exception {
        long seed = seed(2202);
        Random random = new Random(seed);
        createPrimaryKeyTable("oracle");
        Oracle oracle = new Oracle();
        oracle.commit(table("oracle"), random, 50, 60);
        OffsetMap startEnds = table("oracle").log().latestSnapshot().endOffsets();
        // every commit has at most 30 changes: a batch of changes never needs more than the limit
        String name = "oracle-" + seed;
        List<Row> rows = streamWhile("oracle", name, Map.of("max-rows-per-trigger", "40"), oracle, 8, round -> {
            for (int commit = random.nextInt(4); commit >= 0; commit--) {
                if (random.nextInt(3) == 0) {
                    oracle.insertWithSpark("oracle", random, 1 + random.nextInt(10), 60);
                } else {
                    oracle.commit(table("oracle"), random, 1 + random.nextInt(30), 60);
                }
                switch (random.nextInt(5)) {
                    case 0 -> testing.tiering().tier(table("oracle"));
                    case 1 -> compaction.tier(table("oracle"));
                    default -> {}
                }
            }
        });
        oracle.assertChangelog(rows, startEnds, table("oracle"), "seed " + seed);
        for (StreamCollector.Batch batch : StreamCollector.batches(name)) {
            if (batch.rows().stream().noneMatch(row -> row.isNullAt(OFFSET))) {
                assertThat(batch.rows().size())
                        .as("seed %s: rows of batch %s (max-rows-per-trigger 40)", seed, batch.id())
                        .isLessThanOrEqualTo(40);
            }
        }
    }

    /**
     * The seam under a concurrent commit: a {@code full} stream pins its start version in its first
     * offset; a commit that lands before the first batch is planned is not in the state batch (which
     * reads the pinned version) but in the next batch, exactly once.
     */
    @Test
    void stateBatchReadsThePinnedVersionWhenACommitFollows() throws Exception {
        createPrimaryKeyTable("pin");
        upsertCommit("pin", 0, 20);
        long pinned = SparkTables.logVersion(NS, "pin");
        MicroBatchStream stream = testing.loadTable(NS, "pin$changes")
                .newScanBuilder(new CaseInsensitiveStringMap(Map.of()))
                .build()
                .toMicroBatchStream(checkpoint().toString());
        Offset start = stream.initialOffset();
        upsertCommit("pin", 15, 10); // a new version of keys 15..19 and new keys 20..24

        Offset stateEnd = ((SupportsAdmissionControl) stream).latestOffset(start, ReadLimit.allAvailable());
        assertThat(stateEnd.json()).contains("\"logVersion\":" + pinned);
        List<InternalRow> state = read(stream, start, stateEnd);
        assertThat(state).allSatisfy(row -> assertThat(row.isNullAt(OFFSET)).isTrue());
        assertThat(state.stream().map(row -> row.getLong(ID)).sorted().toList()).isEqualTo(range(0, 20));

        Offset changesEnd = ((SupportsAdmissionControl) stream).latestOffset(stateEnd, ReadLimit.allAvailable());
        List<InternalRow> changes = read(stream, stateEnd, changesEnd);
        assertThat(changes.stream().map(row -> row.getLong(ID)).sorted().toList())
                .isEqualTo(range(15, 25));
        assertThat(((SupportsAdmissionControl) stream).latestOffset(changesEnd, ReadLimit.allAvailable()))
                .isEqualTo(changesEnd);
        stream.stop();
    }

    /** Reads a batch of a stream on this JVM, as the executors would, copying the rows. */
    private static List<InternalRow> read(MicroBatchStream stream, Offset start, Offset end) throws IOException {
        List<InternalRow> rows = new ArrayList<>();
        PartitionReaderFactory factory = stream.createReaderFactory();
        for (InputPartition partition : stream.planInputPartitions(start, end)) {
            try (PartitionReader<InternalRow> reader = factory.createReader(partition)) {
                while (reader.next()) {
                    rows.add(reader.get().copy());
                }
            }
        }
        return rows;
    }

    /** A stopped query restarted on its checkpoint continues exactly where it stopped, across tiering and compaction. */
    @Test
    void restartContinuesWhereItStoppedAcrossTieringAndCompaction() throws Exception {
        long seed = seed(2203);
        Random random = new Random(seed);
        createPrimaryKeyTable("restart");
        Oracle oracle = new Oracle();
        oracle.commit(table("restart"), random, 100, 80);
        OffsetMap startEnds = table("restart").log().latestSnapshot().endOffsets();
        String name = "restart-" + seed;
        Path checkpoint = checkpoint();
        oracle.startRecording();
        for (int run = 0; run < 3; run++) {
            StreamingQuery query = StreamCollector.start(changelog("restart", Map.of()), name, checkpoint, FAST);
            try {
                query.processAllAvailable();
                oracle.commit(table("restart"), random, 40, 80);
                query.processAllAvailable();
            } finally {
                query.stop();
            }
            // while the query is down: more changes, tiering and compaction
            oracle.commit(table("restart"), random, 40, 80);
            SparkTables.tierAll(testing.tiering(), table("restart"));
            oracle.commit(table("restart"), random, 40, 80);
            compaction.tier(table("restart"));
        }
        StreamingQuery last = StreamCollector.start(changelog("restart", Map.of()), name, checkpoint, FAST);
        try {
            last.processAllAvailable();
        } finally {
            last.stop();
        }
        List<Long> ids = StreamCollector.batches(name).stream()
                .map(StreamCollector.Batch::id)
                .toList();
        assertThat(new HashSet<>(ids))
                .as("seed %s: no batch delivered twice", seed)
                .hasSameSizeAs(ids);
        oracle.assertChangelog(StreamCollector.rows(name), startEnds, table("restart"), "seed " + seed);
    }

    /** Retention removed changes the stopped stream had not read: a coded error on restart, never a gap. */
    @Test
    void rangeRemovedByRetentionWhileStoppedIsAnError() throws Exception {
        createPrimaryKeyTable("retention");
        Random random = new Random(seed(2204));
        Oracle oracle = new Oracle();
        oracle.commit(table("retention"), random, 20, 40);
        String name = "retention";
        Path checkpoint = checkpoint();
        StreamingQuery query =
                StreamCollector.start(changelog("retention", Map.of("startup.mode", "latest")), name, checkpoint, FAST);
        try {
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        oracle.commit(table("retention"), random, 20, 40);
        LakestreamTable table = table("retention");
        SparkTables.tierAll(testing.tiering(), table);
        // what the tiering service's retention does once the tiered segments are old enough
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();
        assertQueryFails(
                changelog("retention", Map.of("startup.mode", "latest")),
                name,
                checkpoint,
                "[LOG_RANGE_REMOVED]",
                "startup.mode 'full'");
        // a new stream from the start cannot have every change either: the same advice, before any batch
        assertQueryFails(
                changelog("retention", Map.of("startup.mode", "earliest")),
                "retention-earliest",
                checkpoint(),
                "[LOG_RANGE_REMOVED]",
                "startup.mode 'full'");
    }

    /** A checkpoint of a dropped table is not applied to a new table of the same name: its offsets mean other changes. */
    @Test
    void checkpointOfADroppedTableIsRefusedForItsSuccessor() throws Exception {
        createPrimaryKeyTable("again");
        upsertCommit("again", 0, 10);
        Path checkpoint = checkpoint();
        StreamingQuery query = StreamCollector.start(changelog("again", Map.of()), "again", checkpoint, FAST);
        try {
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        testing.sql("DROP TABLE ls.%s.again".formatted(NS));
        createPrimaryKeyTable("again");
        upsertCommit("again", 100, 30);
        assertQueryFails(
                changelog("again", Map.of()), "again", checkpoint, "[TABLE_DROPPED]", "new checkpoint location");
        assertThat(ids(StreamCollector.rows("again"))).isEqualTo(range(0, 10));
    }

    /**
     * Trigger.AvailableNow reads exactly what the log held when the query started, in batches of at most
     * {@code max-commits-per-trigger} commits, then stops; a commit made while it runs is left for the next run.
     */
    @Test
    void availableNowStopsAtTheLogEndOfItsStartInBoundedBatches() throws Exception {
        createPrimaryKeyTable("now");
        for (int commit = 0; commit < 10; commit++) {
            upsertCommit("now", commit * 10, 10);
        }
        String name = "now";
        Path checkpoint = checkpoint();
        StreamCollector.onBatch(name, (batch, id) -> {
            if (id == 0) {
                upsertCommit("now", 1000, 5);
            }
        });
        Map<String, String> options = Map.of("startup.mode", "earliest", "max-commits-per-trigger", "3");
        StreamingQuery query =
                StreamCollector.start(changelog("now", options), name, checkpoint, Trigger.AvailableNow());
        assertThat(query.awaitTermination(120_000)).isTrue();
        List<StreamCollector.Batch> batches = StreamCollector.batches(name);
        assertThat(batches.stream().map(batch -> batch.rows().size())).containsExactly(30, 30, 30, 10);
        assertThat(ids(StreamCollector.rows(name))).isEqualTo(range(0, 100));
        // the commit made during the run is what the stream has left to read
        assertThat(query.lastProgress().sources()[0].metrics()).containsEntry("recordsBehindLatest", "5");

        StreamCollector.onBatch(name, (batch, id) -> {});
        StreamingQuery next =
                StreamCollector.start(changelog("now", options), name, checkpoint, Trigger.AvailableNow());
        assertThat(next.awaitTermination(120_000)).isTrue();
        assertThat(StreamCollector.batches(name)).hasSize(5);
        assertThat(ids(StreamCollector.batches(name).get(4).rows())).isEqualTo(range(1000, 1005));
    }

    /** max-rows-per-trigger: whole commits, as many as fit; a commit larger than the limit is a batch of its own. */
    @Test
    void maxRowsPerTriggerIsHonoured() throws Exception {
        createPrimaryKeyTable("rows");
        int[] sizes = {10, 10, 10, 40, 5, 5, 5, 5, 30};
        int next = 0;
        for (int size : sizes) {
            upsertCommit("rows", next, size);
            next += size;
        }
        String name = "rows";
        StreamingQuery query = StreamCollector.start(
                changelog("rows", Map.of("startup.mode", "earliest", "max-rows-per-trigger", "25")),
                name,
                checkpoint(),
                Trigger.AvailableNow());
        assertThat(query.awaitTermination(120_000)).isTrue();
        assertThat(StreamCollector.batches(name).stream()
                        .map(batch -> batch.rows().size()))
                .containsExactly(20, 10, 40, 20, 30);
        assertThat(ids(StreamCollector.rows(name))).isEqualTo(range(0, next));
    }

    /** An append-only table streams its rows (no change columns): its state first, then every appended row once. */
    @Test
    void appendOnlyTableStreamsItsRowsOnce() throws Exception {
        testing.sql(
                "CREATE TABLE ls.%s.events (id BIGINT, name STRING) TBLPROPERTIES ('bucket.num'='3')".formatted(NS));
        long next = 0;
        for (int commit = 0; commit < 6; commit++) {
            next = appendCommit(next, 50);
            if (commit == 2) {
                SparkTables.tierAll(testing.tiering(), table("events"));
            }
        }
        String name = "events";
        StreamingQuery query = StreamCollector.start(
                testing.spark().readStream().table("ls.%s.events".formatted(NS)), name, checkpoint(), FAST);
        try {
            query.processAllAvailable();
            for (int round = 0; round < 3; round++) {
                next = appendCommit(next, 30);
                SparkTables.tierAll(testing.tiering(), table("events"));
                next = appendCommit(next, 30);
                query.processAllAvailable();
            }
        } finally {
            query.stop();
        }
        List<Row> rows = StreamCollector.rows(name);
        assertThat(rows).allSatisfy(row -> assertThat(row.size()).isEqualTo(2));
        List<Long> ids = rows.stream().map(row -> row.getLong(0)).sorted().toList();
        assertThat(ids).isEqualTo(range(0, next));
    }

    /** format("lakestream") with the batch read options, and a primary-key table's rows refused as a stream. */
    @Test
    void formatLakestreamAndClearErrors() throws Exception {
        createPrimaryKeyTable("fmt");
        upsertCommit("fmt", 0, 10);
        Dataset<Row> stream = testing.spark()
                .readStream()
                .format("lakestream")
                .option("catalog", "ls")
                .option("table", NS + ".fmt")
                .option("read-mode", "changes")
                .option("startup.mode", "latest")
                .load();
        String name = "fmt";
        StreamingQuery query = StreamCollector.start(stream, name, checkpoint(), FAST);
        try {
            query.processAllAvailable();
            upsertCommit("fmt", 100, 3);
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        assertThat(ids(StreamCollector.rows(name))).isEqualTo(range(100, 103));
        assertThat(StreamCollector.rows(name))
                .allSatisfy(row -> assertThat(row.getString(TYPE)).isEqualTo("upsert"));

        assertQueryFails(
                testing.spark().readStream().table("ls.%s.fmt".formatted(NS)),
                "fmt-rows",
                checkpoint(),
                "[INVALID_READ_OPTIONS]",
                "fmt$changes");
        assertQueryFails(
                changelog("fmt", Map.of("startup.mode", "sideways")),
                "fmt-bad",
                checkpoint(),
                "[INVALID_READ_OPTIONS] Stream option 'startup.mode' must be one of");
    }

    /** startup.mode version and timestamp: the changes committed after that version, or after that time. */
    @Test
    void startAfterAVersionOrATime() throws Exception {
        createPrimaryKeyTable("from");
        upsertCommit("from", 0, 5);
        long first = SparkTables.logVersion(NS, "from");
        upsertCommit("from", 100, 5);
        long second = SparkTables.logVersion(NS, "from");
        upsertCommit("from", 200, 5);
        long secondCommitted = table("from").log().snapshot(second).committedAtMillis();

        StreamingQuery afterVersion = StreamCollector.start(
                changelog("from", Map.of("startup.mode", "version", "startup.version", Long.toString(first))),
                "from-version",
                checkpoint(),
                Trigger.AvailableNow());
        assertThat(afterVersion.awaitTermination(120_000)).isTrue();
        assertThat(ids(StreamCollector.rows("from-version"))).isEqualTo(concat(range(100, 105), range(200, 205)));

        StreamingQuery afterTime = StreamCollector.start(
                changelog(
                        "from",
                        Map.of("startup.mode", "timestamp", "startup.timestamp", Long.toString(secondCommitted))),
                "from-time",
                checkpoint(),
                Trigger.AvailableNow());
        assertThat(afterTime.awaitTermination(120_000)).isTrue();
        assertThat(ids(StreamCollector.rows("from-time"))).isEqualTo(range(200, 205));
    }

    // --- helpers

    private void createPrimaryKeyTable(String name) {
        testing.sql(
                "CREATE TABLE ls.%s.%s (id BIGINT, name STRING, score INT) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')"
                        .formatted(NS, name));
    }

    /**
     * Starts a {@code full} changelog stream on a new checkpoint and records the oracle from then on; runs
     * {@code round} {@code rounds} times (while the stream runs), each followed by processAllAvailable.
     *
     * @return every row the stream delivered
     */
    private List<Row> streamWhile(
            String table, String name, Map<String, String> options, Oracle oracle, int rounds, IntConsumer round)
            throws StreamingQueryException, TimeoutException {
        StreamingQuery query = StreamCollector.start(changelog(table, options), name, checkpoint(), FAST);
        oracle.startRecording();
        try {
            query.processAllAvailable();
            for (int i = 0; i < rounds; i++) {
                round.accept(i);
                query.processAllAvailable();
            }
        } finally {
            query.stop();
        }
        return StreamCollector.rows(name);
    }

    /** Starts the stream and asserts that its query fails with every one of {@code expected} in the failure. */
    private static void assertQueryFails(Dataset<Row> stream, String name, Path checkpoint, String... expected)
            throws TimeoutException {
        StreamCollector.assertQueryFails(stream, name, checkpoint, FAST, expected);
    }

    private Dataset<Row> changelog(String name, Map<String, String> options) {
        return testing.spark().readStream().options(options).table("ls.%s.`%s$changes`".formatted(NS, name));
    }

    private static LakestreamTable table(String name) {
        return SparkTables.load(NS, name);
    }

    private static Path checkpoint() {
        try {
            return Files.createTempDirectory("lakestream-stream-checkpoint");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void upsertCommit(String name, long firstId, int rows) {
        try (LakestreamWriter writer =
                new LakestreamWriter(table(name), testing.warehouse().allocator())) {
            for (long id = firstId; id < firstId + rows; id++) {
                writer.upsert(Map.of("id", id, "name", "n" + id, "score", (int) id));
            }
            writer.commit();
        }
    }

    private long appendCommit(long firstId, int rows) {
        try (LakestreamWriter writer =
                new LakestreamWriter(table("events"), testing.warehouse().allocator())) {
            for (long id = firstId; id < firstId + rows; id++) {
                writer.append(Map.of("id", id, "name", "e" + id));
            }
            writer.commit();
        }
        return firstId + rows;
    }

    private static List<Long> ids(List<Row> rows) {
        return rows.stream().map(row -> row.getLong(ID)).sorted().toList();
    }

    private static List<Long> concat(List<Long> first, List<Long> second) {
        List<Long> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    private static List<Long> range(long from, long to) {
        List<Long> ids = new ArrayList<>();
        for (long id = from; id < to; id++) {
            ids.add(id);
        }
        return ids;
    }

    /**
     * What the test wrote: the table's state, and once recording starts (when the stream starts), every
     * change per key in commit order.
     */
    private final class Oracle {
        private final Map<Long, List<Object>> state = new TreeMap<>();
        private Map<Long, List<Object>> stateAtStart;
        private final Map<Long, List<List<Object>>> changes = new TreeMap<>();
        private boolean recording;

        void startRecording() {
            stateAtStart = new TreeMap<>(state);
            recording = true;
        }

        /** One commit of random upserts and deletes of keys below {@code keys}. */
        void commit(LakestreamTable table, Random random, int count, int keys) {
            try (LakestreamWriter writer =
                    new LakestreamWriter(table, testing.warehouse().allocator())) {
                for (int i = 0; i < count; i++) {
                    long id = random.nextInt(keys);
                    List<Object> change;
                    if (random.nextInt(4) == 0) {
                        writer.delete(Map.of("id", id));
                        state.remove(id);
                        change = Arrays.asList("delete", id, null, null);
                    } else {
                        String name = NAMES[random.nextInt(NAMES.length)];
                        Integer score = random.nextInt(5) == 0 ? null : random.nextInt(1000);
                        Map<String, Object> row = new HashMap<>();
                        row.put("id", id);
                        row.put("name", name);
                        row.put("score", score);
                        writer.upsert(row);
                        state.put(id, Arrays.asList(id, name, score));
                        change = Arrays.asList("upsert", id, name, score);
                    }
                    if (recording) {
                        changes.computeIfAbsent(id, ignored -> new ArrayList<>())
                                .add(change);
                    }
                }
                writer.commit();
            }
        }

        /** One Spark INSERT (one log commit of upserts) of {@code count} distinct random keys below {@code keys}. */
        void insertWithSpark(String table, Random random, int count, int keys) {
            Set<Long> ids = new HashSet<>();
            while (ids.size() < count) {
                ids.add((long) random.nextInt(keys));
            }
            List<String> values = new ArrayList<>();
            for (long id : ids) {
                String name = NAMES[random.nextInt(NAMES.length)];
                Integer score = random.nextInt(5) == 0 ? null : random.nextInt(1000);
                values.add("(%s, %s, %s)".formatted(id, name == null ? "NULL" : "'" + name + "'", score));
                state.put(id, Arrays.asList(id, name, score));
                if (recording) {
                    changes.computeIfAbsent(id, ignored -> new ArrayList<>())
                            .add(Arrays.asList("upsert", id, name, score));
                }
            }
            testing.sql("INSERT INTO ls.%s.%s VALUES %s".formatted(NS, table, String.join(", ", values)));
        }

        /**
         * The stream's rows: first the state at the start (rows without an offset), then the changes after
         * it, each log offset once and contiguous from the log's ends at the start to its ends now.
         */
        void assertChangelog(List<Row> rows, OffsetMap startEnds, LakestreamTable table, String seed) {
            Map<Long, List<Object>> emittedState = new TreeMap<>();
            List<Row> changeRows = new ArrayList<>();
            boolean changesBegan = false;
            for (Row row : rows) {
                if (row.isNullAt(OFFSET)) {
                    assertThat(changesBegan)
                            .as("%s: state rows come before every change", seed)
                            .isFalse();
                    assertThat(row.getString(TYPE)).as(seed).isEqualTo("upsert");
                    List<Object> values = values(row);
                    assertThat(emittedState.put((Long) values.get(0), values))
                            .as("%s: state row of key %s emitted twice", seed, values.get(0))
                            .isNull();
                } else {
                    changesBegan = true;
                    changeRows.add(row);
                }
            }
            assertThat(emittedState)
                    .as("%s: the state the stream started with", seed)
                    .isEqualTo(stateAtStart);

            changeRows.sort(Comparator.<Row>comparingInt(row -> row.getInt(BUCKET))
                    .thenComparingLong(row -> row.getLong(OFFSET)));
            OffsetMap endsNow = table.log().latestSnapshot().endOffsets();
            Map<Integer, List<Long>> offsets = new TreeMap<>();
            for (Row row : changeRows) {
                offsets.computeIfAbsent(row.getInt(BUCKET), ignored -> new ArrayList<>())
                        .add(row.getLong(OFFSET));
            }
            for (int bucket = 0; bucket < table.definition().bucketCount(); bucket++) {
                assertThat(offsets.getOrDefault(bucket, List.of()))
                        .as("%s: offsets of bucket %s, each once, from the start's end to the log's end", seed, bucket)
                        .isEqualTo(range(startEnds.offset(bucket), endsNow.offset(bucket)));
            }

            Map<Long, List<List<Object>>> emittedChanges = new TreeMap<>();
            Map<Long, List<Object>> applied = new TreeMap<>(emittedState);
            for (Row row : changeRows) {
                List<Object> values = values(row);
                long id = (Long) values.get(0);
                List<Object> change = new ArrayList<>();
                change.add(row.getString(TYPE));
                change.addAll(values);
                emittedChanges.computeIfAbsent(id, ignored -> new ArrayList<>()).add(change);
                switch (row.getString(TYPE)) {
                    case "upsert" -> applied.put(id, values);
                    case "delete" -> applied.remove(id);
                    default -> throw new AssertionError(seed + ": unexpected change type in " + row);
                }
            }
            assertThat(emittedChanges)
                    .as("%s: the change sequence per key", seed)
                    .isEqualTo(changes);
            assertThat(applied).as("%s: state plus changes, applied", seed).isEqualTo(state);
        }

        private static List<Object> values(Row row) {
            return Arrays.asList(
                    row.getLong(ID),
                    row.isNullAt(ID + 1) ? null : row.getString(ID + 1),
                    row.isNullAt(ID + 2) ? null : row.getInt(ID + 2));
        }
    }
}
