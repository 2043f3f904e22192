package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamException;
import io.lakestream.testing.Seeds;
import io.lakestream.tiering.TableTiering;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The stream outputs of a primary-key table's changelog read per key ({@code stream.output}):
 * {@code changelog} (insert, update_before, update_after, delete, with the replaced rows found in the lake
 * and in the log before each batch) and {@code upsert} (the last change per key in each micro-batch),
 * against an oracle built from what the test wrote while tiering and compaction ran at random points;
 * and the changelog streamed through the Lakestream sink into another table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkStreamChangelog {
    private static final String NS = "stream_changelog";
    private static final Trigger FAST = Trigger.ProcessingTime("50 milliseconds");
    // rows: _change_type, _bucket, _offset, _commit_timestamp, id, name, score
    private static final int TYPE = 0;
    private static final int OFFSET = 2;
    private static final int ID = 4;

    private final SparkTesting testing = SparkTesting.get();
    private final ChangelogStreamTables tables = new ChangelogStreamTables(testing, NS);
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

    /**
     * {@code stream.output=changelog}: a {@code full} start (state as inserts) while the lake holds part of
     * the table and lags the log, then Java-writer and Spark commits while the stream runs, with tiering and
     * compaction at random points (so the replaced rows come from older lake snapshots and log tails); the
     * change sequence per key equals the oracle's and the rows applied to an empty table give its state.
     */
    @Test
    void changelogMatchesTheOracleWhileTieringAndCompactionRun() throws Exception {
        long seed = Seeds.seed(2231);
        Random random = new Random(seed);
        tables.createPrimaryKeyTable("images");
        ChangelogOracle oracle = new ChangelogOracle();
        for (int commit = 0; commit < 6; commit++) {
            oracle.commitWithJavaWriter(tables.load("images"), random, 40, 80);
            if (commit == 2) {
                SparkTables.tierAll(testing.tiering(), tables.load("images"));
            }
        }
        String name = "images-" + seed;
        StreamingQuery query = StreamCollector.start(
                tables.changelog("images", Map.of("stream.output", "changelog", "max-rows-per-trigger", "40")),
                name,
                checkpoint(),
                FAST);
        oracle.startRecording();
        try {
            query.processAllAvailable();
            for (int round = 0; round < 4; round++) {
                for (int commit = random.nextInt(3); commit >= 0; commit--) {
                    if (random.nextInt(3) == 0) {
                        oracle.insertWithSpark("ls.%s.images".formatted(NS), random, 1 + random.nextInt(10), 80);
                    } else {
                        oracle.commitWithJavaWriter(tables.load("images"), random, 1 + random.nextInt(30), 80);
                    }
                    switch (random.nextInt(4)) {
                        case 0 -> testing.tiering().tier(tables.load("images"));
                        case 1 -> compaction.tier(tables.load("images"));
                        default -> {}
                    }
                }
                query.processAllAvailable();
            }
        } finally {
            query.stop();
        }

        Map<Long, List<List<Object>>> emittedChangelog = assertChangelog(StreamCollector.rows(name), oracle, seed);
        assertThat(emittedChangelog.values().stream().flatMap(List::stream).map(change -> change.getFirst()))
                .as("seed %s: every kind of change occurred", seed)
                .contains("insert", "update_before", "update_after", "delete");
    }

    /**
     * A {@code stream.output=changelog} stream stopped and restarted on its checkpoint twice, with commits, a
     * tiering pass and a compaction while it is down: the before images of the first batch after each restart
     * come from a lake that moved (tiered, then rewritten) since the stop, and the changelog per key still equals
     * the oracle's, each change once.
     */
    @Test
    void changelogRestartedAcrossTieringAndCompactionContinuesExactly() throws Exception {
        long seed = Seeds.seed(2234);
        Random random = new Random(seed);
        tables.createPrimaryKeyTable("restart");
        ChangelogOracle oracle = new ChangelogOracle();
        oracle.commitWithJavaWriter(tables.load("restart"), random, 40, 60);
        SparkTables.tierAll(testing.tiering(), tables.load("restart"));
        oracle.commitWithJavaWriter(tables.load("restart"), random, 20, 60);
        String name = "restart-" + seed;
        Path checkpoint = checkpoint();
        Dataset<Row> stream = tables.changelog("restart", Map.of("stream.output", "changelog"));
        oracle.startRecording();
        for (int run = 0; run < 3; run++) {
            StreamingQuery query = StreamCollector.start(stream, name, checkpoint, FAST);
            try {
                query.processAllAvailable();
                oracle.commitWithJavaWriter(tables.load("restart"), random, 20, 60);
                query.processAllAvailable();
            } finally {
                query.stop();
            }
            assertThat(query.exception().isEmpty())
                    .as("seed %s: run %s", seed, run)
                    .isTrue();
            if (run < 2) {
                // while the query is down: a change, tiering, another change, compaction
                oracle.commitWithJavaWriter(tables.load("restart"), random, 20, 60);
                SparkTables.tierAll(testing.tiering(), tables.load("restart"));
                oracle.commitWithJavaWriter(tables.load("restart"), random, 20, 60);
                compaction.tier(tables.load("restart"));
            }
        }
        List<Long> ids = StreamCollector.batches(name).stream()
                .map(StreamCollector.Batch::id)
                .toList();
        assertThat(ids).as("seed %s: no batch delivered twice", seed).doesNotHaveDuplicates();
        assertChangelog(StreamCollector.rows(name), oracle, seed);
    }

    /**
     * Checks the rows of a {@code full} changelog stream against the oracle: the state as inserts, then each
     * change consistent with what the consumer holds, the changelog per key and the final state equal to the
     * oracle's. Returns the changelog per key.
     */
    private static Map<Long, List<List<Object>>> assertChangelog(List<Row> rows, ChangelogOracle oracle, long seed) {
        Map<Long, List<Object>> emittedState = new TreeMap<>();
        Map<Long, List<List<Object>>> emittedChangelog = new TreeMap<>();
        Map<Long, List<Object>> applied = new TreeMap<>();
        for (Row row : rows) {
            List<Object> values = values(row);
            long id = (Long) values.get(0);
            String type = row.getString(TYPE);
            if (row.isNullAt(OFFSET)) {
                assertThat(type).as("seed %s: a state row", seed).isEqualTo("insert");
                assertThat(emittedState.put(id, values))
                        .as("seed %s: state row of %s twice", seed, id)
                        .isNull();
                applied.put(id, values);
                continue;
            }
            List<Object> change = new ArrayList<>();
            change.add(type);
            change.addAll(values);
            emittedChangelog.computeIfAbsent(id, ignored -> new ArrayList<>()).add(change);
            switch (type) {
                case "insert" ->
                    assertThat(applied.put(id, values))
                            .as("seed %s: insert of present key %s", seed, id)
                            .isNull();
                case "update_before" ->
                    assertThat(applied.get(id))
                            .as("seed %s: update_before of %s is the current row", seed, id)
                            .isEqualTo(values);
                case "update_after" ->
                    assertThat(applied.put(id, values))
                            .as("seed %s: update_after of absent %s", seed, id)
                            .isNotNull();
                case "delete" ->
                    assertThat(applied.remove(id))
                            .as("seed %s: delete of %s carries the removed row", seed, id)
                            .isEqualTo(values);
                default -> throw new AssertionError("seed " + seed + ": unexpected change type in " + row);
            }
        }
        assertThat(emittedState)
                .as("seed %s: the state the stream started with", seed)
                .isEqualTo(oracle.stateAtStart());
        assertThat(emittedChangelog).as("seed %s: the changelog per key", seed).isEqualTo(oracle.changelog());
        assertThat(applied)
                .as("seed %s: the stream applied to an empty table", seed)
                .isEqualTo(oracle.state());
        return emittedChangelog;
    }

    /**
     * {@code stream.output=upsert} from a version, with {@code Trigger.AvailableNow} and {@code max-commits-per-trigger=2}:
     * each batch of changes holds exactly the last change of each key of its two commits (deletes as
     * {@code delete} rows), each key once.
     */
    @Test
    void upsertOutputHasTheLastChangePerKeyOfEachBatch() throws Exception {
        long seed = Seeds.seed(2232);
        Random random = new Random(seed);
        tables.createPrimaryKeyTable("upserts");
        ChangelogOracle oracle = new ChangelogOracle();
        oracle.commitWithJavaWriter(tables.load("upserts"), random, 30, 40);
        SparkTables.tierAll(testing.tiering(), tables.load("upserts"));
        oracle.startRecording();
        long startVersion = SparkTables.logVersion(NS, "upserts");
        for (int commit = 0; commit < 6; commit++) {
            oracle.commitWithJavaWriter(tables.load("upserts"), random, 25, 40);
            if (random.nextBoolean()) {
                testing.tiering().tier(tables.load("upserts"));
            }
        }
        String name = "upserts-" + seed;
        StreamingQuery query = StreamCollector.start(
                tables.changelog(
                        "upserts",
                        Map.of(
                                "stream.output",
                                "upsert",
                                "max-commits-per-trigger",
                                "2",
                                "startup.mode",
                                "version",
                                "startup.version",
                                Long.toString(startVersion))),
                name,
                checkpoint(),
                Trigger.AvailableNow());
        assertThat(query.awaitTermination(120_000)).isTrue();

        List<Map<Long, List<Object>>> changeBatches = new ArrayList<>();
        for (StreamCollector.Batch batch : StreamCollector.batches(name)) {
            Map<Long, List<Object>> rows = new TreeMap<>();
            for (Row row : batch.rows()) {
                List<Object> change = new ArrayList<>();
                change.add(row.getString(TYPE));
                change.addAll(values(row));
                assertThat(rows.put(row.getLong(ID), change))
                        .as("seed %s: key %s twice in batch %s", seed, row.getLong(ID), batch.id())
                        .isNull();
            }
            if (!rows.isEmpty()) {
                changeBatches.add(rows);
            }
        }
        List<List<ChangelogOracle.Change>> commits = oracle.recordedCommits();
        List<Map<Long, List<Object>>> expected = new ArrayList<>();
        for (int first = 0; first < commits.size(); first += 2) {
            expected.add(ChangelogOracle.lastPerKey(commits.subList(first, Math.min(commits.size(), first + 2))));
        }
        assertThat(changeBatches)
                .as("seed %s: the last change per key of each two commits", seed)
                .isEqualTo(expected);
    }

    /**
     * The changelog streamed into another primary-key table through the Lakestream sink: a {@code full} start
     * (the state as inserts) and then one batch per commit ({@code max-commits-per-trigger=1}) of updates and
     * deletes of those rows (update_before skipped, update_after upserted, delete by key), with tiering between
     * the commits: the derived table equals the source, and the oracle.
     */
    @Test
    void changelogIntoTheSinkBuildsTheSameTable() throws Exception {
        long seed = Seeds.seed(2233);
        Random random = new Random(seed);
        tables.createPrimaryKeyTable("source");
        tables.createPrimaryKeyTable("derived");
        ChangelogOracle oracle = new ChangelogOracle();
        oracle.commitWithJavaWriter(tables.load("source"), random, 40, 40);
        StreamingQuery query = tables.changelog(
                        "source", Map.of("stream.output", "changelog", "max-commits-per-trigger", "1"))
                .writeStream()
                .option("checkpointLocation", checkpoint().toString())
                .trigger(FAST)
                .toTable("ls.%s.derived".formatted(NS));
        try {
            query.processAllAvailable();
            for (int commit = 0; commit < 3; commit++) {
                oracle.commitWithJavaWriter(tables.load("source"), random, 20, 40);
                if (commit % 2 == 0) {
                    testing.tiering().tier(tables.load("source"));
                }
            }
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        assertThat(query.exception().isEmpty()).isTrue();
        assertThat(rows("derived")).as("seed %s: the derived table", seed).isEqualTo(oracle.state());
        assertThat(rows("derived")).as("seed %s: derived equals source", seed).isEqualTo(rows("source"));
    }

    @Test
    void outputOptionErrors() {
        testing.sql(
                "CREATE TABLE ls.%s.events (id BIGINT, name STRING) TBLPROPERTIES ('bucket.num'='2')".formatted(NS));
        assertThatThrownBy(() -> StreamOutput.resolve("db.t", true, true, Map.of("stream.output", "images")))
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining("must be one of log (the rows of t$changes), changelog");
        assertThatThrownBy(() -> StreamOutput.resolve("db.events", true, false, Map.of("stream.output", "upsert")))
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining("needs a primary key, and db.events has none");
        assertThatThrownBy(() -> StreamOutput.resolve("db.events", false, false, Map.of("stream.output", "log")))
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining("applies to a changelog stream (`db.events$changes`");
        assertThat(StreamOutput.resolve("db.t", true, true, Map.of())).isEqualTo(StreamOutput.LOG);
        assertThat(StreamOutput.resolve("db.events", true, false, Map.of("stream.output", "changelog")))
                .isEqualTo(StreamOutput.LOG);
    }

    // --- helpers

    private Map<Long, List<Object>> rows(String name) {
        Map<Long, List<Object>> rows = new TreeMap<>();
        for (Row row : testing.spark().table("ls.%s.%s".formatted(NS, name)).collectAsList()) {
            rows.put(
                    row.getLong(0),
                    Arrays.asList(
                            row.getLong(0),
                            row.isNullAt(1) ? null : row.getString(1),
                            row.isNullAt(2) ? null : row.getInt(2)));
        }
        return rows;
    }

    private static List<Object> values(Row row) {
        return Arrays.asList(
                row.getLong(ID),
                row.isNullAt(ID + 1) ? null : row.getString(ID + 1),
                row.isNullAt(ID + 2) ? null : row.getInt(ID + 2));
    }

    private static Path checkpoint() throws IOException {
        return Files.createTempDirectory("lakestream-changelog-checkpoint");
    }
}
