package io.lakestream.spark;

import io.lakestream.merge.LakeReadPath;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one split as Spark columnar batches, the way {@link LakeReadPath} chooses for it. A
 * batch stays valid until the next call to {@link #next}.
 */
final class LakestreamPartitionReader implements PartitionReader<ColumnarBatch> {
    private final LakeReadPath path;
    private final SplitBatchReader reader;
    private long returnedValues;

    LakestreamPartitionReader(LakestreamReaderFactory factory, UnionSplit split) {
        LakestreamTable table = factory.table().load();
        Expression filter = ExpressionParser.fromJson(
                factory.filterJson(), table.definition().schema());
        this.path = SplitBatchReaders.readPath(table, split, factory.columns(), filter, factory.maxIndexRows());
        this.reader = SplitBatchReaders.open(path, table, split, factory, filter);
    }

    @Override
    public boolean next() {
        return reader.next();
    }

    @Override
    public ColumnarBatch get() {
        ColumnarBatch batch = reader.get();
        returnedValues += (long) batch.numRows() * batch.numCols();
        return batch;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return LakestreamMetrics.values(reader, path, returnedValues);
    }

    @Override
    public void close() {
        reader.close();
    }
}
