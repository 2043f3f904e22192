package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;

/**
 * Creates the {@code DELETE} tasks' writers on the executors.
 *
 * @param table where to load the table
 */
record LakestreamDeleteWriterFactory(LakestreamTableRef table) implements DeltaWriterFactory {
    LakestreamDeleteWriterFactory {
        requireNonNull(table, "table is null");
    }

    @Override
    public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
        return new LakestreamDeleteWriter(table.load(), partitionId, taskId);
    }
}
