package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_COMMIT_ERROR;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_NOT_SUPPORTED;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableDefinition;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SchemaTableName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The coordinator side of writes: the handle tasks write with, the one log commit of all their
 * segments, and the clean-up of a {@code CREATE TABLE AS} that did not finish.
 */
public final class LakestreamWrites {
    private static final Logger log = Logger.get(LakestreamWrites.class);

    private final LakestreamCatalogAccess catalog;
    /** Tables a running CREATE TABLE AS created, by query id: dropped if the query does not finish. */
    private final Map<String, SchemaTableName> pendingCreates = new ConcurrentHashMap<>();

    @Inject
    public LakestreamWrites(LakestreamCatalogAccess catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    public LakestreamInsertTableHandle beginInsert(
            LakestreamTableHandle table, List<LakestreamColumnHandle> columns, RetryMode retryMode) {
        requireNoRetries(retryMode, "INSERT");
        LakestreamTable loaded = requireLakeLayout(catalog.loadTable(table));
        return new LakestreamInsertTableHandle(
                table.schemaName(), table.tableName(), columns, loaded.lake().uuid());
    }

    /** Called once the table of a {@code CREATE TABLE AS} exists. */
    public LakestreamInsertTableHandle beginCreate(String queryId, SchemaTableName name, LakestreamTable table) {
        pendingCreates.put(queryId, name);
        return new LakestreamInsertTableHandle(
                name.getSchemaName(),
                name.getTableName(),
                LakestreamColumns.userColumns(table.definition()),
                table.lake().uuid());
    }

    public void finishCreate(String queryId, LakestreamInsertTableHandle handle, Collection<Slice> fragments) {
        commit(queryId, handle, fragments);
        pendingCreates.remove(queryId);
    }

    /** Publishes the segments all tasks wrote as one log commit; the query id makes a retried commit a no-op. */
    public void commit(String queryId, LakestreamInsertTableHandle handle, Collection<Slice> fragments) {
        commitFragments(queryId, handle.table(), handle.tableUuid(), fragments);
    }

    /**
     * Publishes the changes all tasks of a {@code DELETE} wrote as one log commit, like an insert:
     * every delete before every upsert, so an updated row's new version wins over its delete.
     */
    public void commit(String queryId, LakestreamMergeTableHandle handle, Collection<Slice> fragments) {
        List<StagedSegment> deletes = new ArrayList<>();
        List<StagedSegment> upserts = new ArrayList<>();
        for (Slice fragment : fragments) {
            LakestreamMergeSink.Fragment read = LakestreamMergeSink.Fragment.read(fragment);
            (read.deletes() ? deletes : upserts).add(read.segment());
        }
        deletes.addAll(upserts);
        commitSegments(queryId, handle.tableHandle().baseTable(), handle.tableUuid(), deletes);
    }

    private void commitFragments(
            String queryId, SchemaTableName tableName, UUID tableUuid, Collection<Slice> fragments) {
        List<StagedSegment> segments = new ArrayList<>(fragments.size());
        for (Slice fragment : fragments) {
            segments.add(LakestreamPageSink.readFragment(fragment));
        }
        commitSegments(queryId, tableName, tableUuid, segments);
    }

    private void commitSegments(
            String queryId, SchemaTableName tableName, UUID tableUuid, List<StagedSegment> segments) {
        if (segments.isEmpty()) {
            return;
        }
        LakestreamTable table = catalog.loadTable(tableName, tableUuid);
        try {
            StreamLog.CommitResult result = table.log().commit(segments, Optional.of(queryId));
            // already applied: a retried commit of the same query. Its segments are kept, not discarded:
            // they may be the very files the first attempt committed (an orphan is never read).
            log.debug(
                    "Query %s wrote %s segments into %s: log version %s",
                    queryId, segments.size(), tableName, result.version());
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        } catch (RuntimeException e) {
            throw new TrinoException(
                    LAKESTREAM_COMMIT_ERROR,
                    "Committing the write into %s failed, so its rows are not visible: %s"
                            .formatted(tableName, e.getMessage()),
                    e);
        }
    }

    /** The last notice of every query: drops the table of a {@code CREATE TABLE AS} that did not commit. */
    public void cleanupQuery(String queryId) {
        SchemaTableName failedCreate = pendingCreates.remove(queryId);
        if (failedCreate != null) {
            try {
                catalog.catalog().dropTable(LakestreamCatalogAccess.identifier(failedCreate));
            } catch (RuntimeException e) {
                log.warn(e, "Could not drop table %s of a failed CREATE TABLE AS; drop it by hand", failedCreate);
            }
        }
    }

    /**
     * Starts a {@code DELETE}: only a primary-key table has rows a delete change can name, and its key
     * columns cannot be changed (the old and the new key may be written by different tasks).
     */
    public LakestreamMergeTableHandle beginMerge(
            LakestreamTableHandle table, Collection<LakestreamColumnHandle> updatedColumns, RetryMode retryMode) {
        requireNoRetries(retryMode, "DELETE");
        TableDefinition definition = requirePrimaryKey(table);
        List<String> updatedKeys = updatedColumns.stream()
                .map(LakestreamColumnHandle::name)
                .filter(definition.primaryKey()::contains)
                .distinct()
                .toList();
        if (!updatedKeys.isEmpty()) {
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "Primary key columns %s of %s cannot be updated; delete the row and insert it with the new key"
                            .formatted(updatedKeys, table.baseTable()));
        }
        return new LakestreamMergeTableHandle(
                table, requireLakeLayout(catalog.loadTable(table)).lake().uuid());
    }

    /** The definition of a table that rows can be deleted from, or a clear error for an append-only table. */
    public TableDefinition requirePrimaryKey(LakestreamTableHandle table) {
        TableDefinition definition = catalog.loadTable(table).definition();
        if (!definition.hasPrimaryKey()) {
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "DELETE, UPDATE and MERGE are not supported on %s: it is an append-only table (it has no primary key)"
                            .formatted(table.baseTable()));
        }
        return definition;
    }

    /** Before any task writes: a lake changed outside Lakestream is not written into. */
    private static LakestreamTable requireLakeLayout(LakestreamTable table) {
        try {
            LakeLayoutValidator.validate(table);
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
        return table;
    }

    public static void requireNoRetries(RetryMode retryMode, String operation) {
        if (retryMode != RetryMode.NO_RETRIES) {
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "%s into Lakestream tables does not support fault-tolerant execution (retry mode %s) yet; run it with retry_policy NONE"
                            .formatted(operation, retryMode));
        }
    }
}
