package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.log.WriterLease;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.SchemaTableName;
import java.util.List;

/**
 * A write into a Lakestream table ({@code INSERT} or {@code CREATE TABLE AS}): tasks write log
 * segments, the coordinator publishes them as one log commit.
 *
 * @param schemaName schema of the table
 * @param tableName the table
 * @param columns the columns of the inserted pages, in page channel order
 * @param leaseId the writer lease the coordinator holds for this write: tasks name their segments after it
 */
public record LakestreamInsertTableHandle(
        String schemaName, String tableName, List<LakestreamColumnHandle> columns, String leaseId)
        implements ConnectorInsertTableHandle, ConnectorOutputTableHandle {
    public LakestreamInsertTableHandle {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        WriterLease.checkId(leaseId);
    }

    public SchemaTableName table() {
        return new SchemaTableName(schemaName, tableName);
    }
}
