package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;

/**
 * A {@link LakestreamMicroBatchStream} reading only the columns and rows a pushdown kept. Spark's micro-batch
 * execution asks the stream it logged offsets for (the source) for offsets, and the stream in the batch's plan
 * for partitions and readers: this is that stream in the plan. It equals its source, because Spark matches the
 * scan node of a batch with its source by equality to report the batch's input rows.
 */
final class PushedDownStream implements MicroBatchStream {
    private final LakestreamMicroBatchStream source;
    private final StreamBatches batches;

    PushedDownStream(LakestreamMicroBatchStream source, StreamBatches batches) {
        this.source = requireNonNull(source, "source is null");
        this.batches = requireNonNull(batches, "batches is null");
    }

    LakestreamMicroBatchStream source() {
        return source;
    }

    StreamBatches batches() {
        return batches;
    }

    @Override
    public InputPartition[] planInputPartitions(Offset start, Offset end) {
        return source.planInputPartitions(start, end, batches);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return batches.readerFactory();
    }

    @Override
    public Offset latestOffset() {
        return source.latestOffset();
    }

    @Override
    public Offset initialOffset() {
        return source.initialOffset();
    }

    @Override
    public Offset deserializeOffset(String json) {
        return source.deserializeOffset(json);
    }

    @Override
    public void commit(Offset end) {
        source.commit(end);
    }

    @Override
    public void stop() {
        // the source is stopped by Spark itself
    }

    @Override
    public boolean equals(Object other) {
        return other == this || source.equals(other);
    }

    @Override
    public int hashCode() {
        return source.hashCode();
    }

    @Override
    public String toString() {
        return source + "[columns=" + batches.rowSchema().simpleString() + ", filter=" + batches.filter() + "]";
    }
}
