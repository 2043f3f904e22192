package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.lakestream.common.LakestreamException;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSinkId;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTransactionHandle;
import java.util.Optional;
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
