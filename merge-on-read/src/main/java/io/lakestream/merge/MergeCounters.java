package io.lakestream.merge;

/** What a union read did, for EXPLAIN ANALYZE and Spark metrics. Not thread-safe: one per reader. */
public final class MergeCounters {
    private long lakeRows;
    private long logRows;
    private long lakeRowsHidden;
    private long logRowsSuperseded;
    private long mergePasses;
    private long lakeColumnChunks;
    private long lakeColumnBytes;

    /** Lake rows read (after Iceberg deletes). */
    public long lakeRows() {
        return lakeRows;
    }

    /** Log changes read. */
    public long logRows() {
        return logRows;
    }

    /** Lake rows replaced or deleted by a newer version in the log. */
    public long lakeRowsHidden() {
        return lakeRowsHidden;
    }

    /** Log changes that are not the last change of their key, or are deletes. */
    public long logRowsSuperseded() {
        return logRowsSuperseded;
    }

    /** Merge passes over the lake files (more than one per split when the tail exceeded the index limit). */
    public long mergePasses() {
        return mergePasses;
    }

    /** Parquet column chunks read from lake files (one per column read of each row group opened). */
    public long lakeColumnChunks() {
        return lakeColumnChunks;
    }

    /** Bytes of the Parquet column chunks read from lake files, as stored (compressed). */
    public long lakeColumnBytes() {
        return lakeColumnBytes;
    }

    void addLakeColumnChunk(long bytes) {
        lakeColumnChunks++;
        lakeColumnBytes += bytes;
    }

    void addLakeRows(long rows) {
        lakeRows += rows;
    }

    void addLogRows(long rows) {
        logRows += rows;
    }

    void addLakeRowsHidden(long rows) {
        lakeRowsHidden += rows;
    }

    void addLogRowsSuperseded(long rows) {
        logRowsSuperseded += rows;
    }

    void addMergePass() {
        mergePasses++;
    }

    /** Adds another reader's counts to these. */
    void add(MergeCounters other) {
        lakeRows += other.lakeRows;
        logRows += other.logRows;
        lakeRowsHidden += other.lakeRowsHidden;
        logRowsSuperseded += other.logRowsSuperseded;
        mergePasses += other.mergePasses;
        lakeColumnChunks += other.lakeColumnChunks;
        lakeColumnBytes += other.lakeColumnBytes;
    }
}
