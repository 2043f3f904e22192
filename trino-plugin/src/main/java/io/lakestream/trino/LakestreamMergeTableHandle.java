package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.WriterLease;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import java.util.UUID;

/**
 * A {@code DELETE} (or another row change) of a primary-key table: tasks write delete (and upsert)
 * changes into staged log segments, the coordinator publishes them as one log commit.
 *
 * @param tableHandle the table read to find the changed rows
 * @param leaseId the writer lease the coordinator holds for this write: tasks name their segments after it
 * @param tableUuid the table that was read: the changes are written only into its log
 */
public record LakestreamMergeTableHandle(LakestreamTableHandle tableHandle, String leaseId, UUID tableUuid)
        implements ConnectorMergeTableHandle {
    public LakestreamMergeTableHandle {
        requireNonNull(tableHandle, "tableHandle is null");
        WriterLease.checkId(leaseId);
        requireNonNull(tableUuid, "tableUuid is null");
    }

    @Override
    public ConnectorTableHandle getTableHandle() {
        return tableHandle;
    }
}
