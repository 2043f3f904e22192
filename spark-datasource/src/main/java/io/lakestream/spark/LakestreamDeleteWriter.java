package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * One {@code DELETE} task: Spark hands it the primary key of every matching row (the row id), and
 * it stages a delete change for each in its bucket's segment. On commit the segments are finished,
 * not published; the driver publishes them.
 */
final class LakestreamDeleteWriter implements DeltaWriter<InternalRow> {
    private final String table;
    private final BufferAllocator allocator;
    private final LakestreamWriter writer;
    private final LakestreamRowConverter keys;

    LakestreamDeleteWriter(LakestreamTable table, int partitionId, long taskId) {
        this.table = table.identifier().toString();
        this.allocator =
                LakestreamMemory.newTaskAllocator("delete-%s-%s-%s".formatted(table.identifier(), partitionId, taskId));
        this.writer = new LakestreamWriter(table, allocator);
        // the row id: the key columns, in primary-key order
        Schema schema = table.definition().schema();
        this.keys = new LakestreamRowConverter(new Schema(
                table.definition().primaryKey().stream().map(schema::findField).toList()));
    }

    @Override
    public void delete(InternalRow metadata, InternalRow id) {
        writer.delete(keys.convert(id));
    }

    @Override
    public void update(InternalRow metadata, InternalRow id, InternalRow row) {
        throw unsupported("UPDATE");
    }

    @Override
    public void insert(InternalRow row) {
        throw unsupported("an insert inside a row-level operation");
    }

    private LakestreamException unsupported(String what) {
        return new LakestreamException(
                UNSUPPORTED_OPERATION, "%s is not supported on %s; only DELETE is".formatted(what, table));
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
