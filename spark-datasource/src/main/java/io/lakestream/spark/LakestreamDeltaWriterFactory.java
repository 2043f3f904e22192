package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.WriterLease;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;

/**
 * Creates the {@code DELETE} tasks' writers on the executors.
 *
 * @param table where to load the table
 * @param leaseId the driver's writer lease: the tasks stage their segments under it
 */
record LakestreamDeltaWriterFactory(LakestreamTableRef table, String leaseId) implements DeltaWriterFactory {
    LakestreamDeltaWriterFactory {
        requireNonNull(table, "table is null");
        WriterLease.checkId(leaseId);
    }

    @Override
    public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
        return new LakestreamDeltaWriter(table.load(), leaseId, partitionId, taskId);
    }
}
