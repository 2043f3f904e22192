package io.lakestream.spark;

import java.io.Closeable;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The batches of one split, read one way ({@link io.lakestream.merge.LakeReadPath}), and what reading them counted
 * for the scan's metrics. A batch stays valid until the next call to {@link #next}.
 */
interface SplitBatchReader extends Closeable {
    boolean next();

    ColumnarBatch get();

    /** Lake rows read (after Iceberg deletes). */
    long lakeRows();

    /** Log changes read. */
    long logRows();

    /** Lake rows hidden by a newer version or a delete in the log tail. */
    long lakeRowsHidden();

    /** Parquet column chunks the union split reader read from lake files (Spark's own Parquet reader: not counted). */
    default long lakeColumnChunks() {
        return 0;
    }

    /** Bytes of those column chunks, as stored. */
    default long lakeColumnBytes() {
        return 0;
    }

    /** Row groups of lake files skipped before Spark's Parquet reader opened them (the filter cannot match them). */
    default long rowGroupsSkipped() {
        return 0;
    }

    /**
     * 1 if the split read its log tail's winners after its lake rows ({@link io.lakestream.merge.LakeThenTailSplit}),
     * 0 if it has none or a limit met in its lake rows left the tail unopened; only the lake-first reader counts it.
     */
    default long tailsOpened() {
        return 0;
    }

    @Override
    void close();
}
