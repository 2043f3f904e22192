package io.lakestream.spark;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the Lakestream scans of a stream returned to Spark, summed over its micro-batches, by {@link StreamCollector}
 * name: rows (Spark's {@code numOutputRows}), values ({@code returnedValues}, rows times columns) and log
 * segments ({@code logSegments}). Counted after
 * each batch from the executed plan of the query that delivered it, so run one query at a time.
 */
final class StreamScanWork {
    private static final Map<String, long[]> WORK = new ConcurrentHashMap<>();

    private StreamScanWork() {}

    /** Counts the scan work of every batch collector {@code name} keeps from now on (replaces its batch hook). */
    static void count(String name) {
        count(name, SparkTesting.get().spark());
    }

    /** {@link #count(String)} of streams that run in {@code session}. */
    static void count(String name, SparkSession session) {
        WORK.putIfAbsent(name, new long[3]);
        StreamCollector.onScans(name, session, scan -> {
            WORK.get(name)[0] += scan.metrics().apply("numOutputRows").value();
            WORK.get(name)[1] +=
                    scan.metrics().apply(LakestreamMetrics.RETURNED_VALUES).value();
            WORK.get(name)[2] +=
                    scan.metrics().apply(LakestreamMetrics.LOG_SEGMENTS).value();
        });
    }

    /** Runs the stream with AvailableNow to its end, counting the scan work of its batches under {@code name}. */
    static void runToEnd(Dataset<Row> stream, String name, Path checkpoint, String outputMode) throws Exception {
        count(name, stream.sparkSession());
        StreamCollector.runToEnd(stream, name, checkpoint, outputMode);
    }

    static long rows(String name) {
        return WORK.getOrDefault(name, new long[3])[0];
    }

    static long values(String name) {
        return WORK.getOrDefault(name, new long[3])[1];
    }

    /** Log segments the scans read ({@code logSegments}). */
    static long logSegments(String name) {
        return WORK.getOrDefault(name, new long[3])[2];
    }
}
