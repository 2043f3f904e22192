package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryException;
import org.apache.spark.sql.streaming.Trigger;

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
}
