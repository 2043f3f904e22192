package io.lakestream.common;

/**
 * Engine-neutral error codes. Engines map them to their own error reporting (Trino's
 * {@code ErrorCodeSupplier}, Spark's analysis errors). Codes are only ever appended.
 */
public enum LakestreamError {
    GENERIC_INTERNAL_ERROR(0, Kind.INTERNAL),
    INVALID_TABLE_DEFINITION(1, Kind.USER),
    INVALID_NAME(2, Kind.USER),
    TABLE_NOT_FOUND(3, Kind.USER),
    TABLE_ALREADY_EXISTS(4, Kind.USER),
    NOT_A_LAKESTREAM_TABLE(5, Kind.USER),
    NAMESPACE_NOT_FOUND(6, Kind.USER),
    INVALID_ROW(7, Kind.USER),
    UNSUPPORTED_OPERATION(8, Kind.USER),
    INVALID_CATALOG_CONFIG(9, Kind.USER),
    LOG_COMMIT_CONFLICT(10, Kind.EXTERNAL),
    LOG_CORRUPT(11, Kind.EXTERNAL),
    LOG_RANGE_REMOVED(12, Kind.USER),
    LOG_RANGE_INVALID(13, Kind.USER),
    LOG_IO_ERROR(14, Kind.EXTERNAL),
    CATALOG_ERROR(15, Kind.EXTERNAL),
    /** A lake snapshot's offset map is unreadable or cannot be found (tiering, union-read planning). */
    LAKE_OFFSETS_INVALID(16, Kind.EXTERNAL),
    /** A lake snapshot holds more of a bucket than the log does: the log was replaced or truncated. */
    LAKE_AHEAD_OF_LOG(17, Kind.EXTERNAL),
    /** Another tiering run committed first: the lake's offset map is no longer the one planned from. */
    LAKE_COMMIT_CONFLICT(18, Kind.EXTERNAL),
    /** The lake table was changed outside Lakestream and no longer matches the table definition. */
    LAKE_LAYOUT_MISMATCH(19, Kind.USER),
    /** Tiering a table failed; the message says why and whether it stopped. */
    TIERING_FAILED(20, Kind.EXTERNAL),
    /** A read option (mode, version, timestamp, offsets) that does not fit the table. */
    INVALID_READ_OPTIONS(21, Kind.USER),
    /** A lake data or delete file that cannot be read. */
    LAKE_FILE_UNREADABLE(22, Kind.EXTERNAL),
    NAMESPACE_ALREADY_EXISTS(23, Kind.USER),
    /** The table a writer or reader loaded was dropped (or dropped and re-created) meanwhile. */
    TABLE_DROPPED(24, Kind.USER),
    /** A log commit names a staged segment that is no longer on storage: refused before anything is published. */
    STAGED_SEGMENT_MISSING(25, Kind.EXTERNAL),
    /** The embedded SQLite catalog's lock is held by a live process (or one whose state cannot be told) too long. */
    CATALOG_LOCKED(26, Kind.EXTERNAL),
    /** A streaming write's input columns do not match the table it writes into: refused before the first batch. */
    STREAMING_SCHEMA_MISMATCH(31, Kind.USER),
    /** An ALTER TABLE that would change a primary-key or bucket-key column (drop, rename, retype). */
    SCHEMA_CHANGE_NOT_ALLOWED(27, Kind.USER),
    /** An ALTER TABLE Lakestream cannot apply to both layers (a narrowing type change, a required column added). */
    SCHEMA_CHANGE_UNSUPPORTED(28, Kind.USER),
    /**
     * A partitioning term Lakestream cannot take: an unknown transform, a type the transform does not accept, or a
     * primary-key table partitioned by a column outside its key.
     */
    PARTITIONING_NOT_ALLOWED(29, Kind.USER),
    /**
     * A commit whose segments are of another log layout than the log's identity record names (per bucket, or per
     * partition and bucket): written by a writer that does not read the record, e.g. of an older version.
     */
    LOG_LAYOUT_MISMATCH(30, Kind.EXTERNAL),
    /**
     * The table property {@code lakestream.partition.expiration} is not a duration, or the table has no partition
     * field expiry can date (a year, month, day or hour transform, or the identity of a date column).
     */
    PARTITION_EXPIRATION_INVALID(33, Kind.USER),
    /**
     * An on-demand partition expiry ({@code EXECUTE expire_partitions}, {@code lakestream expire-partitions}) of a table
     * whose partitions cannot leave its log alone: unpartitioned, or a log kept per bucket.
     */
    PARTITION_EXPIRY_NOT_POSSIBLE(34, Kind.USER),
    /**
     * A log segment was written after an {@code ALTER TABLE} (by another process) changed a column to a type the
     * read's schema, loaded before the change, cannot hold: the read is planned with the older schema. Run it again.
     */
    TABLE_SCHEMA_CHANGED(35, Kind.EXTERNAL);

    /** Who has to act: the user (fix the input), the environment (storage, catalog), or us (a bug). */
    public enum Kind {
        USER,
        EXTERNAL,
        INTERNAL
    }

    private final int code;
    private final Kind kind;

    LakestreamError(int code, Kind kind) {
        this.code = code;
        this.kind = kind;
    }

    public int code() {
        return code;
    }

    public Kind kind() {
        return kind;
    }
}
