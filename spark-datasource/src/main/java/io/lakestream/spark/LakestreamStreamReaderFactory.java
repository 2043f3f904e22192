package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Creates the readers of a stream's splits on the executors: a change split through the changes
 * reader; a split of the table's state (start mode {@code full}) through the union reader, with
 * constant change columns in front of its rows when the stream is a changelog; a range read per key
 * ({@link LakestreamKeyedChangesPartition}) as rows through {@link KeyedChangesReader}.
 *
 * @param rows the union read of the table's rows
 * @param changes the read of log ranges (as changes on the changelog, as rows on an append-only table)
 * @param output what the stream's rows are
 * @param stateChangeType the change type of the state's rows on the changelog
 */
record LakestreamStreamReaderFactory(
        LakestreamReaderFactory rows, LakestreamReaderFactory changes, StreamOutput output, String stateChangeType)
        implements PartitionReaderFactory {
    LakestreamStreamReaderFactory {
        requireNonNull(rows, "rows is null");
        requireNonNull(changes, "changes is null");
        requireNonNull(output, "output is null");
        requireNonNull(stateChangeType, "stateChangeType is null");
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        // a batch's partitions are all of one kind: the state's, or its log ranges
        return !(partition instanceof LakestreamKeyedChangesPartition);
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        UnionSplit split = ((LakestreamInputPartition) partition).split();
        return StreamPartitionReader.open(() -> columnarReader(split), tableName(), describe(split));
    }

    private PartitionReader<ColumnarBatch> columnarReader(UnionSplit split) {
        if (split.mode() == ReadMode.CHANGES) {
            return new LakestreamPartitionReader(changes, split);
        }
        LakestreamPartitionReader reader = new LakestreamPartitionReader(rows, split);
        // on the changelog a union split is the table's state; elsewhere its rows are what the stream returns
        return output.changeColumns()
                ? new StateChangeColumns(
                        reader,
                        stateChangeType,
                        split.bucket(),
                        LakestreamTypes.hasPartitionColumn(changes.readSchema()))
                : reader;
    }

    private String tableName() {
        return String.join(".", rows.table().namespace()) + "." + rows.table().name();
    }

    /** What a split of a stream reads, for its errors. */
    private static String describe(UnionSplit split) {
        String range = split.logRange()
                .map(log -> "log offsets [%s, %s) of %s".formatted(log.from(), log.to(), log.describeLog()))
                .orElse("no log range");
        return split.mode() == ReadMode.CHANGES
                ? range
                : "the table's state at log version %s: its lake files and %s".formatted(split.logVersion(), range);
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        if (partition instanceof LakestreamKeyedChangesPartition keyed) {
            UnionSplit changes = keyed.changes().split();
            String reads = describe(changes)
                    + (keyed.stateBefore().isEmpty()
                            ? ""
                            : ", and the rows its keys held before it (the before images)");
            return StreamPartitionReader.open(() -> new KeyedChangesReader(this, keyed), tableName(), reads);
        }
        // Spark reads columnar batches (supportColumnarReads); rows are only a fallback
        return new LakestreamRowReader(createColumnarReader(partition));
    }
}
