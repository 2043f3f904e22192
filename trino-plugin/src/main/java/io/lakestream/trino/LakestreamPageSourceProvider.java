package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.lakestream.plan.UnionSplit;
import io.trino.filesystem.TrinoFileSystem;
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

/**
 * Opens a split: with Trino's Parquet reader when it has no log tail and no deletes (the fast path,
 * see {@link LakestreamReadPath}), otherwise with the engine-neutral union split reader.
 */
public final class LakestreamPageSourceProvider implements ConnectorPageSourceProvider {
    private final LakestreamCatalogAccess catalog;
    private final TrinoFileSystem fileSystem;
    private final BufferAllocator allocator;

    @Inject
    public LakestreamPageSourceProvider(
            LakestreamCatalogAccess catalog, TrinoFileSystem fileSystem, BufferAllocator allocator) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
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
        UnionSplit unionSplit = ((LakestreamSplit) split).unionSplit();
        List<LakestreamColumnHandle> columnHandles =
                columns.stream().map(LakestreamColumnHandle.class::cast).toList();
        ConnectorPageSource source;
        if (LakestreamReadPath.choose(session, handle, unionSplit, columnHandles) == LakestreamReadPath.LAKE_PARQUET) {
            source = new LakeParquetPageSource(
                    () -> catalog.loadTable(handle), fileSystem, handle, unionSplit, columnHandles);
        } else {
            source = new LakestreamPageSource(catalog.loadTable(handle), handle, unionSplit, columnHandles, allocator);
        }
        return new ClassLoaderSafePageSource(source, getClass().getClassLoader());
    }
}
