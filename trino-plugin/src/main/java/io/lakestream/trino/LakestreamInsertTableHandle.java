package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.log.WriterLease;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.SchemaTableName;
import java.util.List;
import java.util.UUID;

/**
 * A write into a Lakestream table ({@code INSERT} or {@code CREATE TABLE AS}): tasks write log
 * segments, the coordinator publishes them as one log commit.
 *
 * @param schemaName schema of the table
 * @param tableName the table
 * @param columns the columns of the inserted pages, in page channel order
 * @param leaseId the writer lease the coordinator holds for this write: tasks name their segments after it
 * @param tableUuid the table the query planned the write for: if the name now means another table (it
 *     was dropped and re-created) or none, the write fails with {@code TABLE_DROPPED}
 */
public record LakestreamInsertTableHandle(
        String schemaName, String tableName, List<LakestreamColumnHandle> columns, String leaseId, UUID tableUuid)
        implements ConnectorInsertTableHandle, ConnectorOutputTableHandle {
    public LakestreamInsertTableHandle {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        WriterLease.checkId(leaseId);
        requireNonNull(tableUuid, "tableUuid is null");
    }

    public SchemaTableName table() {
        return new SchemaTableName(schemaName, tableName);
    }
}
