package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import java.util.function.Supplier;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A primary-key split with a log tail, merged on Spark batches: first the lake rows, read by Spark's
 * Parquet reader minus the keys the tail changes ({@link LakeParquetBatchReader} with {@link
 * io.lakestream.merge.LakeRowSelector}), then the tail's last upserts ({@link UnionSplitBatchReader} over the tail alone).
 * Each key comes from exactly one side: the lake side drops every key the tail changes, and the tail
 * side returns only the last change of each key, if it is not a delete.
 */
final class LakeParquetMergeBatchReader implements SplitBatchReader {
    private final SplitBatchReader lake;
    private final Supplier<SplitBatchReader> tailReader;
    private SplitBatchReader tail;
    private ColumnarBatch batch;

    /** @param tail opens the reader of the tail's winners, once the lake side is done */
    LakeParquetMergeBatchReader(SplitBatchReader lake, Supplier<SplitBatchReader> tail) {
        this.lake = requireNonNull(lake, "lake is null");
        this.tailReader = requireNonNull(tail, "tail is null");
    }

    @Override
    public boolean next() {
        if (tail == null) {
            if (lake.next()) {
                batch = lake.get();
                return true;
            }
            tail = tailReader.get();
        }
        boolean more = tail.next();
        batch = more ? tail.get() : null;
        return more;
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public long lakeRows() {
        return lake.lakeRows();
    }

    @Override
    public long logRows() {
        return tail == null ? 0 : tail.logRows();
    }

    @Override
    public long lakeRowsHidden() {
        return lake.lakeRowsHidden();
    }

    @Override
    public long rowGroupsSkipped() {
        return lake.rowGroupsSkipped();
    }

    @Override
    public void close() {
        batch = null;
        SplitBatchReader tailToClose = tail;
        // the lake reader is closed even when closing the tail fails
        try (SplitBatchReader lakeToClose = lake) {
            if (tailToClose != null) {
                tailToClose.close();
            }
        }
    }
}
