package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_COMMIT_ERROR;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_NOT_SUPPORTED;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static io.trino.spi.type.TinyintType.TINYINT;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.CompletableFuture.completedFuture;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogJson;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.RowBlock;
import io.trino.spi.connector.ConnectorMergeSink;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.data.GenericRecord;

/**
 * One task's part of a {@code DELETE} on a primary-key table: a delete change per removed row (the
 * key comes from the row id), an upsert per inserted row, written into staged log segments and
 * handed to the coordinator as fragments, which publishes them as one commit.
 *
 * <p>The page has the table's columns, then the operation, and the row id last (see {@link
 * ConnectorMergeSink#storeMergedRows}). Deletes and upserts go into separate segments, and the
 * commit puts every delete of the statement before every upsert: the delete and the insert that an
 * update becomes may reach different tasks, and the insert must win.
 */
final class LakestreamMergeSink implements ConnectorMergeSink {
    private final String tableName;
    private final LazyWriter deletes;
    private final LazyWriter upserts;
    private final GenericRecord row;
    private final List<TrinoValueReader> columnReaders;
    /** For each key column: its position in the table schema, and how to read it from the row id. */
    private final int[] keyPositions;

    private final List<TrinoValueReader> keyReaders;

    LakestreamMergeSink(LakestreamTable table, String tableName, String leaseId, BufferAllocator allocator) {
        this.tableName = tableName;
        // staged under the coordinator's lease, which it holds until it commits or cleans up
        this.deletes = new LazyWriter(table, allocator, leaseId);
        this.upserts = new LazyWriter(table, allocator, leaseId);
        this.row = GenericRecord.create(table.definition().schema());
        List<LakestreamColumnHandle> columns = LakestreamColumns.userColumns(table.definition());
        this.columnReaders = columns.stream()
                .map(column -> TrinoValueReader.forType(column.type()))
                .toList();
        List<String> names = columns.stream().map(LakestreamColumnHandle::name).toList();
        List<String> key = table.definition().primaryKey();
        this.keyPositions = key.stream().mapToInt(names::indexOf).toArray();
        this.keyReaders = key.stream()
                .map(name -> TrinoValueReader.forType(
                        columns.get(names.indexOf(name)).type()))
                .toList();
    }

    @Override
    public void storeMergedRows(Page page) {
        int columnCount = columnReaders.size();
        Block operations = page.getBlock(columnCount);
        List<Block> keyBlocks = RowBlock.getRowFieldsFromBlock(page.getBlock(page.getChannelCount() - 1));
        try {
            for (int position = 0; position < page.getPositionCount(); position++) {
                int operation = TINYINT.getByte(operations, position);
                switch (operation) {
                    case DELETE_OPERATION_NUMBER, UPDATE_DELETE_OPERATION_NUMBER -> delete(keyBlocks, position);
                    case INSERT_OPERATION_NUMBER, UPDATE_INSERT_OPERATION_NUMBER -> upsert(page, position);
                    default ->
                        throw new TrinoException(
                                LAKESTREAM_NOT_SUPPORTED,
                                "Row change operation %s is not supported on %s".formatted(operation, tableName));
                }
            }
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }

    private void delete(List<Block> keyBlocks, int position) {
        clearRow();
        for (int field = 0; field < keyPositions.length; field++) {
            row.set(keyPositions[field], keyReaders.get(field).read(keyBlocks.get(field), position));
        }
        deletes.get().delete(row);
    }

    private void upsert(Page page, int position) {
        for (int channel = 0; channel < columnReaders.size(); channel++) {
            Block block = page.getBlock(channel);
            row.set(
                    channel,
                    block.isNull(position) ? null : columnReaders.get(channel).read(block, position));
        }
        upserts.get().upsert(row);
    }

    private void clearRow() {
        for (int position = 0; position < columnReaders.size(); position++) {
            row.set(position, null);
        }
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish() {
        ImmutableList.Builder<Slice> fragments = ImmutableList.builder();
        try {
            for (StagedSegment segment : deletes.prepare()) {
                fragments.add(Fragment.write(true, segment));
            }
            for (StagedSegment segment : upserts.prepare()) {
                fragments.add(Fragment.write(false, segment));
            }
        } catch (LakestreamException e) {
            upserts.abort();
            throw toTrinoException(e);
        }
        return completedFuture(fragments.build());
    }

    @Override
    public void abort() {
        try {
            deletes.abort();
        } finally {
            upserts.abort();
        }
    }

    /**
     * A writer opened at its first row. Trino (up to at least 483) never calls {@link #abort} on a merge sink:
     * when a statement fails before its rows reach this task (a NOT NULL violation, another task's failure), a
     * writer opened up front would keep its child allocator open for the life of the worker.
     */
    private static final class LazyWriter {
        private final LakestreamTable table;
        private final BufferAllocator allocator;
        private final String leaseId;
        private LakestreamWriter writer;

        LazyWriter(LakestreamTable table, BufferAllocator allocator, String leaseId) {
            this.table = requireNonNull(table, "table is null");
            this.allocator = requireNonNull(allocator, "allocator is null");
            this.leaseId = requireNonNull(leaseId, "leaseId is null");
        }

        LakestreamWriter get() {
            if (writer == null) {
                writer = new LakestreamWriter(table, allocator, leaseId);
            }
            return writer;
        }

        /** The staged segments; none if no row came. */
        List<StagedSegment> prepare() {
            return writer == null ? List.of() : writer.prepare();
        }

        void abort() {
            if (writer != null) {
                writer.abort();
            }
        }
    }

    /** What a task hands to the coordinator: a staged segment, and whether it holds deletes. */
    record Fragment(boolean deletes, StagedSegment segment) {
        Fragment {
            requireNonNull(segment, "segment is null");
        }

        static Slice write(boolean deletes, StagedSegment segment) {
            return Slices.wrappedBuffer(LogJson.write(new Fragment(deletes, segment)));
        }

        static Fragment read(Slice fragment) {
            try {
                return LogJson.read(fragment.getBytes(), Fragment.class);
            } catch (IOException e) {
                throw new TrinoException(
                        LAKESTREAM_COMMIT_ERROR, "A task of the DELETE returned an unreadable segment description", e);
            }
        }
    }
}
