package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_FILESYSTEM_ERROR;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_INVALID_CATALOG_CONFIG;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_TABLE_NOT_FOUND;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakeReuse;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.catalog.LakestreamTableCache;
import io.lakestream.catalog.PinnedTable;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.plan.LakeFileCache;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaHistory;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The connector's one handle on the Iceberg catalog: opens it from the catalog properties and turns
 * its errors into Trino errors. A Trino schema is a one-level Iceberg namespace.
 *
 * <p>Tables are loaded through a {@link LakestreamTableCache}: a query pins the table state when it
 * resolves the name ({@link #pinTable}), and its later steps get that state from memory ({@link
 * #loadTable(LakestreamTableHandle)}). The lake files of a snapshot are planned once ({@link
 * #lakeFiles}). A union read pins a recently loaded lake ({@link #pinForUnionRead}): it reads no catalog
 * while the lake is recent, and a background thread refreshes the lake and plans its new snapshot.
 */
public final class LakestreamCatalogAccess {
    private final LakestreamCatalog catalog;
    private final LakestreamTableCache tables;
    private final LakeFileCache lakeFiles;
    private final ExecutorService lakeRefresher;
    private final LongAdder pinnedTableLoads = new LongAdder();

    @Inject
    public LakestreamCatalogAccess(
            LakestreamConfig config, TrinoFileSystem fileSystem, LakestreamLogFileSystem logFileSystem) {
        this(open(config, fileSystem, logFileSystem), config);
    }

    /** With the default cache sizes. */
    public LakestreamCatalogAccess(LakestreamCatalog catalog) {
        this(catalog, new LakestreamConfig());
    }

    /**
     * @param config the sizes of the caches: tables whose loaded state is kept (and twice as many lake
     *     metadata versions), planned lake data files over all tables and snapshots
     */
    private LakestreamCatalogAccess(LakestreamCatalog catalog, LakestreamConfig config) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.lakeFiles = new LakeFileCache(config.getMetadataCacheMaxLakeFiles());
        // one thread: refreshes are rare (one per table and refresh interval) and must not compete with queries.
        // Iceberg loads classes through the context class loader: the plugin's, as on the query threads
        this.lakeRefresher = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "lakestream-lake-refresh");
            thread.setDaemon(true);
            thread.setContextClassLoader(LakestreamCatalogAccess.class.getClassLoader());
            return thread;
        });
        LakeReuse reuse = config.lakeReuse();
        this.tables = new LakestreamTableCache(
                catalog,
                config.getMetadataCacheMaxTables(),
                reuse,
                Clock.systemUTC(),
                lakeRefresher,
                table -> lakeFiles.prepare(table.lake()));
    }

    /** The catalog, with the lake's file IO and the log over Trino's file system layer. */
    private static LakestreamCatalog open(
            LakestreamConfig config, TrinoFileSystem fileSystem, LakestreamLogFileSystem logFileSystem) {
        ImmutableMap.Builder<String, String> properties = ImmutableMap.builder();
        config.getCatalogUser().ifPresent(user -> properties.put("jdbc.user", user));
        config.getCatalogPassword().ifPresent(password -> properties.put("jdbc.password", password));
        config.getCatalogCredential().ifPresent(credential -> properties.put("credential", credential));
        config.getCatalogToken().ifPresent(token -> properties.put("token", token));
        // manifests are immutable files with unique names: keep their bytes, so planning a new snapshot
        // reads only the manifests it added (Iceberg's content cache of the file IO; bounded, expires)
        properties.put(CatalogProperties.IO_MANIFEST_CACHE_ENABLED, "true");
        checkFileSystemEnabled(fileSystem, config.getWarehouse());
        try {
            return LakestreamCatalog.open(
                    new CatalogConfig(
                            config.getCatalogType(),
                            config.getWarehouse(),
                            config.getCatalogUri(),
                            properties.buildOrThrow()),
                    catalogProperties -> {
                        LakestreamFileIo io = new LakestreamFileIo(fileSystem);
                        io.initialize(catalogProperties);
                        return io;
                    },
                    location -> logFileSystem);
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }

    /** A warehouse whose scheme no enabled file system serves is a configuration mistake: say which property fixes it. */
    private static void checkFileSystemEnabled(TrinoFileSystem fileSystem, String warehouse) {
        Location location = LakestreamLocations.of(warehouse);
        try {
            fileSystem.newInputFile(location.appendPath("lakestream-check"));
        } catch (IllegalArgumentException e) {
            throw new TrinoException(
                    LAKESTREAM_INVALID_CATALOG_CONFIG,
                    "No file system is enabled for the warehouse %s (%s): enable the one for its scheme (fs.local.enabled, fs.s3.enabled, fs.gcs.enabled, fs.azure.enabled or fs.hadoop.enabled)"
                            .formatted(warehouse, e.getMessage()),
                    e);
        }
    }

    public LakestreamCatalog catalog() {
        return catalog;
    }

    /** The lake files of recently read snapshots, for split planning. */
    public LakeFileCache lakeFiles() {
        return lakeFiles;
    }

    public static Namespace namespace(String schemaName) {
        return Namespace.of(schemaName);
    }

    public static TableIdentifier identifier(SchemaTableName name) {
        return TableIdentifier.of(namespace(name.getSchemaName()), name.getTableName());
    }

    /** The table as it is now, or empty if it does not exist. */
    public Optional<LakestreamTable> findTable(SchemaTableName name) {
        return find(name, () -> tables.current(identifier(name)));
    }

    /** The table as it is now, pinned for a query; empty if it does not exist. */
    public Optional<PinnedTable> pinTable(SchemaTableName name) {
        return find(name, () -> tables.pinCurrent(identifier(name)));
    }

    /**
     * The table pinned for a union read: the log's newest version with a lake the catalog had at most
     * {@code lakestream.metadata-cache.lake-max-staleness} ago (exact all the same, see {@link LakeReuse});
     * empty if it does not exist.
     */
    public Optional<PinnedTable> pinForUnionRead(SchemaTableName name) {
        return find(name, () -> tables.pinRecent(identifier(name)));
    }

    /** After DDL on a table through this connector: its next union read reads the catalog. */
    public void invalidate(SchemaTableName name) {
        tables.invalidate(identifier(name));
    }

    /** How many times this connector read a table's current metadata from the catalog (for tests and benchmarks). */
    public long catalogReads() {
        return tables.catalogReads();
    }

    /**
     * Waits until every background lake refresh started so far has finished, for tests: the refresher is one thread
     * that runs its tasks in order, so a no-op queued behind them runs last.
     */
    public void awaitLakeRefreshes() throws InterruptedException {
        try {
            lakeRefresher.submit(() -> {}).get();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the no-op behind the lake refreshes failed", e);
        }
    }

    /** How many of {@link #catalogReads} the background lake refresh made (off every query's path). */
    public long backgroundCatalogReads() {
        return tables.backgroundCatalogReads();
    }

    /** The table as it is now (e.g. to write to it); a clear error if it was dropped since the query was planned. */
    public LakestreamTable loadTable(SchemaTableName name) {
        return findTable(name)
                .orElseThrow(() -> new TrinoException(
                        LAKESTREAM_TABLE_NOT_FOUND, "Table %s does not exist (was it dropped?)".formatted(name)));
    }

    /**
     * The table as it is now, if it is still the table a write was planned for: {@code TABLE_DROPPED} if
     * it was dropped, or dropped and re-created, since. The log commit checks the same again (its
     * identity record), so a drop after this call is caught too.
     */
    public LakestreamTable loadTable(SchemaTableName name, UUID tableUuid) {
        Optional<LakestreamTable> table = findTable(name);
        if (table.isEmpty()) {
            throw toTrinoException(new LakestreamException(
                    LakestreamError.TABLE_DROPPED,
                    "Table %s was dropped while this query ran; nothing was written. Re-run the query if the table was re-created"
                            .formatted(name)));
        }
        if (!table.get().lake().uuid().equals(tableUuid)) {
            throw toTrinoException(new LakestreamException(
                    LakestreamError.TABLE_DROPPED,
                    ("Table %s was dropped and re-created while this query ran (the query's table UUID %s, now %s); "
                                    + "nothing was written into the new table. Re-run the query")
                            .formatted(name, tableUuid, table.get().lake().uuid())));
        }
        return table.get();
    }

    /**
     * How many times a query step asked for the table its handle pinned ({@link #loadTable(LakestreamTableHandle)}),
     * for tests and benchmarks: each is served from memory, but what the handle carries itself needs none.
     */
    public long pinnedTableLoads() {
        return pinnedTableLoads.sum();
    }

    /**
     * The table in the state the handle's query pinned, with the schema the handle reads (for time travel the one
     * current at its version, {@link SchemaHistory}).
     */
    public LakestreamTable loadTable(LakestreamTableHandle handle) {
        pinnedTableLoads.increment();
        try {
            LakestreamTable table = tables.pinned(
                    identifier(handle.baseTable()),
                    handle.pin().lakeMetadataLocation(),
                    handle.pin().logVersion());
            return handle.schemaId().isPresent()
                    ? SchemaHistory.withSchema(table, handle.schemaId().getAsInt())
                    : table;
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }

    private static <T> Optional<T> find(SchemaTableName name, Supplier<T> load) {
        try {
            return Optional.of(load.get());
        } catch (LakestreamException e) {
            // no table can have a name the catalog refuses: Trino asks whether such a table exists (e.g. before RENAME
            // TO)
            if (e.error() == LakestreamError.TABLE_NOT_FOUND
                    || e.error() == LakestreamError.NAMESPACE_NOT_FOUND
                    || e.error() == LakestreamError.INVALID_NAME) {
                return Optional.empty();
            }
            throw toTrinoException(e);
        }
    }

    @PreDestroy
    public void close() {
        lakeRefresher.shutdownNow();
        try {
            catalog.close();
        } catch (IOException e) {
            throw new TrinoException(LAKESTREAM_FILESYSTEM_ERROR, "Cannot close the Iceberg catalog", e);
        }
    }
}
