package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import io.lakestream.write.RowBuffer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * One write task: routes rows to their buckets through the Lakestream writer (the shared bucket
 * function) and, on commit, finishes the segment files without publishing them. An invalid row
 * fails the task, and Spark aborts the job, so nothing is committed.
 */
final class LakestreamDataWriter implements DataWriter<InternalRow> {
    private final BufferAllocator allocator;
    private final LakestreamWriter writer;
    private final LakestreamRowSetter rows;
    private final RowBuffer buffer;
    private final boolean upsert;

    LakestreamDataWriter(LakestreamTable table, String leaseId, int partitionId, long taskId) {
        this.allocator =
                LakestreamMemory.newTaskAllocator("write-%s-%s-%s".formatted(table.identifier(), partitionId, taskId));
        // staged under the driver's lease, which it holds until it commits or aborts the write
        this.writer = new LakestreamWriter(table, allocator, leaseId);
        this.rows = LakestreamRowSetter.forTable(table.definition().schema());
        this.buffer = writer.row();
        this.upsert = table.definition().hasPrimaryKey();
    }

    @Override
    public void write(InternalRow row) {
        // typed values straight into the writer's row: no boxed record per row
        rows.copy(row, buffer);
        if (upsert) {
            writer.upsertRow();
        } else {
            writer.appendRow();
        }
    }

    @Override
    public WriterCommitMessage commit() {
        return LakestreamCommitMessage.of(writer.prepare());
    }

    @Override
    public void abort() {
        writer.abort();
    }

    @Override
    public void close() {
        writer.close();
        allocator.close();
    }
}
