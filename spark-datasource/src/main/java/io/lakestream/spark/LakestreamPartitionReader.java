package io.lakestream.spark;

import io.lakestream.merge.LakeReadPath;
import io.lakestream.plan.LogRange;
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
    private final long logSegments;
    private long returnedValues;

    LakestreamPartitionReader(LakestreamReaderFactory factory, UnionSplit split) {
        LakestreamTable table = factory.table().load();
        Expression filter = ExpressionParser.fromJson(
                factory.filterJson(), table.definition().schema());
        this.path = SplitBatchReaders.readPath(table, split, factory.readFields(table), filter, factory.maxIndexRows());
        this.reader = SplitBatchReaders.open(path, table, split, factory, filter);
        this.logSegments = logSegments(table, split);
    }

    /** The segments holding the split's log range, from the segments it carries or the log at its version. */
    private static long logSegments(LakestreamTable table, UnionSplit split) {
        if (split.logRange().isEmpty() || split.logRange().get().isEmpty()) {
            return 0;
        }
        LogRange range = split.logRange().get();
        return range.in(split.logSnapshot(table.log()))
                .segmentsOverlapping(range.from(), range.to())
                .size();
    }

    /** The log segments the split reads (0 for a split without a log range, such as a lake-only one). */
    long logSegments() {
        return logSegments;
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
        return LakestreamMetrics.values(reader, path, returnedValues, logSegments);
    }

    @Override
    public void close() {
        reader.close();
    }
}
