package io.lakestream.trino;

import static io.lakestream.common.LakestreamError.LOG_COMMIT_CONFLICT;
import static io.lakestream.common.LakestreamError.STAGED_SEGMENT_MISSING;
import static io.lakestream.common.LakestreamError.TABLE_DROPPED;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_COMMIT_ERROR;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_NOT_SUPPORTED;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.log.CommitConflictCheck;
import io.lakestream.log.HeldLease;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.merge.WriteConflictCheck;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableDefinition;
import io.lakestream.tiering.PartitionDeleteFence;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SchemaTableName;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.expressions.Expression;

/**
 * The coordinator side of writes: the handle tasks write with, the one log commit of all their
 * segments, and the clean-up of a {@code CREATE TABLE AS} that did not finish. Every write holds a
 * writer lease from its begin to its finish or clean-up, so the orphan sweep keeps the segments its
 * tasks stage (docs/writes.md, "Writer leases").
 */
public final class LakestreamWrites {
    private static final Logger log = Logger.get(LakestreamWrites.class);

    private final LakestreamCatalogAccess catalog;
    private final BufferAllocator allocator;
    /** Tables a running CREATE TABLE AS created, by query id: dropped if the query does not finish. */
    private final Map<String, SchemaTableName> pendingCreates = new ConcurrentHashMap<>();
    /** The writer lease of each running write, by query id: released when it commits or is cleaned up. */
    private final Map<String, HeldLease> leases = new ConcurrentHashMap<>();

    @Inject
    public LakestreamWrites(LakestreamCatalogAccess catalog, BufferAllocator allocator) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
    }

    public LakestreamInsertTableHandle beginInsert(
            String queryId, LakestreamTableHandle table, List<LakestreamColumnHandle> columns, RetryMode retryMode) {
        requireNoRetries(retryMode, "INSERT");
        // the layout of the lake as it is now: the handle may pin a recent lake (a union read's)
        UUID tableUuid = catalog.loadTable(table).lake().uuid();
        String lease = acquireLease(queryId, requireLakeLayout(catalog.loadTable(table.baseTable(), tableUuid)));
        return new LakestreamInsertTableHandle(table.schemaName(), table.tableName(), columns, lease, tableUuid);
    }

    /** Called once the table of a {@code CREATE TABLE AS} exists. */
    public LakestreamInsertTableHandle beginCreate(String queryId, SchemaTableName name, LakestreamTable table) {
        pendingCreates.put(queryId, name);
        return new LakestreamInsertTableHandle(
                name.getSchemaName(),
                name.getTableName(),
                LakestreamColumns.userColumns(table.definition()),
                acquireLease(queryId, table),
                table.lake().uuid());
    }

    public void finishCreate(String queryId, LakestreamInsertTableHandle handle, Collection<Slice> fragments) {
        commit(queryId, handle, fragments);
        pendingCreates.remove(queryId);
    }

    /** Publishes the segments all tasks wrote as one log commit; the query id makes a retried commit a no-op. */
    public void commit(String queryId, LakestreamInsertTableHandle handle, Collection<Slice> fragments) {
        try {
            commitFragments(queryId, handle.table(), handle.tableUuid(), fragments);
        } finally {
            releaseLease(queryId);
        }
    }

    /**
     * Publishes the changes all tasks of a {@code DELETE}, {@code UPDATE} or {@code MERGE} wrote as one
     * log commit: every delete before every upsert, so an updated row's new version wins over its
     * delete. Snapshot isolation: the commit goes through only if no change committed after the log
     * version the statement read touches a key it writes or a row its pushed-down filter may match
     * ({@link WriteConflictCheck}); otherwise its staged segments are discarded and the statement fails
     * with a conflict that says to retry it.
     */
    public void commit(String queryId, LakestreamMergeTableHandle handle, Collection<Slice> fragments) {
        List<StagedSegment> deletes = new ArrayList<>();
        List<StagedSegment> upserts = new ArrayList<>();
        for (Slice fragment : fragments) {
            LakestreamMergeSink.Fragment read = LakestreamMergeSink.Fragment.read(fragment);
            (read.deletes() ? deletes : upserts).add(read.segment());
        }
        deletes.addAll(upserts);
        try {
            commitRowChanges(queryId, handle, deletes);
        } finally {
            releaseLease(queryId);
        }
    }

    /**
     * Publishes a DELETE/UPDATE/MERGE's changes only if no change committed after the version its scan read
     * conflicts with them (snapshot isolation, docs/writes.md).
     */
    private void commitRowChanges(String queryId, LakestreamMergeTableHandle handle, List<StagedSegment> deletes) {
        if (deletes.isEmpty()) {
            return;
        }
        LakestreamTableHandle read = handle.tableHandle();
        LakestreamTable table = catalog.loadTable(read.baseTable(), handle.tableUuid());
        // the filter the scan enforced: implied by the statement's condition (what was not pushed down
        // only makes it broader, so never fewer conflicts)
        Expression condition = LakestreamFilterTranslator.toExpression(read.constraint());
        WriteConflictCheck rows = new WriteConflictCheck(table, condition, allocator);
        // and no partition delete of a partition the statement read or writes, that its read did not see, may land
        // before or after it (docs/writes.md)
        CommitConflictCheck check = PartitionDeleteFence.afterReading(table, readLakeSnapshot(read), condition, rows);
        try {
            StreamLog.CommitResult result = table.log()
                    .commitIfNoConflict(
                            deletes, Optional.of(queryId), read.pin().logVersion(), check);
            log.debug(
                    "Query %s changed rows of %s read at log version %s: log version %s",
                    queryId, read.baseTable(), read.pin().logVersion(), result.version());
        } catch (LakestreamException e) {
            if (e.error() == LOG_COMMIT_CONFLICT || e.error() == STAGED_SEGMENT_MISSING || e.error() == TABLE_DROPPED) {
                // nothing was published: nothing of the statement may remain
                table.log().discard(deletes);
            }
            throw toTrinoException(e);
        } catch (RuntimeException e) {
            throw new TrinoException(
                    LAKESTREAM_COMMIT_ERROR,
                    "Committing the row changes into %s failed, so they are not visible: %s"
                            .formatted(read.baseTable(), e.getMessage()),
                    e);
        }
    }

    /** The lake snapshot the statement's scan read (its pin); empty for an empty lake. */
    private OptionalLong readLakeSnapshot(LakestreamTableHandle read) {
        Snapshot snapshot = catalog.loadTable(read).lake().currentSnapshot();
        return snapshot == null ? OptionalLong.empty() : OptionalLong.of(snapshot.snapshotId());
    }

    /** Writes the query's writer lease into the table's log and keeps it renewed until the query ends. */
    private String acquireLease(String queryId, LakestreamTable table) {
        try {
            HeldLease lease = HeldLease.acquire(table.log(), "trino query " + queryId, Clock.systemUTC());
            HeldLease previous = leases.put(queryId, lease);
            if (previous != null) {
                previous.close();
            }
            return lease.id();
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }

    private void releaseLease(String queryId) {
        HeldLease lease = leases.remove(queryId);
        if (lease != null) {
            lease.close();
        }
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
            if (e.error() == STAGED_SEGMENT_MISSING) {
                // refused before publishing: what is left of the staged files will never be committed
                table.log().discard(segments);
            }
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
        // a write that did not finish: its staged segments are orphans once the lease is gone
        releaseLease(queryId);
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
            String queryId,
            LakestreamTableHandle table,
            Collection<LakestreamColumnHandle> updatedColumns,
            RetryMode retryMode) {
        requireNoRetries(retryMode, "DELETE");
        TableDefinition definition = requirePrimaryKey(table);
        if (table.logVersion().isPresent() || table.asOfTimestampMillis().isPresent()) {
            // the conflict check starts from the version the table was pinned at, which time travel is not
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "Rows of %s cannot be changed through a time-travel read of it".formatted(table.baseTable()));
        }
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
        // as for an insert: the lake as it is now, not the recent one the scan may read
        UUID tableUuid = catalog.loadTable(table).lake().uuid();
        return new LakestreamMergeTableHandle(
                table,
                acquireLease(queryId, requireLakeLayout(catalog.loadTable(table.baseTable(), tableUuid))),
                tableUuid);
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
