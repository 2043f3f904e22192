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
 * constant change columns in front of its rows when the stream is a changelog.
 *
 * @param rows the union read of the table's rows
 * @param changes the read of log ranges (as changes on the changelog, as rows on an append-only table)
 * @param changelog whether rows carry the change columns
 * @param stateChangeType the change type of the state's rows on the changelog
 */
record LakestreamStreamReaderFactory(
        LakestreamReaderFactory rows, LakestreamReaderFactory changes, boolean changelog, String stateChangeType)
        implements PartitionReaderFactory {
    LakestreamStreamReaderFactory {
        requireNonNull(rows, "rows is null");
        requireNonNull(changes, "changes is null");
        requireNonNull(stateChangeType, "stateChangeType is null");
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        UnionSplit split = ((LakestreamInputPartition) partition).split();
        if (split.mode() == ReadMode.CHANGES) {
            return new LakestreamPartitionReader(changes, split);
        }
        LakestreamPartitionReader reader = new LakestreamPartitionReader(rows, split);
        // on the changelog a union split is the table's state; elsewhere its rows are what the stream returns
        return changelog ? new StateChangeColumns(reader, stateChangeType, split.bucket()) : reader;
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        // Spark reads columnar batches (supportColumnarReads); rows are only a fallback
        return new LakestreamRowReader(createColumnarReader(partition));
    }
}
