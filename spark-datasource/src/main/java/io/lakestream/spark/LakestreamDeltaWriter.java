package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * One task of a {@code DELETE}, {@code UPDATE} or {@code MERGE}: Spark hands it the primary key (the
 * row id) of every row to delete or update and the new rows, and it stages a delete change per
 * deleted key and an upsert per updated or inserted row in their buckets' segments. On commit the
 * segments are finished, not published; the driver publishes them.
 */
final class LakestreamDeltaWriter implements DeltaWriter<InternalRow> {
    private final String table;
    private final List<String> primaryKey;
    private final BufferAllocator allocator;
    private final LakestreamWriter writer;
    private final LakestreamRowConverter keys;
    private final LakestreamRowConverter rows;

    LakestreamDeltaWriter(LakestreamTable table, int partitionId, long taskId) {
        this.table = table.identifier().toString();
        this.primaryKey = table.definition().primaryKey();
        this.allocator =
                LakestreamMemory.newTaskAllocator("delta-%s-%s-%s".formatted(table.identifier(), partitionId, taskId));
        this.writer = new LakestreamWriter(table, allocator);
        // the row id: the key columns, in primary-key order
        Schema schema = table.definition().schema();
        this.keys = new LakestreamRowConverter(
                new Schema(primaryKey.stream().map(schema::findField).toList()));
        this.rows = new LakestreamRowConverter(schema);
    }

    @Override
    public void delete(InternalRow metadata, InternalRow id) {
        writer.delete(keys.convert(id));
    }

    @Override
    public void update(InternalRow metadata, InternalRow id, InternalRow row) {
        GenericRecord key = keys.convert(id);
        GenericRecord updated = rows.convert(row);
        for (String column : primaryKey) {
            // the log names a row by its key: a new key is a different row, not a new version of this one
            if (!Objects.equals(key.getField(column), updated.getField(column))) {
                throw new LakestreamException(
                        UNSUPPORTED_OPERATION,
                        "UPDATE of primary key column %s of %s is not supported: delete the row and insert it with the new key"
                                .formatted(column, table));
            }
        }
        writer.upsert(updated);
    }

    @Override
    public void insert(InternalRow row) {
        writer.upsert(rows.convert(row));
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
