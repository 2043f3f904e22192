package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.WriterLease;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/**
 * Creates the write tasks' writers on the executors.
 *
 * @param table where to load the table
 * @param leaseId the driver's writer lease: the tasks stage their segments under it
 */
record LakestreamDataWriterFactory(LakestreamTableRef table, String leaseId) implements DataWriterFactory {
    LakestreamDataWriterFactory {
        requireNonNull(table, "table is null");
        WriterLease.checkId(leaseId);
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        io.lakestream.table.LakestreamTable loaded = table.load();
        return new LakestreamDataWriter(
                loaded, leaseId, LakestreamSinkInput.ofTable(loaded.definition().schema()), partitionId, taskId);
    }
}
