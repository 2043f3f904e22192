package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
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
 * constants (change type, the split's bucket, no offset, no commit time), without copying the rows.
 */
final class StateChangeColumns implements PartitionReader<ColumnarBatch> {
    private final PartitionReader<ColumnarBatch> rows;
    private final UTF8String changeType;
    private final OptionalInt bucket;

    StateChangeColumns(PartitionReader<ColumnarBatch> rows, String changeType, OptionalInt bucket) {
        this.rows = requireNonNull(rows, "rows is null");
        this.changeType = UTF8String.fromString(requireNonNull(changeType, "changeType is null"));
        this.bucket = requireNonNull(bucket, "bucket is null");
    }

    @Override
    public boolean next() throws IOException {
        return rows.next();
    }

    @Override
    public ColumnarBatch get() {
        ColumnarBatch batch = rows.get();
        int count = batch.numRows();
        ColumnVector[] vectors = new ColumnVector[4 + batch.numCols()];
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
        vectors[0] = type;
        vectors[1] = bucketVector;
        vectors[2] = offset;
        vectors[3] = commitTime;
        for (int column = 0; column < batch.numCols(); column++) {
            vectors[4 + column] = batch.column(column);
        }
        return new ColumnarBatch(vectors, count);
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
