package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorTableCredentials;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.DynamicFilter;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;

/** Opens a split with the engine-neutral union split reader. */
public final class LakestreamPageSourceProvider implements ConnectorPageSourceProvider {
    private final LakestreamCatalogAccess catalog;
    private final BufferAllocator allocator;

    @Inject
    public LakestreamPageSourceProvider(LakestreamCatalogAccess catalog, BufferAllocator allocator) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    @Override
    public ConnectorPageSource createPageSource(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorSplit split,
            ConnectorTableHandle table,
            Optional<ConnectorTableCredentials> credentials,
            List<ColumnHandle> columns,
            DynamicFilter dynamicFilter) {
        LakestreamTableHandle handle = (LakestreamTableHandle) table;
        return new LakestreamPageSource(
                catalog.loadTable(handle.baseTable()),
                handle,
                ((LakestreamSplit) split).unionSplit(),
                columns.stream().map(LakestreamColumnHandle.class::cast).toList(),
                allocator);
    }
}
