package io.lakestream.tiering.parquet;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Writes one task's rows from the log's Arrow batches into lake files (data or equality delete files).
 *
 * @param <F> the kind of file written
 */
public interface TieredFileWriter<F> {
    /**
     * Writes rows of a batch: {@code rows[from, to)} are positions in {@code batch}, or, if {@code rows} is
     * null, positions {@code from} to {@code to - 1}. The batch needs to stay open only during the call.
     */
    void write(VectorSchemaRoot batch, int[] rows, int from, int to);

    /** Completes the files and returns them. */
    List<F> finish();

    /** Stops after a failure, leaving what was written to be deleted ({@link #locations}). */
    void abort();

    /** Every file this writer created, complete or not: what to delete if the task fails. */
    List<String> locations();
}
