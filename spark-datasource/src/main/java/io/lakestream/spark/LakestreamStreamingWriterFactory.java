package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.WriterLease;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;

/**
 * Creates the tasks' writers of a streaming micro-batch on the executors.
 *
 * @param table where to load the table
 * @param leaseId the driver's writer lease: the tasks stage their segments under it
 * @param input how the stream's columns map onto the table's
 */
record LakestreamStreamingWriterFactory(LakestreamTableRef table, String leaseId, LakestreamSinkInput input)
        implements StreamingDataWriterFactory {
    LakestreamStreamingWriterFactory {
        requireNonNull(table, "table is null");
        WriterLease.checkId(leaseId);
        requireNonNull(input, "input is null");
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId, long epochId) {
        return new LakestreamDataWriter(table.load(), leaseId, input, partitionId, taskId);
    }
}
