package io.lakestream.merge;

import static java.util.Objects.requireNonNull;

import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Consecutive rows of a lake data file: row {@code i} of {@code root} is row
 * {@code firstRowPosition + i} of the file (the position Iceberg position deletes name).
 */
record LakeBatch(VectorSchemaRoot root, long firstRowPosition) implements AutoCloseable {
    LakeBatch {
        requireNonNull(root, "root is null");
    }

    @Override
    public void close() {
        root.close();
    }
}
