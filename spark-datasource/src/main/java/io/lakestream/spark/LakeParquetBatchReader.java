package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.merge.LakeRowSelector;
import io.lakestream.merge.LakeThenTailSplit;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A split read by Spark's own Parquet reader ({@link io.lakestream.merge.LakeReadPath}): the kept rows of its lake
 * files' batches ({@link LakeParquetBatches}), then, for a primary-key split with a log tail, the tail's last
 * upserts ({@link UnionSplitBatchReader} over the tail alone). The sequencing, the limit and which lake rows are
 * kept are the engine-neutral {@link LakeThenTailSplit}'s; this class adapts it to the scan's split reader.
 */
final class LakeParquetBatchReader implements SplitBatchReader {
    private final LakeParquetBatches lake;
    private final LakeRowSelector selector;
    private final LakeThenTailSplit<ColumnarBatch> split;
    private Optional<SplitBatchReader> tail = Optional.empty();
    private ColumnarBatch batch;

    /**
     * @param lake the split's lake files
     * @param selector drops the rows Iceberg's deletes remove and those whose key the split's log tail changes
     * @param tail opens the reader of the tail's winners, once the lake side is done, if the split has a tail
     * @param limit the most rows to return
     */
    LakeParquetBatchReader(
            LakeParquetBatches lake, LakeRowSelector selector, Optional<Supplier<SplitBatchReader>> tail, long limit) {
        this.lake = requireNonNull(lake, "lake is null");
        this.selector = requireNonNull(selector, "selector is null");
        requireNonNull(tail, "tail is null");
        this.split = new LakeThenTailSplit<>(
                lake,
                selector,
                tail.map(opener -> () -> {
                    SplitBatchReader reader = opener.get();
                    this.tail = Optional.of(reader);
                    return new TailReaderBatches(reader);
                }),
                limit);
    }

    @Override
    public boolean next() {
        batch = split.next();
        return batch != null;
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public long lakeRows() {
        return selector.lakeRows();
    }

    @Override
    public long logRows() {
        return tail.map(SplitBatchReader::logRows).orElse(0L);
    }

    @Override
    public long lakeRowsHidden() {
        return selector.lakeRowsHidden();
    }

    @Override
    public long tailsOpened() {
        return split.inTail() ? 1 : 0;
    }

    @Override
    public long rowGroupsSkipped() {
        return lake.rowGroupsSkipped();
    }

    @Override
    public void close() {
        batch = null;
        split.close();
    }

    /** The tail's winners from the union split reader over the tail alone. */
    private record TailReaderBatches(SplitBatchReader reader) implements LakeThenTailSplit.TailBatches<ColumnarBatch> {
        @Override
        public ColumnarBatch next() {
            return reader.next() ? reader.get() : null;
        }

        @Override
        public int rowCount(ColumnarBatch batch) {
            return batch.numRows();
        }

        @Override
        public ColumnarBatch firstRows(ColumnarBatch batch, int size) {
            // the first rows of a batch are a prefix of its vectors
            ColumnVector[] columns = new ColumnVector[batch.numCols()];
            for (int i = 0; i < columns.length; i++) {
                columns[i] = batch.column(i);
            }
            return new ColumnarBatch(columns, size);
        }

        @Override
        public void close() {
            reader.close();
        }
    }
}
