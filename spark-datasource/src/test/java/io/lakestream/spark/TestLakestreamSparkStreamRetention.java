package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.JavaSparkContext;
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
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stream and log retention, in every output ({@code stream.output} log, changelog, upsert): a stream
 * restarted on its checkpoint after retention removed changes it still needs fails with {@code
 * LOG_RANGE_REMOVED} and the advice to start again from {@code full}, before any batch, never with a gap or
 * with advice meant for a batch read. What a stream needs: its unread log range (every output); the table's
 * state where the range starts (the changelog's before images, and the state batch of a {@code full} start).
 * A stream that still has everything it needs goes on exactly where it stopped. Oracles come from what the
 * test wrote ({@link ChangelogOracle}); seeds are fixed, {@code -Dlakestream.test.seed=N} overrides them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkStreamRetention {
    private static final String NS = "stream_retention";
    private static final Trigger FAST = Trigger.ProcessingTime("50 milliseconds");
    private static final String FULL_ADVICE = "startup.mode 'full'";
    // rows: _change_type, _bucket, _offset, _commit_timestamp, id, name, score
    private static final int TYPE = 0;
    private static final int BUCKET = 1;
    private static final int OFFSET = 2;
    private static final int ID = 4;

    private final SparkTesting testing = SparkTesting.get();
    private final ChangelogStreamTables tables = new ChangelogStreamTables(testing, NS);

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /**
     * Retention removed the start of the stream's unread range while it was stopped (tiered, then removed):
     * in every output the restarted query fails with the coded error and the advice, and delivers nothing.
     */
    @ParameterizedTest
    @ValueSource(strings = {"log", "changelog", "upsert"})
    void unreadRangeRemovedWhileStoppedFailsInEveryOutput(String output) throws Exception {
        long seed = Seeds.seed(2241);
        Random random = new Random(seed);
        String name = "unread_" + output;
        tables.createPrimaryKeyTable(name);
        ChangelogOracle oracle = new ChangelogOracle();
        oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        Path checkpoint = checkpoint();
        Dataset<Row> stream = tables.changelog(name, Map.of("stream.output", output));
        runToEnd(stream, name, checkpoint);
        int delivered = StreamCollector.batches(name).size();

        oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        tierAndRemoveTieredLog(name);

        assertQueryFails(stream, name, checkpoint, "[LOG_RANGE_REMOVED]", "which it has not read yet", FULL_ADVICE);
        assertThat(StreamCollector.batches(name))
                .as("seed %s: no batch after the range was removed", seed)
                .hasSize(delivered);
    }

    /**
     * Retention removed the log exactly up to where the stopped stream stands, after tiering moved the lake past
     * it: the unread range is intact, so {@code log} and {@code upsert} go on with exactly the changes after the
     * stop; {@code changelog} needs the rows its keys held at the stop (the before images), which neither the
     * lake (past it) nor the log (removed up to it) holds any more, and fails with the stream's advice.
     */
    @ParameterizedTest
    @ValueSource(strings = {"log", "changelog", "upsert"})
    void stateAtTheStopRemovedFailsOnlyTheChangelog(String output) throws Exception {
        long seed = Seeds.seed(2242);
        Random random = new Random(seed);
        String name = "images_" + output;
        tables.createPrimaryKeyTable(name);
        ChangelogOracle oracle = new ChangelogOracle();
        oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        Path checkpoint = checkpoint();
        Dataset<Row> stream = tables.changelog(name, Map.of("stream.output", output, "startup.mode", "latest"));
        runToEnd(stream, name, checkpoint);
        int delivered = StreamCollector.batches(name).size();
        OffsetMap stop = tables.load(name).log().latestSnapshot().endOffsets();

        oracle.startRecording();
        oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        LakestreamTable table = tables.load(name);
        SparkTables.tierAll(testing.tiering(), table);
        assertThat(table.log().removeSegments(stop, Long.MAX_VALUE)).isPositive();
        OffsetMap ends = table.log().latestSnapshot().endOffsets();

        if (output.equals("changelog")) {
            assertQueryFails(stream, name, checkpoint, "[LOG_RANGE_REMOVED]", "before images", FULL_ADVICE);
            assertThat(StreamCollector.batches(name))
                    .as("seed %s: no batch without its before images", seed)
                    .hasSize(delivered);
            return;
        }
        runToEnd(stream, name, checkpoint);
        List<Row> rows = new ArrayList<>();
        StreamCollector.batches(name)
                .subList(delivered, StreamCollector.batches(name).size())
                .stream()
                .map(StreamCollector.Batch::rows)
                .forEach(rows::addAll);
        rows.sort(
                Comparator.<Row>comparingInt(row -> row.getInt(BUCKET)).thenComparingLong(row -> row.getLong(OFFSET)));
        Map<Long, List<Object>> lastPerKey = new TreeMap<>();
        Map<Integer, Long> offsetsRead = new TreeMap<>();
        for (Row row : rows) {
            lastPerKey.put(row.getLong(ID), values(row));
            offsetsRead.merge(row.getInt(BUCKET), 1L, Long::sum);
        }
        assertThat(lastPerKey)
                .as("seed %s: the last change per key after the stop", seed)
                .isEqualTo(ChangelogOracle.lastPerKey(oracle.recordedCommits()));
        if (output.equals("log")) {
            for (int bucket = 0; bucket < table.definition().bucketCount(); bucket++) {
                assertThat(offsetsRead.getOrDefault(bucket, 0L))
                        .as("seed %s: changes of bucket %s read after the stop, each once", seed, bucket)
                        .isEqualTo(ends.offset(bucket) - stop.offset(bucket));
            }
        }
    }

    /**
     * A {@code full} stream whose state batch was planned (its end offset logged) but not run before the query
     * stopped: retention removed part of the pinned state meanwhile. Re-planning the batch on restart (driven here
     * through {@link MicroBatchStream}, as Spark's restart does) fails with the stream's advice on the driver,
     * not on an executor with advice meant for a query.
     */
    @Test
    void fullStartWhoseStateWasRemovedBeforeItsFirstBatchFails() throws Exception {
        long seed = Seeds.seed(2243);
        Random random = new Random(seed);
        tables.createPrimaryKeyTable("state");
        ChangelogOracle oracle = new ChangelogOracle();
        oracle.commitWithJavaWriter(tables.load("state"), random, 30, 40);
        MicroBatchStream stream = testing.loadTable(NS, "state$changes")
                .newScanBuilder(new CaseInsensitiveStringMap(Map.of()))
                .build()
                .toMicroBatchStream(checkpoint().toString());
        Offset start = stream.initialOffset();
        Offset stateEnd = ((SupportsAdmissionControl) stream).latestOffset(start, ReadLimit.allAvailable());

        oracle.commitWithJavaWriter(tables.load("state"), random, 30, 40);
        tierAndRemoveTieredLog("state");

        assertThatThrownBy(() -> stream.planInputPartitions(start, stateEnd))
                .hasMessageContaining("[LOG_RANGE_REMOVED]")
                .hasMessageContaining("the table's state")
                .hasMessageContaining(FULL_ADVICE);
        stream.stop();
    }

    /**
     * Retention removes the range a micro-batch reads after the driver planned the batch (and checked the log) and
     * before its tasks read it: the stream is driven through {@link MicroBatchStream} in the order Spark's
     * micro-batch execution calls it, the removal is injected between planning and reading, and the planned
     * partitions are read by the stream's reader factory in Spark tasks. Each output's change batch and a {@code
     * full} start's state batch fail with {@code LOG_RANGE_REMOVED} and the stream's advice, not the advice for a
     * query (re-running a query re-plans it; re-running the stream's batch reads the same removed range).
     */
    @ParameterizedTest
    @ValueSource(strings = {"log", "changelog", "upsert", "full"})
    void rangeRemovedWhileABatchRunsFailsWithTheStreamsAdvice(String output) throws Exception {
        long seed = Seeds.seed(2244);
        Random random = new Random(seed);
        String name = "running_" + output;
        tables.createPrimaryKeyTable(name);
        ChangelogOracle oracle = new ChangelogOracle();
        oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        boolean state = output.equals("full");
        // the state of a full start has a log tail only if the lake lags: tier first, then commit the tail
        SparkTables.tierAll(testing.tiering(), tables.load(name));
        if (state) {
            oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        }
        Map<String, String> options = state ? Map.of() : Map.of("stream.output", output, "startup.mode", "latest");
        MicroBatchStream stream = testing.loadTable(NS, name + "$changes")
                .newScanBuilder(new CaseInsensitiveStringMap(options))
                .build()
                .toMicroBatchStream(checkpoint().toString());
        Offset start = stream.initialOffset();
        if (!state) {
            oracle.commitWithJavaWriter(tables.load(name), random, 30, 40);
        }
        Offset end = ((SupportsAdmissionControl) stream).latestOffset(start, ReadLimit.allAvailable());
        InputPartition[] partitions = stream.planInputPartitions(start, end);
        PartitionReaderFactory readers = stream.createReaderFactory();
        assertThat(partitions).as("seed %s: the batch reads something", seed).isNotEmpty();

        // between planning and reading
        tierAndRemoveTieredLog(name);

        JavaSparkContext context =
                JavaSparkContext.fromSparkContext(testing.spark().sparkContext());
        Throwable failure = catchThrowable(() -> context.parallelize(List.of(partitions), partitions.length)
                .foreach(partition -> readAll(readers, partition)));
        assertThat(failure).as("seed %s: the batch's tasks fail", seed).isNotNull();
        StringWriter trace = new StringWriter();
        failure.printStackTrace(new PrintWriter(trace));
        assertThat(trace.toString())
                .as("seed %s: the tasks' failure", seed)
                .contains("[LOG_RANGE_REMOVED]", "The stream on", "while the batch ran", FULL_ADVICE)
                .doesNotContain("Re-run the query", "LOG_CORRUPT");
        stream.stop();
    }

    private static void readAll(PartitionReaderFactory readers, InputPartition partition) throws IOException {
        if (readers.supportColumnarReads(partition)) {
            try (PartitionReader<ColumnarBatch> reader = readers.createColumnarReader(partition)) {
                while (reader.next()) {
                    reader.get().numRows();
                }
            }
            return;
        }
        try (PartitionReader<InternalRow> reader = readers.createReader(partition)) {
            while (reader.next()) {
                reader.get();
            }
        }
    }

    // --- helpers

    /** Tiers the whole log, then does what the tiering service's retention does once the tiered segments are old enough. */
    private void tierAndRemoveTieredLog(String name) {
        LakestreamTable table = tables.load(name);
        SparkTables.tierAll(testing.tiering(), table);
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();
    }

    private static void runToEnd(Dataset<Row> stream, String name, Path checkpoint) throws Exception {
        StreamingQuery query = StreamCollector.start(stream, name, checkpoint, FAST);
        try {
            query.processAllAvailable();
        } finally {
            query.stop();
        }
        assertThat(query.exception().isEmpty()).as("query of %s failed", name).isTrue();
    }

    private static void assertQueryFails(Dataset<Row> stream, String name, Path checkpoint, String... expected)
            throws TimeoutException {
        StreamCollector.assertQueryFails(stream, name, checkpoint, FAST, expected);
    }

    /** (type, id, name, score); a delete with NULL name and score, as {@link ChangelogOracle#lastPerKey} has it. */
    private static List<Object> values(Row row) {
        boolean delete = row.getString(TYPE).equals("delete");
        return Arrays.asList(
                row.getString(TYPE),
                row.getLong(ID),
                delete || row.isNullAt(ID + 1) ? null : row.getString(ID + 1),
                delete || row.isNullAt(ID + 2) ? null : row.getInt(ID + 2));
    }

    private static Path checkpoint() throws IOException {
        return Files.createTempDirectory("lakestream-retention-checkpoint");
    }
}
