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
record LakestreamDeltaWriterFactory(LakestreamTableRef table) implements DeltaWriterFactory {
    LakestreamDeltaWriterFactory {
        requireNonNull(table, "table is null");
    }

    @Override
    public DeltaWriter<InternalRow> createWriter(int partitionId, long taskId) {
        return new LakestreamDeltaWriter(table.load(), partitionId, taskId);
    }
}
