package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.merge.ChangedEncodedKeys;
import io.lakestream.merge.ChangedKeys;
import io.lakestream.merge.ChangedLongKeys;
import io.lakestream.merge.KeyBuffer;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The lake half of a merge by key on Spark batches: drops the lake rows whose primary key the split's
 * log tail changes (a newer version or a delete hides them). The tail's winning rows are returned
 * after the lake rows, see {@link LakeParquetMergeBatchReader}.
 */
final class HiddenLakeRows {
    private final ChangedKeys changedKeys;
    private final int[] keyColumns;
    private final boolean intKey;
    private final SparkKeyEncoder encoder;
    private final KeyBuffer key = new KeyBuffer();
    private long[] longKeys = new long[0];
    private long hiddenRows;

    /**
     * @param keyColumns the batch columns of the primary key columns, in key order
     * @param keyTypes the key columns' Iceberg types
     */
    HiddenLakeRows(ChangedKeys changedKeys, int[] keyColumns, List<Type> keyTypes) {
        this.changedKeys = requireNonNull(changedKeys, "changedKeys is null");
        this.keyColumns = keyColumns.clone();
        this.intKey = keyTypes.getFirst().typeId() != Type.TypeID.LONG;
        this.encoder = new SparkKeyEncoder(keyTypes);
    }

    /**
     * Narrows {@code rows[0, size)} (ascending row ids of {@code batch}) in place to the rows whose
     * key the tail does not change; returns how many remain.
     */
    int retainUnchanged(ColumnarBatch batch, int[] rows, int size) {
        if (size == 0 || changedKeys.size() == 0) {
            return size;
        }
        int kept = switch (changedKeys) {
            case ChangedLongKeys longs -> retainLongs(longs, batch.column(keyColumns[0]), batch.numRows(), rows, size);
            case ChangedEncodedKeys encoded -> retainEncoded(encoded, batch, rows, size);
        };
        hiddenRows += size - kept;
        return kept;
    }

    private int retainLongs(ChangedLongKeys longs, ColumnVector vector, int rowCount, int[] rows, int size) {
        if (longKeys.length < rowCount) {
            longKeys = new long[rowCount];
        }
        // a lake row always has its primary key: tiering writes no row without one
        for (int i = 0; i < size; i++) {
            int row = rows[i];
            longKeys[row] = intKey ? vector.getInt(row) : vector.getLong(row);
        }
        return longs.retainUnchanged(longKeys, rows, size);
    }

    private int retainEncoded(ChangedEncodedKeys encoded, ColumnarBatch batch, int[] rows, int size) {
        ColumnVector[] keyVectors = new ColumnVector[keyColumns.length];
        for (int i = 0; i < keyVectors.length; i++) {
            keyVectors[i] = batch.column(keyColumns[i]);
        }
        int kept = 0;
        for (int i = 0; i < size; i++) {
            int row = rows[i];
            encoder.encode(keyVectors, row, key);
            if (!encoded.contains(key)) {
                rows[kept++] = row;
            }
        }
        return kept;
    }

    /** Lake rows dropped so far because the tail changes their key. */
    long hiddenRows() {
        return hiddenRows;
    }
}
