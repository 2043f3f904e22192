package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.airlift.slice.Slice;
import io.lakestream.common.LakestreamException;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSinkId;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.BufferAllocator;

public final class LakestreamPageSinkProvider implements ConnectorPageSinkProvider {
    private final LakestreamCatalogAccess catalog;
    private final BufferAllocator allocator;

    @Inject
    public LakestreamPageSinkProvider(LakestreamCatalogAccess catalog, BufferAllocator allocator) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    @Override
    public ConnectorPageSink createPageSink(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorOutputTableHandle outputTableHandle,
            Optional<ConnectorTableCredentials> credentials,
            ConnectorPageSinkId pageSinkId) {
        LakestreamInsertTableHandle handle = (LakestreamInsertTableHandle) outputTableHandle;
        return pageSink(handle);
    }

    @Override
    public ConnectorPageSink createPageSink(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorInsertTableHandle insertTableHandle,
            Optional<ConnectorTableCredentials> credentials,
            ConnectorPageSinkId pageSinkId) {
        LakestreamInsertTableHandle handle = (LakestreamInsertTableHandle) insertTableHandle;
        return pageSink(handle);
    }

    /** {@code compact}'s writer: its scan reads nothing ({@link LakestreamMetadata#beginTableExecute}). */
    @Override
    public ConnectorPageSink createPageSink(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorTableExecuteHandle tableExecuteHandle,
            Optional<ConnectorTableCredentials> credentials,
            ConnectorPageSinkId pageSinkId) {
        return new NoRowsPageSink(((LakestreamTableExecuteHandle) tableExecuteHandle).procedure());
    }

    @Override
    public ConnectorMergeSink createMergeSink(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorMergeTableHandle mergeHandle,
            Optional<ConnectorTableCredentials> credentials,
            ConnectorPageSinkId pageSinkId) {
        LakestreamMergeTableHandle merge = (LakestreamMergeTableHandle) mergeHandle;
        LakestreamTableHandle table = merge.tableHandle();
        try {
            return new LakestreamMergeSink(
                    catalog.loadTable(table.baseTable(), merge.tableUuid()),
                    table.baseTable().toString(),
                    merge.leaseId(),
                    allocator);
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }

    private record NoRowsPageSink(LakestreamTableProcedure procedure) implements ConnectorPageSink {
        @Override
        public CompletableFuture<?> appendPage(Page page) {
            if (page.getPositionCount() > 0) {
                throw new TrinoException(
                        GENERIC_INTERNAL_ERROR,
                        "ALTER TABLE ... EXECUTE %s reads no rows, but its writer got %s"
                                .formatted(procedure.procedureName(), page.getPositionCount()));
            }
            return NOT_BLOCKED;
        }

        @Override
        public CompletableFuture<Collection<Slice>> finish() {
            return CompletableFuture.completedFuture(List.of());
        }

        @Override
        public void abort() {}
    }

    private ConnectorPageSink pageSink(LakestreamInsertTableHandle handle) {
        try {
            return new LakestreamPageSink(
                    catalog.loadTable(handle.table(), handle.tableUuid()),
                    handle.columns(),
                    handle.leaseId(),
                    allocator);
        } catch (LakestreamException e) {
            // e.g. the lake was changed outside Lakestream after the query started
            throw toTrinoException(e);
        }
    }
}
