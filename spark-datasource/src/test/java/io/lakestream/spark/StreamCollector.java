package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.MicroBatchScanExec;
import org.apache.spark.sql.execution.streaming.runtime.StreamExecution;
import org.apache.spark.sql.execution.streaming.runtime.StreamingQueryWrapper;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Runs a stream into {@code foreachBatch} and keeps every micro-batch it delivers, by collector name
 * (which survives a restart of the query on the same checkpoint), with its batch id.
 */
final class StreamCollector {
    private static final Map<String, List<Batch>> BATCHES = new ConcurrentHashMap<>();
    private static final Map<String, VoidFunction2<Dataset<Row>, Long>> ON_BATCH = new ConcurrentHashMap<>();

    record Batch(long id, List<Row> rows) {}

    private StreamCollector() {}

    static StreamingQuery start(Dataset<Row> stream, String name, Path checkpoint, Trigger trigger) {
        return start(stream, name, checkpoint, trigger, "append");
    }

    /** @param outputMode Spark's output mode ({@code append}, {@code update}, {@code complete}) */
    static StreamingQuery start(Dataset<Row> stream, String name, Path checkpoint, Trigger trigger, String outputMode) {
        BATCHES.computeIfAbsent(name, ignored -> new CopyOnWriteArrayList<>());
        try {
            return stream.writeStream()
                    .outputMode(outputMode)
                    .option("checkpointLocation", checkpoint.toString())
                    .trigger(trigger)
                    .foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, id) -> {
                        BATCHES.get(name).add(new Batch(id, batch.collectAsList()));
                        VoidFunction2<Dataset<Row>, Long> hook = ON_BATCH.get(name);
                        if (hook != null) {
                            hook.call(batch, id);
                        }
                    })
                    .start();
        } catch (TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs the stream with {@code Trigger.AvailableNow} to its end (what the log held when it started), then stops it. */
    static void runToEnd(Dataset<Row> stream, String name, Path checkpoint) throws Exception {
        runToEnd(stream, name, checkpoint, "append");
    }

    /** {@link #runToEnd(Dataset, String, Path)} in Spark's output mode {@code outputMode}. */
    static void runToEnd(Dataset<Row> stream, String name, Path checkpoint, String outputMode) throws Exception {
        StreamingQuery query = start(stream, name, checkpoint, Trigger.AvailableNow(), outputMode);
        try {
            query.awaitTermination();
        } finally {
            query.stop();
        }
    }

    /** Starts the stream and asserts that its query fails with every one of {@code expected} in the failure. */
    static void assertQueryFails(Dataset<Row> stream, String name, Path checkpoint, Trigger trigger, String... expected)
            throws TimeoutException {
        StreamingQuery query = start(stream, name, checkpoint, trigger);
        try {
            var failure = assertThatThrownBy(query::processAllAvailable).isInstanceOf(StreamingQueryException.class);
            for (String text : expected) {
                failure.hasStackTraceContaining(text);
            }
        } finally {
            query.stop();
        }
    }

    /** Runs {@code hook} after each batch of collector {@code name} was kept (e.g. a commit while the query runs). */
    static void onBatch(String name, VoidFunction2<Dataset<Row>, Long> hook) {
        ON_BATCH.put(name, hook);
    }

    /**
     * After each batch of collector {@code name} (replacing its batch hook), hands {@code scan} every Lakestream stream
     * scan in the executed plan of the batch's query, among the active queries of {@code session} (so run one query
     * at a time): the read schema and the scan's metrics of that batch.
     */
    static void onScans(String name, SparkSession session, Consumer<MicroBatchScanExec> scan) {
        onBatch(name, (batch, id) -> {
            for (StreamingQuery query : session.streams().active()) {
                StreamExecution execution = ((StreamingQueryWrapper) query).streamingQuery();
                if (execution.lastExecution() == null) {
                    continue;
                }
                for (SparkPlan leaf : CollectionConverters.asJava(
                        execution.lastExecution().executedPlan().collectLeaves())) {
                    if (leaf instanceof MicroBatchScanExec microBatchScan) {
                        scan.accept(microBatchScan);
                    }
                }
            }
        });
    }

    static List<Batch> batches(String name) {
        return List.copyOf(BATCHES.getOrDefault(name, List.of()));
    }

    static List<Row> rows(String name) {
        List<Row> rows = new ArrayList<>();
        for (Batch batch : batches(name)) {
            rows.addAll(batch.rows());
        }
        return rows;
    }

    /** The rows collector {@code name} kept, each as a list of its values (arrays as lists), in delivery order. */
    static List<List<Object>> rowsAsLists(String name) {
        List<List<Object>> result = new ArrayList<>();
        for (Row row : rows(name)) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < row.length(); i++) {
                values.add(row.get(i) instanceof scala.collection.Seq<?> ? row.getList(i) : row.get(i));
            }
            result.add(values);
        }
        return result;
    }
}
