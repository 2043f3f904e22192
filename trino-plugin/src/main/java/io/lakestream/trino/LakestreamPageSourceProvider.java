package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static io.lakestream.trino.LakestreamSessionProperties.isLakeKeyCacheEnabled;
import static io.lakestream.trino.LakestreamSessionProperties.isNativeParquetReaderEnabled;
import static java.util.Objects.requireNonNull;

import com.google.common.base.Suppliers;
import com.google.inject.Inject;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.SegmentFile;
import io.lakestream.merge.IndexedTail;
import io.lakestream.merge.LakeReadPath;
import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaHistory;
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
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Opens a split the way {@link io.lakestream.merge.LakeReadPath} chooses: Trino's Parquet reader over the lake files
 * (Iceberg deletes applied, a log tail merged on its pages), otherwise the engine-neutral union split
 * reader.
 */
public final class LakestreamPageSourceProvider implements ConnectorPageSourceProvider {
    private final LakestreamCatalogAccess catalog;
    private final TrinoFileSystem fileSystem;
    private final BufferAllocator allocator;
    private final LakeKeyCache keyCache;

    @Inject
    public LakestreamPageSourceProvider(
            LakestreamCatalogAccess catalog,
            TrinoFileSystem fileSystem,
            BufferAllocator allocator,
            LakeKeyCache keyCache) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.keyCache = requireNonNull(keyCache, "keyCache is null");
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
        // the fast path needs the table only for a row id's key columns: load it only when asked
        Supplier<LakestreamTable> lakestreamTable = Suppliers.memoize(() -> catalog.loadTable(handle))::get;
        // the merge with a tail, and equality deletes on the primary key, may take a lake file's keys from the cache
        Optional<LakeKeyCache> lakeKeyCache = isLakeKeyCacheEnabled(session) ? Optional.of(keyCache) : Optional.empty();
        ConnectorPageSource source = switch (readPath(session, handle, unionSplit, columnHandles, lakestreamTable)) {
            case LAKE_PARQUET ->
                new LakeParquetPageSource(
                        new LakeParquetPages(
                                lakestreamTable,
                                fileSystem,
                                handle,
                                unionSplit,
                                columnHandles,
                                Optional.empty(),
                                lakeKeyCache),
                        Optional.empty(),
                        handle.limit());
            case LAKE_PARQUET_MERGE ->
                parquetMerge(lakestreamTable.get(), handle, unionSplit, columnHandles, lakeKeyCache);
            case UNION_SPLIT_READER ->
                new LakestreamPageSource(lakestreamTable.get(), handle, unionSplit, columnHandles, allocator);
        };
        return new ClassLoaderSafePageSource(
                source,
                getClass().getClassLoader(),
                LakestreamMetrics.lakeFiles(unionSplit, logSegments(unionSplit, lakestreamTable)));
    }

    /**
     * The log segments the split reads for its log range: the ones it carries, or, for a range held by more segments
     * than a split carries ({@link UnionSplit#MAX_CARRIED_SEGMENTS}), the ones its reader finds in the log at the
     * split's version (the same snapshot, which the log keeps for the reader).
     */
    private static List<SegmentFile> logSegments(UnionSplit split, Supplier<LakestreamTable> table) {
        if (split.logSegments().isPresent()) {
            return split.logSegments().get();
        }
        if (split.logRange().isEmpty() || split.logRange().get().isEmpty()) {
            return List.of();
        }
        LogRange range = split.logRange().get();
        try {
            return range.in(split.logSnapshot(table.get().log())).segmentsOverlapping(range.from(), range.to());
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }

    /**
     * How the split is read ({@link LakeReadPath}'s rules); Trino's Parquet reader serves every lake column and key,
     * unless the session turned it off, or a time-travel read has a column as the older, narrower type of a
     * widened one (Trino's reader cannot read a {@code double} file column as {@code real}; merge-on-read converts).
     */
    static LakeReadPath readPath(
            ConnectorSession session,
            LakestreamTableHandle table,
            UnionSplit split,
            List<LakestreamColumnHandle> columns,
            Supplier<LakestreamTable> loaded) {
        boolean engineReadsLake = isNativeParquetReaderEnabled(session)
                && readsLakeColumns(table, split, columns)
                && (table.schemaId().isEmpty() || !SchemaHistory.narrowerThanLake(loaded.get()));
        return LakeReadPath.choose(split, engineReadsLake, () -> true, MergeConfig.DEFAULT.maxIndexRows());
    }

    private static boolean readsLakeColumns(
            LakestreamTableHandle table, UnionSplit split, List<LakestreamColumnHandle> columns) {
        return (table.mode() == ReadMode.UNION || table.mode() == ReadMode.LAKE)
                && split.mode() == table.mode()
                // columns the lake files hold (user columns, the primary key as the row id of a DELETE)
                // or that are constant in a lake split ($bucket; $offset, null for lake rows)
                // (arrays, maps, rows and fields of rows too: LakeParquetFields matches their fields by id)
                && columns.stream().allMatch(column -> column.kind() != LakestreamColumnHandle.Kind.CHANGE);
    }

    /** The lake files through Trino's Parquet reader minus the keys the tail changes, then the tail. */
    private ConnectorPageSource parquetMerge(
            LakestreamTable table,
            LakestreamTableHandle handle,
            UnionSplit split,
            List<LakestreamColumnHandle> columns,
            Optional<LakeKeyCache> keyCache) {
        LogRange tail = split.logRange().orElseThrow();
        // the tail is indexed once: its keys hide lake rows, its last upserts follow the lake rows
        IndexedTail indexedTail;
        try (BufferAllocator keyAllocator =
                allocator.newChildAllocator("tail keys of " + handle.viewName(), 0, Long.MAX_VALUE)) {
            indexedTail = IndexedTail.build(table, split.logSnapshot(table.log()), tail, keyAllocator);
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
        UnionSplit tailOnly = split.tailOnly();
        return new LakeParquetPageSource(
                new LakeParquetPages(
                        () -> table,
                        fileSystem,
                        handle,
                        split,
                        columns,
                        Optional.of(indexedTail.changedKeys()),
                        keyCache),
                Optional.of(() -> new LakestreamPageSource(
                        table, handle, tailOnly, columns, allocator, Optional.of(indexedTail))),
                handle.limit());
    }
}
