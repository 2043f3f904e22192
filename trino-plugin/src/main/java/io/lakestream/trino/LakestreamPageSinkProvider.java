package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
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
        return new LakestreamPageSink(catalog.loadTable(handle.table()), handle.columns(), handle.leaseId(), allocator);
    }

    @Override
    public ConnectorPageSink createPageSink(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorInsertTableHandle insertTableHandle,
            Optional<ConnectorTableCredentials> credentials,
            ConnectorPageSinkId pageSinkId) {
        LakestreamInsertTableHandle handle = (LakestreamInsertTableHandle) insertTableHandle;
        return new LakestreamPageSink(catalog.loadTable(handle.table()), handle.columns(), handle.leaseId(), allocator);
    }

    @Override
    public ConnectorMergeSink createMergeSink(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorMergeTableHandle mergeHandle,
            Optional<ConnectorTableCredentials> credentials,
            ConnectorPageSinkId pageSinkId) {
        LakestreamMergeTableHandle handle = (LakestreamMergeTableHandle) mergeHandle;
        LakestreamTableHandle table = handle.tableHandle();
        return new LakestreamMergeSink(
                catalog.loadTable(table.baseTable()), table.baseTable().toString(), handle.leaseId(), allocator);
    }
}
