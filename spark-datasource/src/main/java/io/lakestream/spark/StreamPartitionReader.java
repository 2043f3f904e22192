package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;

/**
 * A reader of one partition of a stream's micro-batch. The driver checked, when it planned the batch, that
 * retention had not removed the log the batch reads; retention can still remove it while the batch's tasks
 * run. The log reader then reports {@code LOG_RANGE_REMOVED} with the advice for a query (re-run it), which for a
 * stream would only re-plan the same batch from its logged offsets and fail again: this reader reports it with
 * the stream's advice instead.
 */
final class StreamPartitionReader<T> implements PartitionReader<T> {
    private final PartitionReader<T> delegate;
    private final String tableName;
    private final String reads;

    private StreamPartitionReader(PartitionReader<T> delegate, String tableName, String reads) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.tableName = requireNonNull(tableName, "tableName is null");
        this.reads = requireNonNull(reads, "reads is null");
    }

    /**
     * Opens a partition's reader with the stream's errors.
     *
     * @param reads what the partition reads, for the message (e.g. "offsets [10, 20) of bucket 3")
     */
    static <T> PartitionReader<T> open(Supplier<PartitionReader<T>> reader, String tableName, String reads) {
        try {
            return new StreamPartitionReader<>(reader.get(), tableName, reads);
        } catch (LakestreamException e) {
            throw translated(e, tableName, reads);
        }
    }

    @Override
    public boolean next() throws IOException {
        try {
            return delegate.next();
        } catch (LakestreamException e) {
            throw translated(e, tableName, reads);
        }
    }

    @Override
    public T get() {
        return delegate.get();
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return delegate.currentMetricsValues();
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }

    private static LakestreamException translated(LakestreamException e, String tableName, String reads) {
        if (e.error() != LOG_RANGE_REMOVED) {
            return e;
        }
        // the log reader's message advises a query to re-run: keep only its cause (the file that is gone)
        LakestreamException stream = new LakestreamException(
                LOG_RANGE_REMOVED,
                "The stream on %s cannot continue: log retention removed part of what a micro-batch reads (%s) while the batch ran. %s"
                        .formatted(tableName, reads, LakestreamMicroBatchStream.RESTART_ADVICE),
                e.getCause());
        stream.setStackTrace(e.getStackTrace());
        return stream;
    }
}
