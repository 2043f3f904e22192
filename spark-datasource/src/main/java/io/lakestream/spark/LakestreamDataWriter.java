package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_ROW;

import io.lakestream.common.LakestreamException;
import io.lakestream.merge.ChangeColumns;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import io.lakestream.write.RowBuffer;
import java.util.OptionalInt;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * One write task (of a batch write or a streaming micro-batch): routes rows to their buckets through
 * the Lakestream writer (the shared bucket function) and, on commit, finishes the segment files
 * without publishing them. An invalid row fails the task, and Spark aborts the job, so nothing is
 * committed. The input's columns are taken by name ({@link LakestreamSinkInput}; a batch write's rows
 * have the table's columns in order). A row of a changelog input (a {@code _change_type} column,
 * streams only) is applied by its change type: on a primary-key table
 * {@code insert}, {@code upsert} and {@code update_after} are upserts, {@code delete} deletes the
 * key, {@code update_before} is skipped (its {@code update_after} carries the new row); an
 * append-only table takes {@code insert} rows only. Without the column, rows are upserts (primary
 * key) or appends.
 */
final class LakestreamDataWriter implements DataWriter<InternalRow> {
    private static final UTF8String INSERT = UTF8String.fromString("insert");
    private static final UTF8String UPSERT = UTF8String.fromString("upsert");
    private static final UTF8String UPDATE_AFTER = UTF8String.fromString("update_after");
    private static final UTF8String UPDATE_BEFORE = UTF8String.fromString("update_before");
    private static final UTF8String DELETE = UTF8String.fromString("delete");

    private final String table;
    private final BufferAllocator allocator;
    private final LakestreamWriter writer;
    private final LakestreamRowSetter rows;
    private final LakestreamRowSetter keys;
    private final RowBuffer buffer;
    private final boolean upsert;
    private final OptionalInt changeType;

    LakestreamDataWriter(
            LakestreamTable table, String leaseId, LakestreamSinkInput input, int partitionId, long taskId) {
        this.table = table.identifier().toString();
        this.allocator =
                LakestreamMemory.newTaskAllocator("write-%s-%s-%s".formatted(table.identifier(), partitionId, taskId));
        // staged under the driver's lease, which it holds until it commits or aborts the write (or micro-batch)
        this.writer = new LakestreamWriter(table, allocator, leaseId);
        Schema schema = table.definition().schema();
        this.rows = input.setter(
                schema, schema.columns().stream().map(Types.NestedField::name).toList());
        this.keys = input.setter(schema, table.definition().primaryKey());
        this.buffer = writer.row();
        this.upsert = table.definition().hasPrimaryKey();
        this.changeType = input.changeTypeOrdinal(schema);
    }

    @Override
    public void write(InternalRow row) {
        if (changeType.isEmpty()) {
            // typed values straight into the writer's row: no boxed record per row
            writeRow(row);
            return;
        }
        int ordinal = changeType.getAsInt();
        UTF8String kind = row.isNullAt(ordinal) ? null : row.getUTF8String(ordinal);
        if (kind != null && !kind.equals(INSERT) && !kind.equals(UPSERT) && !kind.equals(UPDATE_AFTER)) {
            kind = kind.toLowerCase();
        }
        if (INSERT.equals(kind) || (upsert && (UPSERT.equals(kind) || UPDATE_AFTER.equals(kind)))) {
            writeRow(row);
        } else if (upsert && DELETE.equals(kind)) {
            keys.copy(row, buffer);
            writer.deleteRow();
        } else if (!(upsert && UPDATE_BEFORE.equals(kind))) {
            throw new LakestreamException(
                    INVALID_ROW,
                    "A streaming write into %s has a row with %s %s: %s"
                            .formatted(
                                    table,
                                    ChangeColumns.CHANGE_TYPE,
                                    kind == null ? "NULL" : "'" + kind + "'",
                                    upsert
                                            ? "a primary-key table takes insert, upsert, update_before (skipped), update_after and delete"
                                            : "an append-only table takes insert rows only (it has no key to update or delete by)"));
        }
    }

    private void writeRow(InternalRow row) {
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
