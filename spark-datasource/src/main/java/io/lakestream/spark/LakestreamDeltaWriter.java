package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import io.lakestream.write.RowBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DeltaWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.DataType;

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
    private final LakestreamRowSetter keys;
    private final LakestreamRowSetter rows;
    private final RowBuffer buffer;
    /** Per key column: its ordinal in a full row and its Spark type, to compare a row's key with its id. */
    private final int[] keyOrdinals;

    private final DataType[] keyTypes;

    LakestreamDeltaWriter(LakestreamTable table, String leaseId, int partitionId, long taskId) {
        this.table = table.identifier().toString();
        this.primaryKey = table.definition().primaryKey();
        this.allocator =
                LakestreamMemory.newTaskAllocator("delta-%s-%s-%s".formatted(table.identifier(), partitionId, taskId));
        // staged under the driver's lease, which it holds until it commits or aborts the write
        this.writer = new LakestreamWriter(table, allocator, leaseId);
        this.buffer = writer.row();
        // the row id: the key columns, in primary-key order
        Schema schema = table.definition().schema();
        this.keys = new LakestreamRowSetter(schema, primaryKey);
        this.rows = LakestreamRowSetter.forTable(schema);
        this.keyOrdinals = new int[primaryKey.size()];
        this.keyTypes = new DataType[primaryKey.size()];
        for (int i = 0; i < keyOrdinals.length; i++) {
            Types.NestedField column = schema.findField(primaryKey.get(i));
            keyOrdinals[i] = schema.columns().indexOf(column);
            keyTypes[i] = LakestreamTypes.sparkType(column.name(), column.type());
        }
    }

    @Override
    public void delete(InternalRow metadata, InternalRow id) {
        keys.copy(id, buffer);
        writer.deleteRow();
    }

    @Override
    public void update(InternalRow metadata, InternalRow id, InternalRow row) {
        for (int i = 0; i < keyOrdinals.length; i++) {
            // the log names a row by its key: a new key is a different row, not a new version of this one
            if (!sameValue(id.get(i, keyTypes[i]), row.get(keyOrdinals[i], keyTypes[i]))) {
                throw new LakestreamException(
                        UNSUPPORTED_OPERATION,
                        "UPDATE of primary key column %s of %s is not supported: delete the row and insert it with the new key"
                                .formatted(primaryKey.get(i), table));
            }
        }
        insert(row);
    }

    @Override
    public void insert(InternalRow row) {
        rows.copy(row, buffer);
        writer.upsertRow();
    }

    /** Spark's internal values (UTF8String, Decimal, Long...) by value; binary by content. */
    private static boolean sameValue(Object left, Object right) {
        if (left instanceof byte[] leftBytes && right instanceof byte[] rightBytes) {
            return Arrays.equals(leftBytes, rightBytes);
        }
        return Objects.equals(left, right);
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
