package io.lakestream.spark;

import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.MergeCounters;
import io.lakestream.merge.UnionSplitReader;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one split as Spark columnar batches: the union read's Arrow vectors wrapped in {@link
 * ArrowColumnVector}s without copying. A batch stays valid until the next call to {@link #next}.
 */
final class LakestreamPartitionReader implements PartitionReader<ColumnarBatch> {
    private final BufferAllocator allocator;
    private final MergeCounters counters = new MergeCounters();
    private final UnionSplitReader reader;
    private final List<DataType> types;
    private long remaining;
    private VectorSchemaRoot current;
    private ColumnarBatch batch;

    LakestreamPartitionReader(LakestreamReaderFactory factory, UnionSplit split) {
        LakestreamTable table = factory.table().load();
        this.allocator = LakestreamMemory.newTaskAllocator("read-" + table.identifier());
        this.types = List.of(factory.readSchema().fields()).stream()
                .map(field -> field.dataType())
                .toList();
        this.remaining = factory.limit() < 0 ? Long.MAX_VALUE : factory.limit();
        try {
            this.reader = new UnionSplitReader(
                    table,
                    split,
                    factory.columns(),
                    ExpressionParser.fromJson(
                            factory.filterJson(), table.definition().schema()),
                    new MergeConfig(factory.maxIndexRows()),
                    counters,
                    allocator);
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
    public CustomTaskMetric[] currentMetricsValues() {
        return LakestreamMetrics.values(counters);
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
        reader.close();
        allocator.close();
    }
}
