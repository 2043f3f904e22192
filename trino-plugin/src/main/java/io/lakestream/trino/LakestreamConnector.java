package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.airlift.bootstrap.LifeCycleManager;
import io.airlift.log.Logger;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorMetadata;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorPageSinkProvider;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorPageSourceProvider;
import io.trino.plugin.base.classloader.ClassLoaderSafeConnectorSplitManager;
import io.trino.plugin.base.classloader.ClassLoaderSafeNodePartitioningProvider;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorCapabilities;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorPageSourceProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.session.PropertyMetadata;
import io.trino.spi.transaction.IsolationLevel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;

public final class LakestreamConnector implements Connector {
    private static final Logger log = Logger.get(LakestreamConnector.class);
    private static final ClassLoader CLASS_LOADER = LakestreamConnector.class.getClassLoader();

    private final LifeCycleManager lifeCycleManager;
    private final LakestreamMetadata metadata;
    private final LakestreamSplitManager splitManager;
    private final LakestreamPageSourceProvider pageSourceProvider;
    private final LakestreamPageSinkProvider pageSinkProvider;
    private final LakestreamNodePartitioningProvider nodePartitioningProvider;
    private final BufferAllocator allocator;
    private final LakestreamCatalogAccess catalog;
    private final LakestreamLogFileSystem logFileSystem;

    @Inject
    public LakestreamConnector(
            LifeCycleManager lifeCycleManager,
            LakestreamMetadata metadata,
            LakestreamSplitManager splitManager,
            LakestreamPageSourceProvider pageSourceProvider,
            LakestreamPageSinkProvider pageSinkProvider,
            LakestreamNodePartitioningProvider nodePartitioningProvider,
            BufferAllocator allocator,
            LakestreamCatalogAccess catalog,
            LakestreamLogFileSystem logFileSystem) {
        this.lifeCycleManager = requireNonNull(lifeCycleManager, "lifeCycleManager is null");
        this.metadata = requireNonNull(metadata, "metadata is null");
        this.splitManager = requireNonNull(splitManager, "splitManager is null");
        this.pageSourceProvider = requireNonNull(pageSourceProvider, "pageSourceProvider is null");
        this.pageSinkProvider = requireNonNull(pageSinkProvider, "pageSinkProvider is null");
        this.nodePartitioningProvider = requireNonNull(nodePartitioningProvider, "nodePartitioningProvider is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.logFileSystem = requireNonNull(logFileSystem, "logFileSystem is null");
    }

    /**
     * What this connector instance (one per catalog and node) read so far to find tables' state, for tests
     * and benchmarks: {@code catalogReads} (lookups and refreshes of a table's current metadata; {@code
     * backgroundCatalogReads} of them by the background lake refresh, off the queries' path) and {@code
     * logFileReads} (log commit, checkpoint, hint and identity files read or looked for; segments not
     * counted), and the log file reads by kind ({@link LogFileReads#asMap}); and {@code pinnedTableLoads}, the
     * query steps that asked for the table their handle pinned (from memory, no file read). A map, so that callers
     * in other class loaders can read it.
     */
    public Map<String, Long> metadataReads() {
        Map<String, Long> reads = new HashMap<>(logFileSystem.smallFileReads().asMap());
        reads.put("catalogReads", catalog.catalogReads());
        reads.put("backgroundCatalogReads", catalog.backgroundCatalogReads());
        reads.put("pinnedTableLoads", catalog.pinnedTableLoads());
        return Map.copyOf(reads);
    }

    /** Waits until this connector instance's background lake refreshes started so far have finished, for tests. */
    public void awaitLakeRefreshes() throws InterruptedException {
        catalog.awaitLakeRefreshes();
    }

    /**
     * The bytes of Arrow memory this connector instance's readers and writers hold right now, for tests: 0 once
     * every split and sink is closed, whether its query succeeded or failed.
     */
    public long arrowMemoryAllocated() {
        return allocator.getAllocatedMemory();
    }

    /**
     * The child allocators (one per open split and per open writer) of this connector instance, for tests: none
     * once every split and sink is closed. A child left open keeps its bytes and stays registered forever.
     */
    public long arrowAllocatorsOpen() {
        return allocator.getChildAllocators().size();
    }

    @Override
    public ConnectorTransactionHandle beginTransaction(
            IsolationLevel isolationLevel, boolean readOnly, boolean autoCommit) {
        return LakestreamTransactionHandle.INSTANCE;
    }

    @Override
    public ConnectorMetadata getMetadata(ConnectorSession session, ConnectorTransactionHandle transaction) {
        return new ClassLoaderSafeConnectorMetadata(metadata, CLASS_LOADER);
    }

    // Every entry point runs with the plugin's class loader as the context class loader: Iceberg and
    // Hadoop load classes through it, and Trino's threads carry the engine's (the ClassLoaderSafe
    // wrappers are the ones Trino's own connectors use)

    @Override
    public ConnectorSplitManager getSplitManager() {
        return new ClassLoaderSafeConnectorSplitManager(splitManager, CLASS_LOADER);
    }

    @Override
    public ConnectorPageSourceProvider getPageSourceProvider() {
        return new ClassLoaderSafeConnectorPageSourceProvider(pageSourceProvider, CLASS_LOADER);
    }

    @Override
    public ConnectorPageSinkProvider getPageSinkProvider() {
        return new ClassLoaderSafeConnectorPageSinkProvider(pageSinkProvider, CLASS_LOADER);
    }

    @Override
    public ConnectorNodePartitioningProvider getNodePartitioningProvider() {
        return new ClassLoaderSafeNodePartitioningProvider(nodePartitioningProvider, CLASS_LOADER);
    }

    @Override
    public List<PropertyMetadata<?>> getTableProperties() {
        return LakestreamTableProperties.PROPERTIES;
    }

    @Override
    public Set<TableProcedureMetadata> getTableProcedures() {
        return LakestreamTableProcedure.all();
    }

    @Override
    public List<PropertyMetadata<?>> getSessionProperties() {
        return LakestreamSessionProperties.PROPERTIES;
    }

    @Override
    public Set<ConnectorCapabilities> getCapabilities() {
        return Set.of(ConnectorCapabilities.NOT_NULL_COLUMN_CONSTRAINT);
    }

    @Override
    public void shutdown() {
        lifeCycleManager.stop();
        try {
            allocator.close();
        } catch (IllegalStateException e) {
            // Arrow refuses to close while buffers are outstanding: report it, the process is going away
            log.warn(e, "Arrow memory of the Lakestream catalog was not fully released at shutdown");
        }
    }
}
