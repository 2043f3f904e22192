package io.lakestream.reader;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSchema;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Consecutive change rows of one bucket: row {@code i} of {@code root} has offset
 * {@code firstOffset + i}. The root holds {@code __change_type}, {@code __timestamp} and the
 * projected user columns, in that order. The caller owns the batch and must close it.
 *
 * @param committedAtMillis when the commit that added these rows was published
 */
public record LogBatch(int bucket, long firstOffset, long committedAtMillis, VectorSchemaRoot root)
        implements AutoCloseable {
    public LogBatch {
        requireNonNull(root, "root is null");
    }

    public int rowCount() {
        return root.getRowCount();
    }

    public ChangeType changeType(int row) {
        return ChangeType.fromCode(changeTypes().get(row));
    }

    /** The codes of the rows' change types ({@link ChangeType#code()}), for loops over many rows. */
    public TinyIntVector changeTypes() {
        return (TinyIntVector) root.getVector(0);
    }

    public long timestampMicros(int row) {
        return ((TimeStampMicroTZVector) root.getVector(1)).get(row);
    }

    /** The vector of the {@code i}-th projected user column. */
    public org.apache.arrow.vector.FieldVector column(int i) {
        return root.getVector(i + LogSchema.SYSTEM_COLUMN_COUNT);
    }

    @Override
    public void close() {
        root.close();
    }
}
