package io.lakestream.trino;

import io.lakestream.plan.ReadMode;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableDefinition;
import io.lakestream.tiering.PartitionDelete;
import io.trino.spi.type.RowType;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Trino's side of a DELETE of whole partitions (docs/writes.md "Deleting whole partitions"): {@code applyDelete}
 * takes a DELETE whose {@code WHERE} the connector enforces exactly ({@code applyFilter}'s constraint, nothing left
 * above the scan) when the tiering module's {@link PartitionDelete} says it selects whole partitions of a table with a
 * per-(partition, bucket) log; {@code executeDelete} runs it as one lake commit from the version the statement's
 * handle pinned. Every other DELETE stays a row-level one through {@code beginMerge}.
 */
final class LakestreamPartitionDeletes {
    private LakestreamPartitionDeletes() {}

    /** The handle to execute as a partition delete, or empty to plan the row-level DELETE. */
    static Optional<LakestreamTableHandle> apply(LakestreamTableHandle handle, LakestreamTable table) {
        if (handle.mode() != ReadMode.UNION
                || handle.logVersion().isPresent()
                || handle.asOfTimestampMillis().isPresent()
                || handle.limit().isPresent()
                || !handle.pruning().isAll()
                || handle.constraint().isNone()) {
            return Optional.empty();
        }
        return PartitionDelete.selectsWholePartitions(
                        table, LakestreamFilterTranslator.toExpression(handle.constraint()))
                ? Optional.of(handle)
                : Optional.empty();
    }

    /** Deletes the partitions; the number of rows is not counted (no row is read), as Trino's Iceberg connector. */
    static OptionalLong execute(LakestreamTableHandle handle, LakestreamTable liveTable) {
        new PartitionDelete()
                .delete(
                        liveTable,
                        LakestreamFilterTranslator.toExpression(handle.constraint()),
                        handle.pin().logVersion());
        return OptionalLong.empty();
    }

    /**
     * The row id of a DELETE on an append-only table with a per-(partition, bucket) log, which Trino asks for before
     * it offers the DELETE to {@code applyDelete}: the first column, never read, since such a table takes only
     * partition deletes ({@code beginMerge} refuses the row-level path as for every append-only table).
     */
    static Optional<LakestreamColumnHandle> appendOnlyRowId(LakestreamTable table) {
        TableDefinition definition = table.definition();
        if (definition.hasPrimaryKey() || !table.log().isPartitionedLog()) {
            return Optional.empty();
        }
        var first = definition.schema().columns().getFirst();
        return Optional.of(LakestreamColumnHandle.rowId(
                RowType.from(List.of(RowType.field(first.name(), LakestreamTypes.toTrinoType(first.type()))))));
    }
}
