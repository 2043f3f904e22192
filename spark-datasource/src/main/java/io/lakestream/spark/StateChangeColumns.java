package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.execution.vectorized.ConstantColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The rows of a table's state as changelog rows: the change columns in front of each batch, as
 * constants (change type, the split's bucket, no partition, no offset, no commit time), without copying the rows.
 */
final class StateChangeColumns implements PartitionReader<ColumnarBatch> {
    private final PartitionReader<ColumnarBatch> rows;
    private final UTF8String changeType;
    private final OptionalInt bucket;
    private final boolean withPartition;

    StateChangeColumns(
            PartitionReader<ColumnarBatch> rows, String changeType, OptionalInt bucket, boolean withPartition) {
        this.rows = requireNonNull(rows, "rows is null");
        this.changeType = UTF8String.fromString(requireNonNull(changeType, "changeType is null"));
        this.bucket = requireNonNull(bucket, "bucket is null");
        this.withPartition = withPartition;
    }

    @Override
    public boolean next() throws IOException {
        return rows.next();
    }

    @Override
    public ColumnarBatch get() {
        ColumnarBatch batch = rows.get();
        int count = batch.numRows();
        List<ColumnVector> vectors = new ArrayList<>(5 + batch.numCols());
        ConstantColumnVector type = new ConstantColumnVector(count, DataTypes.StringType);
        type.setUtf8String(changeType);
        ConstantColumnVector bucketVector = new ConstantColumnVector(count, DataTypes.IntegerType);
        if (bucket.isPresent()) {
            bucketVector.setInt(bucket.getAsInt());
        } else {
            bucketVector.setNull();
        }
        ConstantColumnVector offset = new ConstantColumnVector(count, DataTypes.LongType);
        offset.setNull();
        ConstantColumnVector commitTime = new ConstantColumnVector(count, DataTypes.TimestampType);
        commitTime.setNull();
        vectors.add(type);
        vectors.add(bucketVector);
        if (withPartition) {
            // a state row is the table's row, read from the lake or the union: no single log holds it
            ConstantColumnVector partition = new ConstantColumnVector(count, DataTypes.StringType);
            partition.setNull();
            vectors.add(partition);
        }
        vectors.add(offset);
        vectors.add(commitTime);
        for (int column = 0; column < batch.numCols(); column++) {
            vectors.add(batch.column(column));
        }
        return new ColumnarBatch(vectors.toArray(ColumnVector[]::new), count);
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return rows.currentMetricsValues();
    }

    @Override
    public void close() throws IOException {
        rows.close();
    }
}
