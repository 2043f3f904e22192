package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/**
 * Creates the write tasks' writers on the executors.
 *
 * @param table where to load the table
 */
record LakestreamDataWriterFactory(LakestreamTableRef table) implements DataWriterFactory {
    LakestreamDataWriterFactory {
        requireNonNull(table, "table is null");
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        return new LakestreamDataWriter(table.load(), partitionId, taskId);
    }
}
