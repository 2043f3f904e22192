package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.predicate.TupleDomain;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * One {@code ALTER TABLE ... EXECUTE} of a table procedure: the table and the procedure's arguments (sizes in
 * bytes, durations in milliseconds; absent = the tiering service's default), and for {@code compact} the {@code
 * WHERE} clause as the constraint the connector enforced on the procedure's scan ({@link #withConstraint}).
 */
public record LakestreamTableExecuteHandle(
        String schemaName,
        String tableName,
        LakestreamTableProcedure procedure,
        OptionalLong targetFileSizeBytes,
        OptionalLong retentionMillis,
        OptionalInt retainLast,
        TupleDomain<LakestreamColumnHandle> constraint)
        implements ConnectorTableExecuteHandle {
    public LakestreamTableExecuteHandle {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
        requireNonNull(procedure, "procedure is null");
        requireNonNull(targetFileSizeBytes, "targetFileSizeBytes is null");
        requireNonNull(retentionMillis, "retentionMillis is null");
        requireNonNull(retainLast, "retainLast is null");
        requireNonNull(constraint, "constraint is null");
    }

    public LakestreamTableExecuteHandle withConstraint(TupleDomain<LakestreamColumnHandle> newConstraint) {
        return new LakestreamTableExecuteHandle(
                schemaName, tableName, procedure, targetFileSizeBytes, retentionMillis, retainLast, newConstraint);
    }
}
