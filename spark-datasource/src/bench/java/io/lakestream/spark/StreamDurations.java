package io.lakestream.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * Where a stream's micro-batches spend their time, as Spark reports it ({@code StreamingQueryProgress.durationMs}:
 * latestOffset, queryPlanning, getBatch, walCommit, addBatch, commitOffsets, triggerExecution), over the batches
 * with rows of one query from {@link #measure} on; and the source's work counters ({@code sources[].metrics}).
 */
final class StreamDurations extends StreamingQueryListener {
    private final List<StreamingQueryProgress> progress = new ArrayList<>();
    private volatile UUID measured;

    /** Collects the batches of {@code query} from now on. */
    void measure(UUID query) {
        synchronized (progress) {
            progress.clear();
        }
        measured = query;
    }

    @Override
    public void onQueryProgress(QueryProgressEvent event) {
        if (event.progress().id().equals(measured)) {
            synchronized (progress) {
                progress.add(event.progress());
            }
        }
    }

    @Override
    public void onQueryStarted(QueryStartedEvent event) {}

    @Override
    public void onQueryIdle(QueryIdleEvent event) {}

    @Override
    public void onQueryTerminated(QueryTerminatedEvent event) {}

    /** Per duration key, over the batches with rows: mean, p50, p99 and max in milliseconds. */
    Map<String, double[]> summary() {
        Map<String, List<Long>> values = new TreeMap<>();
        synchronized (progress) {
            for (StreamingQueryProgress batch : progress) {
                if (batch.numInputRows() == 0) {
                    continue;
                }
                batch.durationMs()
                        .forEach((key, millis) -> values.computeIfAbsent(key, ignored -> new ArrayList<>())
                                .add(millis));
            }
        }
        Map<String, double[]> summary = new TreeMap<>();
        values.forEach((key, millis) -> {
            double[] sorted =
                    millis.stream().mapToDouble(Long::doubleValue).sorted().toArray();
            summary.put(key, new double[] {
                Arrays.stream(sorted).average().orElse(0), at(sorted, 50), at(sorted, 99), sorted[sorted.length - 1]
            });
        });
        return summary;
    }

    int batchesWithRows() {
        synchronized (progress) {
            return (int)
                    progress.stream().filter(batch -> batch.numInputRows() > 0).count();
        }
    }

    void print() {
        System.out.printf(
                Locale.ROOT, "micro-batches with rows: %d; durationMs mean / p50 / p99 / max:%n", batchesWithRows());
        summary()
                .forEach((key, stats) -> System.out.printf(
                        Locale.ROOT, "  %-18s %7.1f %6.0f %6.0f %6.0f%n", key, stats[0], stats[1], stats[2], stats[3]));
    }

    private static double at(double[] sorted, int percent) {
        int index = (int) Math.ceil(percent / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
