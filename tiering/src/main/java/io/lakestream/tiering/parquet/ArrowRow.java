package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * A movable position in a batch of Arrow vectors: the row type of the columnar tiering writers
 * ({@link ArrowRowWriter}). One instance is reused for every row of a task, so writing a row creates no
 * object; Iceberg's writers never keep the row they are given.
 */
public final class ArrowRow {
    private final int bucket;
    private FieldVector[] vectors = new FieldVector[0];
    // per vector of the batch: whether it has a null at all (most have none: no validity lookup per value)
    private boolean[] hasNulls = new boolean[0];
    private int index;

    public ArrowRow(int bucket) {
        this.bucket = bucket;
    }

    /** Points at row 0 of a batch. The vectors must stay open while rows of the batch are written. */
    public void setBatch(VectorSchemaRoot root) {
        requireNonNull(root, "root is null");
        vectors = root.getFieldVectors().toArray(FieldVector[]::new);
        hasNulls = new boolean[vectors.length];
        for (int i = 0; i < vectors.length; i++) {
            hasNulls[i] = vectors[i].getNullCount() > 0;
        }
        index = 0;
    }

    public void setIndex(int index) {
        this.index = index;
    }

    public int index() {
        return index;
    }

    public FieldVector vector(int position) {
        return vectors[position];
    }

    /** Whether the current row's value in the vector at {@code position} is null. */
    boolean isNull(int position) {
        return hasNulls[position] && vectors[position].isNull(index);
    }

    /** The bucket of the rows: the value of the lake's hidden {@code __bucket} column. */
    int bucket() {
        return bucket;
    }
}
