package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
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
    private final LakestreamRowConverter converter;
    private final boolean upsert;

    LakestreamDataWriter(LakestreamTable table, int partitionId, long taskId) {
        this.allocator =
                LakestreamMemory.newTaskAllocator("write-%s-%s-%s".formatted(table.identifier(), partitionId, taskId));
        this.writer = new LakestreamWriter(table, allocator);
        this.converter = new LakestreamRowConverter(table.definition().schema());
        this.upsert = table.definition().hasPrimaryKey();
    }

    @Override
    public void write(InternalRow row) {
        if (upsert) {
            writer.upsert(converter.convert(row));
        } else {
            writer.append(converter.convert(row));
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
