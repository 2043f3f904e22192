package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_COMMIT_ERROR;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_NOT_SUPPORTED;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamTable;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SchemaTableName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
        return new LakestreamInsertTableHandle(table.schemaName(), table.tableName(), columns);
    }

    /** Called once the table of a {@code CREATE TABLE AS} exists. */
    public LakestreamInsertTableHandle beginCreate(String queryId, SchemaTableName name, LakestreamTable table) {
        pendingCreates.put(queryId, name);
        return new LakestreamInsertTableHandle(
                name.getSchemaName(), name.getTableName(), LakestreamColumns.userColumns(table.definition()));
    }

    public void finishCreate(String queryId, LakestreamInsertTableHandle handle, Collection<Slice> fragments) {
        commit(queryId, handle, fragments);
        pendingCreates.remove(queryId);
    }

    /** Publishes the segments all tasks wrote as one log commit; the query id makes a retried commit a no-op. */
    public void commit(String queryId, LakestreamInsertTableHandle handle, Collection<Slice> fragments) {
        List<StagedSegment> segments = new ArrayList<>(fragments.size());
        for (Slice fragment : fragments) {
            segments.add(LakestreamPageSink.readFragment(fragment));
        }
        if (segments.isEmpty()) {
            return;
        }
        LakestreamTable table = catalog.loadTable(handle.table());
        try {
            StreamLog.CommitResult result = table.log().commit(segments, Optional.of(queryId));
            if (result.alreadyApplied()) {
                table.log().discard(segments);
            }
            log.debug(
                    "Query %s wrote %s segments into %s: log version %s",
                    queryId, segments.size(), handle.table(), result.version());
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        } catch (RuntimeException e) {
            throw new TrinoException(
                    LAKESTREAM_COMMIT_ERROR,
                    "Committing the write into %s failed, so its rows are not visible: %s"
                            .formatted(handle.table(), e.getMessage()),
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

    public static void requireNoRetries(RetryMode retryMode, String operation) {
        if (retryMode != RetryMode.NO_RETRIES) {
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "%s into Lakestream tables does not support fault-tolerant execution (retry mode %s) yet; run it with retry_policy NONE"
                            .formatted(operation, retryMode));
        }
    }
}
