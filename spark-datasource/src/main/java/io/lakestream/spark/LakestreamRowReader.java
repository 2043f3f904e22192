package io.lakestream.spark;

import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Rows over the columnar reader, for a Spark plan that asks for rows. */
final class LakestreamRowReader implements PartitionReader<InternalRow> {
    private final PartitionReader<ColumnarBatch> batches;
    private Iterator<InternalRow> rows = Collections.emptyIterator();
    private InternalRow current;

    LakestreamRowReader(PartitionReader<ColumnarBatch> batches) {
        this.batches = batches;
    }

    @Override
    public boolean next() throws IOException {
        while (!rows.hasNext()) {
            if (!batches.next()) {
                return false;
            }
            rows = batches.get().rowIterator();
        }
        current = rows.next();
        return true;
    }

    @Override
    public InternalRow get() {
        return current;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return batches.currentMetricsValues();
    }

    @Override
    public void close() throws IOException {
        batches.close();
    }
}
