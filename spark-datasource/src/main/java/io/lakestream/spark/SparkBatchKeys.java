package io.lakestream.spark;

import io.lakestream.merge.KeyBuffer;
import io.lakestream.merge.KeyColumns;
import io.lakestream.merge.LakeKeyAccessor;
import java.util.function.IntUnaryOperator;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * A key ({@link KeyColumns}: the primary key, or an equality delete file's columns) over the column vectors of
 * Spark's lake batches: the {@link LakeKeyAccessor} that {@link io.lakestream.merge.LakeRowSelector} matches
 * against changed keys and equality deletes. Long keys are read into an array; other keys are encoded by {@link
 * SparkKeyEncoder}.
 */
final class SparkBatchKeys {
    private final int[] batchColumns;
    private final boolean intKey;
    private final SparkKeyEncoder encoder;
    private long[] longKeys = new long[0];

    /** @param batchColumnOfField the batch column of each key column's field id */
    SparkBatchKeys(KeyColumns columns, IntUnaryOperator batchColumnOfField) {
        this.batchColumns = columns.fieldIds().stream()
                .mapToInt(batchColumnOfField::applyAsInt)
                .toArray();
        this.intKey = columns.types().getFirst().typeId() != Type.TypeID.LONG;
        this.encoder = new SparkKeyEncoder(columns.types());
    }

    /** True if Spark's reader returns keys of these columns with the values the log encodes. */
    static boolean supports(KeyColumns columns) {
        return columns.types().stream().allMatch(SparkKeyEncoder::supports);
    }

    /** The keys of {@code batch}'s rows. */
    LakeKeyAccessor over(ColumnarBatch batch) {
        ColumnVector[] vectors = new ColumnVector[batchColumns.length];
        for (int i = 0; i < vectors.length; i++) {
            vectors[i] = batch.column(batchColumns[i]);
        }
        int rowCount = batch.numRows();
        return new LakeKeyAccessor() {
            @Override
            public long[] longKeys(int[] positions, int size) {
                return SparkBatchKeys.this.longKeys(vectors[0], rowCount, positions, size);
            }

            @Override
            public void encode(int position, KeyBuffer key) {
                encoder.encode(vectors, position, key);
            }
        };
    }

    private long[] longKeys(ColumnVector vector, int rowCount, int[] positions, int size) {
        if (longKeys.length < rowCount) {
            longKeys = new long[rowCount];
        }
        // a lake row always has its primary key: tiering writes no row without one
        for (int i = 0; i < size; i++) {
            int row = positions[i];
            longKeys[row] = intKey ? vector.getInt(row) : vector.getLong(row);
        }
        return longKeys;
    }
}
