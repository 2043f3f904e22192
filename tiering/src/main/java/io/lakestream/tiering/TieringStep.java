package io.lakestream.tiering;

/** Points in a tiering round where {@link TieringHooks} are called (fault injection, metrics). */
public enum TieringStep {
    /** A bucket's data files are written and closed, nothing is committed. */
    DATA_FILES_WRITTEN,
    /** A bucket's equality delete files are written and closed (primary-key tables). */
    DELETE_FILES_WRITTEN,
    /** Inside the Iceberg commit: the lake was refreshed and validated, the new metadata is not yet swapped in. */
    COMMITTING,
    /** The lake commit succeeded; log retention has not run yet. */
    COMMITTED,
    /** Inside a compaction commit, before the new metadata is swapped in. */
    COMPACTION_COMMITTING,
    /** Partition expiry removed partitions from the log; their lake files are not deleted yet. */
    PARTITIONS_EXPIRED_FROM_LOG,
    /** Inside partition expiry's lake commit, before the new metadata is swapped in. */
    EXPIRY_COMMITTING
}
