package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.common.base.Throwables;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The streaming sink: {@code writeStream} into a Lakestream table. The input is Spark's file stream
 * over JSON files, one file per micro-batch, each run with {@code Trigger.AvailableNow} so that every
 * batch is deterministic and a query can be stopped and restarted from its checkpoint at a chosen
 * point.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamingSink {
    private static final String NS = "stream_sink";
    private static final long SEED = Long.getLong("lakestream.test.seed", 22);
    private static final StructType EVENTS =
            new StructType().add("id", DataTypes.LongType).add("kind", DataTypes.StringType);
    /** A changelog, columns in another order than the table's (id, name, score). */
    private static final StructType CHANGES = new StructType()
            .add("_change_type", DataTypes.StringType)
            .add("score", DataTypes.IntegerType)
            .add("id", DataTypes.LongType)
            .add("name", DataTypes.StringType);

    private static final String[] NAMES = {"ann", "bob", "cid", "dee"};

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /**
     * The crash this guards against: the log commit of batch N landed, but the query stopped before
     * Spark's checkpoint recorded batch N as committed. Removing the checkpoint's commit record of the
     * last batch puts the checkpoint exactly in that state; the restarted query runs batch N again,
     * with the same query id and epoch, and its commit must not add the rows a second time.
     */
    @Test
    void batchReplayedAfterARestartIsAppliedOnce() throws Exception {
        testing.sql(
                "CREATE TABLE ls.%s.events (id BIGINT, kind STRING) TBLPROPERTIES ('bucket.num'='2')".formatted(NS));
        Path input = Files.createTempDirectory("stream-sink-events");
        Path checkpoint = Files.createTempDirectory("stream-sink-events-checkpoint");
        Function<Dataset<Row>, DataStreamWriter<Row>> sink = rows -> rows.writeStream()
                .option("checkpointLocation", checkpoint.toString())
                .trigger(Trigger.AvailableNow());

        writeJson(input, 0, events(0, 100));
        awaitDone(sink.apply(jsonStream(input, EVENTS)).toTable("ls.%s.events".formatted(NS)));
        writeJson(input, 1, events(100, 200));
        awaitDone(sink.apply(jsonStream(input, EVENTS)).toTable("ls.%s.events".formatted(NS)));
        assertThat(count("events")).isEqualTo(200);
        long version = SparkTables.logVersion(NS, "events");
        long segments = SparkTables.segmentFiles(NS, "events");

        Path lastCommit = checkpoint.resolve("commits").resolve("1");
        assertThat(lastCommit).exists();
        Files.delete(lastCommit);
        Files.deleteIfExists(checkpoint.resolve("commits").resolve(".1.crc"));

        awaitDone(sink.apply(jsonStream(input, EVENTS)).toTable("ls.%s.events".formatted(NS)));
        // Spark ran batch 1 again and recorded it; the log took nothing new and kept no copy of it
        assertThat(lastCommit).exists();
        assertThat(SparkTables.logVersion(NS, "events")).isEqualTo(version);
        SparkTables.assertSegmentsUnchanged(NS, "events", segments);
        assertThat(count("events")).isEqualTo(200);
        assertThat(rows(testing.sql("SELECT count(DISTINCT id), min(id), max(id) FROM ls.%s.events".formatted(NS))))
                .containsExactly(List.of(200L, 0L, 199L));

        // and the query goes on from there
        writeJson(input, 2, events(200, 300));
        awaitDone(sink.apply(jsonStream(input, EVENTS)).toTable("ls.%s.events".formatted(NS)));
        assertThat(count("events")).isEqualTo(300);
        assertThat(SparkTables.logVersion(NS, "events")).isEqualTo(version + 1);
    }

    /**
     * A changelog (insert, update_before, update_after, delete, as a Lakestream stream source emits it)
     * written through the option form in update mode, with tiering between some batches: the table ends
     * equal to the oracle, which applies the same changes to a map.
     */
    @Test
    void changelogAppliesUpsertsAndDeletesLikeTheOracle() throws Exception {
        testing.sql(("CREATE TABLE ls.%s.users (id BIGINT, name STRING, score INT) "
                        + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='3')")
                .formatted(NS));
        Path input = Files.createTempDirectory("stream-sink-users");
        Path checkpoint = Files.createTempDirectory("stream-sink-users-checkpoint");
        Random random = new Random(SEED);
        Map<Long, List<Object>> oracle = new TreeMap<>();
        int deletes = 0;
        int skipped = 0;
        for (int round = 0; round < 6; round++) {
            List<String> lines = new ArrayList<>();
            // one change per key and batch: rows of one batch have no order between Spark's tasks
            for (long id = 0; id < 40; id++) {
                int choice = random.nextInt(5);
                String name = NAMES[random.nextInt(NAMES.length)];
                int score = random.nextInt(1000);
                if (choice == 0) {
                    continue;
                }
                if (choice == 1) {
                    lines.add(change("delete", id, null, null));
                    oracle.remove(id);
                    deletes++;
                } else if (choice == 2 && oracle.containsKey(id)) {
                    // the before image is skipped: its values must never show
                    lines.add(change("update_before", id, "stale", -1));
                    lines.add(change("update_after", id, name, score));
                    oracle.put(id, Arrays.asList(id, name, score));
                    skipped++;
                } else {
                    lines.add(change("insert", id, name, score));
                    oracle.put(id, Arrays.asList(id, name, score));
                }
            }
            writeJson(input, round, lines);
            StreamingQuery query = jsonStream(input, CHANGES)
                    .writeStream()
                    .format("lakestream")
                    .option("catalog", SparkTesting.CATALOG)
                    .option("table", NS + ".users")
                    .option("checkpointLocation", checkpoint.toString())
                    .outputMode("update")
                    .trigger(Trigger.AvailableNow())
                    .start();
            awaitDone(query);
            if (random.nextBoolean()) {
                SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "users"));
            }
            assertThat(rows(testing.sql("SELECT id, name, score FROM ls.%s.users ORDER BY id".formatted(NS))))
                    .as("seed %s (-Dlakestream.test.seed), after batch %s", SEED, round)
                    .containsExactlyElementsOf(oracle.values());
        }
        assertThat(deletes).isPositive();
        assertThat(skipped).isPositive();
    }

    @Test
    void inputNotMatchingTheTableFailsBeforeTheFirstBatch() throws Exception {
        testing.sql(("CREATE TABLE ls.%s.scores (id BIGINT, name STRING, score INT) "
                        + "TBLPROPERTIES ('primary-key'='id')")
                .formatted(NS));
        long version = SparkTables.logVersion(NS, "scores");
        Path input = Files.createTempDirectory("stream-sink-scores");
        writeJson(input, 0, List.of("{\"id\":1,\"score\":\"10\",\"extra\":1}"));
        StructType wrong = new StructType()
                .add("id", DataTypes.LongType)
                .add("score", DataTypes.StringType)
                .add("extra", DataTypes.IntegerType);

        Path checkpoint = Files.createTempDirectory("stream-sink-scores-checkpoint");
        LakestreamException error = queryError(() -> jsonStream(input, wrong)
                .writeStream()
                .option("checkpointLocation", checkpoint.toString())
                .trigger(Trigger.AvailableNow())
                .toTable("ls.%s.scores".formatted(NS)));
        assertThat(error.error()).isEqualTo(LakestreamError.STREAMING_SCHEMA_MISMATCH);
        assertThat(error.getMessage())
                .contains("column name (string) is missing")
                .contains("column score is string, the table has int")
                .contains("column extra is not in the table");
        assertThat(SparkTables.logVersion(NS, "scores")).isEqualTo(version);
        assertThat(SparkTables.segmentFiles(NS, "scores")).isZero();
    }

    /** A delete cannot apply to an append-only table: the batch fails, and nothing of it is committed or left staged. */
    @Test
    void deleteIntoAnAppendOnlyTableFailsTheBatch() throws Exception {
        testing.sql("CREATE TABLE ls.%s.log_lines (id BIGINT, name STRING, score INT)".formatted(NS));
        long version = SparkTables.logVersion(NS, "log_lines");
        Path input = Files.createTempDirectory("stream-sink-log-lines");
        writeJson(input, 0, List.of(change("insert", 1, "ann", 1), change("delete", 2, null, null)));
        Path checkpoint = Files.createTempDirectory("stream-sink-log-lines-checkpoint");

        LakestreamException error = queryError(() -> jsonStream(input, CHANGES)
                .writeStream()
                .option("checkpointLocation", checkpoint.toString())
                .trigger(Trigger.AvailableNow())
                .toTable("ls.%s.log_lines".formatted(NS)));
        assertThat(error.error()).isEqualTo(LakestreamError.INVALID_ROW);
        assertThat(error.getMessage())
                .contains("_change_type 'delete'")
                .contains("append-only table takes insert rows only");
        assertThat(SparkTables.logVersion(NS, "log_lines")).isEqualTo(version);
        assertThat(SparkTables.segmentFiles(NS, "log_lines")).isZero();
    }

    @Test
    void completeOutputModeIsRefused() throws Exception {
        testing.sql(("CREATE TABLE ls.%s.totals (id BIGINT, name STRING, score INT) "
                        + "TBLPROPERTIES ('primary-key'='id')")
                .formatted(NS));
        Path input = Files.createTempDirectory("stream-sink-totals");
        writeJson(input, 0, List.of(change("insert", 1, "ann", 3)));
        Dataset<Row> totals = jsonStream(input, CHANGES)
                .groupBy("id")
                .agg(Map.of("name", "max", "score", "sum"))
                .selectExpr("id", "`max(name)` AS name", "CAST(`sum(score)` AS INT) AS score");

        Path checkpoint = Files.createTempDirectory("stream-sink-totals-checkpoint");
        LakestreamException error = queryError(() -> totals.writeStream()
                .option("checkpointLocation", checkpoint.toString())
                .outputMode("complete")
                .trigger(Trigger.AvailableNow())
                .toTable("ls.%s.totals".formatted(NS)));
        assertThat(error.error()).isEqualTo(LakestreamError.UNSUPPORTED_OPERATION);
        assertThat(error.getMessage()).contains("complete output mode is not supported");
        assertThat(count("totals")).isZero();
    }

    private long count(String table) {
        return testing.spark().table("ls.%s.%s".formatted(NS, table)).count();
    }

    private Dataset<Row> jsonStream(Path directory, StructType schema) {
        return testing.spark()
                .readStream()
                .schema(schema)
                .option("maxFilesPerTrigger", "1")
                .json(directory.toString());
    }

    private static List<String> events(long from, long to) {
        List<String> lines = new ArrayList<>();
        for (long id = from; id < to; id++) {
            lines.add("{\"id\":%s,\"kind\":\"k%s\"}".formatted(id, id % 7));
        }
        return lines;
    }

    private static String change(String type, long id, String name, Integer score) {
        return "{\"_change_type\":\"%s\",\"id\":%s,\"name\":%s,\"score\":%s}"
                .formatted(type, id, name == null ? "null" : "\"" + name + "\"", score);
    }

    private static void writeJson(Path directory, int file, List<String> lines) {
        try {
            // written aside and moved in, so the stream never lists a half-written file
            Path temporary = Files.createTempFile("stream-sink", ".json");
            Files.write(temporary, lines);
            Files.move(temporary, directory.resolve("part-%05d.json".formatted(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitDone(StreamingQuery query) throws StreamingQueryException {
        query.awaitTermination();
        assertThat(query.exception().isEmpty()).isTrue();
    }

    /** The coded error a query failed with (at its start or in its first batch). */
    private static LakestreamException queryError(StreamingQueryExecution execution) {
        try {
            execution.run().awaitTermination();
        } catch (StreamingQueryException | TimeoutException | RuntimeException e) {
            return Throwables.getCausalChain(e).stream()
                    .filter(LakestreamException.class::isInstance)
                    .map(LakestreamException.class::cast)
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no Lakestream error in the cause chain", e));
        }
        return fail("the query did not fail");
    }

    private interface StreamingQueryExecution {
        StreamingQuery run() throws TimeoutException;
    }
}
