package io.lakestream.spark;

import io.lakestream.merge.IndexedTail;
import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.MergeCounters;
import io.lakestream.merge.UnionSplitReader;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads a split through the engine-neutral union split reader (merge by key, Iceberg deletes, log
 * ranges, the changelog): its Arrow vectors wrapped in {@link ArrowColumnVector}s without copying.
 */
final class UnionSplitBatchReader implements SplitBatchReader {
    private final BufferAllocator allocator;
    private final MergeCounters counters = new MergeCounters();
    private final UnionSplitReader reader;
    private final List<DataType> types;
    private long remaining;
    private VectorSchemaRoot current;
    private ColumnarBatch batch;

    /**
     * @param types the Spark types of the batches' columns
     * @param lakePruning skips lake row groups it cannot match, never filters rows (Spark applies it)
     * @param limit the most rows to return
     * @param indexedTail the split's log tail, already indexed, when the split is the tail alone of a
     *     merge on Spark's Parquet batches: only the tail's last upserts are read
     */
    UnionSplitBatchReader(
            LakestreamTable table,
            UnionSplit split,
            List<String> columns,
            List<DataType> types,
            Expression filter,
            Expression lakePruning,
            MergeConfig merge,
            long limit,
            Optional<IndexedTail> indexedTail) {
        this.allocator = LakestreamMemory.newTaskAllocator("read-" + table.identifier());
        this.types = List.copyOf(types);
        this.remaining = limit;
        try {
            List<Types.NestedField> fields = LakestreamReaderFactory.readFields(table, columns, this.types);
            this.reader = indexedTail.isPresent()
                    ? UnionSplitReader.projectedTailWinners(
                            table, split, indexedTail.get(), fields, filter, counters, allocator, false)
                    : UnionSplitReader.projected(
                            table, split, fields, filter, lakePruning, merge, counters, allocator, false);
        } catch (RuntimeException e) {
            allocator.close();
            throw e;
        }
    }

    @Override
    public boolean next() {
        releaseBatch();
        if (remaining <= 0 || !reader.hasNext()) {
            return false;
        }
        current = reader.next();
        List<FieldVector> vectors = current.getFieldVectors();
        ColumnVector[] columns = new ColumnVector[vectors.size()];
        for (int i = 0; i < columns.length; i++) {
            columns[i] = wrap(vectors.get(i), types.get(i));
        }
        int rows = (int) Math.min(current.getRowCount(), remaining);
        remaining -= rows;
        batch = new ColumnarBatch(columns, rows);
        return true;
    }

    private static ColumnVector wrap(FieldVector vector, DataType type) {
        if (vector instanceof FixedSizeBinaryVector fixed) {
            return type.sameType(DataTypes.StringType)
                    ? LakestreamFixedBinaryVector.uuid(fixed)
                    : LakestreamFixedBinaryVector.binary(fixed);
        }
        return new ArrowColumnVector(vector);
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public long lakeColumnChunks() {
        return counters.lakeColumnChunks();
    }

    @Override
    public long lakeColumnBytes() {
        return counters.lakeColumnBytes();
    }

    @Override
    public long lakeRows() {
        return counters.lakeRows();
    }

    @Override
    public long logRows() {
        return counters.logRows();
    }

    @Override
    public long lakeRowsHidden() {
        return counters.lakeRowsHidden();
    }

    private void releaseBatch() {
        batch = null;
        if (current != null) {
            current.close();
            current = null;
        }
    }

    @Override
    public void close() {
        releaseBatch();
        try {
            reader.close();
        } finally {
            allocator.close();
        }
    }
}
