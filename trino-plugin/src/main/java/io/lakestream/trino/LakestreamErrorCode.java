package io.lakestream.trino;

import static io.trino.spi.ErrorType.EXTERNAL;
import static io.trino.spi.ErrorType.INTERNAL_ERROR;
import static io.trino.spi.ErrorType.USER_ERROR;

import io.lakestream.common.LakestreamException;
import io.trino.spi.ErrorCode;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.ErrorType;
import io.trino.spi.TrinoException;

/**
 * Every error the connector reports. Codes are only ever appended: clients and dashboards match on
 * them. The base keeps them apart from other plugins' codes.
 */
public enum LakestreamErrorCode implements ErrorCodeSupplier {
    LAKESTREAM_INTERNAL_ERROR(0, INTERNAL_ERROR),
    LAKESTREAM_INVALID_TABLE_PROPERTY(1, USER_ERROR),
    LAKESTREAM_INVALID_NAME(2, USER_ERROR),
    LAKESTREAM_TABLE_NOT_FOUND(3, USER_ERROR),
    LAKESTREAM_TABLE_ALREADY_EXISTS(4, USER_ERROR),
    LAKESTREAM_NOT_A_LAKESTREAM_TABLE(5, USER_ERROR),
    LAKESTREAM_SCHEMA_NOT_FOUND(6, USER_ERROR),
    LAKESTREAM_INVALID_ROW(7, USER_ERROR),
    LAKESTREAM_NOT_SUPPORTED(8, USER_ERROR),
    LAKESTREAM_INVALID_CATALOG_CONFIG(9, USER_ERROR),
    LAKESTREAM_LOG_COMMIT_CONFLICT(10, EXTERNAL),
    LAKESTREAM_BAD_DATA(11, EXTERNAL),
    LAKESTREAM_LOG_RANGE_REMOVED(12, USER_ERROR),
    LAKESTREAM_INVALID_READ(13, USER_ERROR),
    LAKESTREAM_FILESYSTEM_ERROR(14, EXTERNAL),
    LAKESTREAM_CATALOG_ERROR(15, EXTERNAL),
    /** The lake and the log disagree (offsets, layout): someone changed one of them outside Lakestream. */
    LAKESTREAM_LAKE_INCONSISTENT(16, EXTERNAL),
    LAKESTREAM_TIERING_ERROR(17, EXTERNAL),
    LAKESTREAM_CANNOT_OPEN_SPLIT(18, EXTERNAL),
    LAKESTREAM_UNSUPPORTED_TYPE(19, USER_ERROR),
    LAKESTREAM_SCHEMA_NOT_EMPTY(20, USER_ERROR),
    LAKESTREAM_COMMIT_ERROR(21, EXTERNAL),
    /** The lake table was changed outside Lakestream (schema, partitioning) and no longer fits the table. */
    LAKESTREAM_LAKE_LAYOUT_MISMATCH(22, USER_ERROR),
    LAKESTREAM_SCHEMA_ALREADY_EXISTS(23, USER_ERROR),
    LAKESTREAM_TABLE_DROPPED(24, USER_ERROR),
    /** A write's staged log segment disappeared before its commit; nothing was published. */
    LAKESTREAM_STAGED_SEGMENT_MISSING(25, EXTERNAL),
    /** The embedded SQLite catalog stayed locked by another process; the message names the lock and its holder. */
    LAKESTREAM_CATALOG_LOCKED(26, EXTERNAL),
    LAKESTREAM_STREAMING_SCHEMA_MISMATCH(31, USER_ERROR),
    /** ALTER TABLE of a primary-key or bucket-key column (drop, rename, retype). */
    LAKESTREAM_SCHEMA_CHANGE_NOT_ALLOWED(27, USER_ERROR),
    /** ALTER TABLE that the log and the lake cannot both take (e.g. a narrowing type change). */
    LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED(28, USER_ERROR),
    /** A partitioning term the table cannot take (unknown transform, wrong type, a key table's non-key column). */
    LAKESTREAM_PARTITIONING_NOT_ALLOWED(29, USER_ERROR),
    /** A commit of segments of another log layout than the log's identity record names (an older writer). */
    LAKESTREAM_LOG_LAYOUT_MISMATCH(30, EXTERNAL),
    LAKESTREAM_PARTITION_EXPIRATION_INVALID(33, USER_ERROR),
    LAKESTREAM_PARTITION_EXPIRY_NOT_POSSIBLE(34, USER_ERROR),
    LAKESTREAM_TABLE_SCHEMA_CHANGED(35, EXTERNAL);

    /** Unique among Trino plugins ("LS" in the high bytes). */
    private static final int ERROR_CODE_BASE = 0x4C53_0000;

    private final ErrorCode errorCode;

    LakestreamErrorCode(int code, ErrorType type) {
        errorCode = new ErrorCode(code + ERROR_CODE_BASE, name(), type, type == INTERNAL_ERROR);
    }

    @Override
    public ErrorCode toErrorCode() {
        return errorCode;
    }

    /** The Trino error for an engine-neutral Lakestream error; the message is kept as it is (it says what to do). */
    public static TrinoException toTrinoException(LakestreamException e) {
        return new TrinoException(of(e.error()), e.getMessage(), e);
    }

    /** The connector code of each engine-neutral error; exhaustive, so a new error cannot be left unmapped. */
    public static LakestreamErrorCode of(io.lakestream.common.LakestreamError error) {
        return switch (error) {
            case GENERIC_INTERNAL_ERROR -> LAKESTREAM_INTERNAL_ERROR;
            case INVALID_TABLE_DEFINITION -> LAKESTREAM_INVALID_TABLE_PROPERTY;
            case INVALID_NAME -> LAKESTREAM_INVALID_NAME;
            case TABLE_NOT_FOUND -> LAKESTREAM_TABLE_NOT_FOUND;
            case TABLE_ALREADY_EXISTS -> LAKESTREAM_TABLE_ALREADY_EXISTS;
            case NAMESPACE_ALREADY_EXISTS -> LAKESTREAM_SCHEMA_ALREADY_EXISTS;
            case NOT_A_LAKESTREAM_TABLE -> LAKESTREAM_NOT_A_LAKESTREAM_TABLE;
            case NAMESPACE_NOT_FOUND -> LAKESTREAM_SCHEMA_NOT_FOUND;
            case INVALID_ROW -> LAKESTREAM_INVALID_ROW;
            case UNSUPPORTED_OPERATION -> LAKESTREAM_NOT_SUPPORTED;
            case INVALID_CATALOG_CONFIG -> LAKESTREAM_INVALID_CATALOG_CONFIG;
            case LOG_COMMIT_CONFLICT -> LAKESTREAM_LOG_COMMIT_CONFLICT;
            case LOG_CORRUPT -> LAKESTREAM_BAD_DATA;
            case LOG_RANGE_REMOVED -> LAKESTREAM_LOG_RANGE_REMOVED;
            case LOG_RANGE_INVALID, INVALID_READ_OPTIONS -> LAKESTREAM_INVALID_READ;
            case LOG_IO_ERROR -> LAKESTREAM_FILESYSTEM_ERROR;
            case CATALOG_ERROR -> LAKESTREAM_CATALOG_ERROR;
            case LAKE_OFFSETS_INVALID, LAKE_AHEAD_OF_LOG -> LAKESTREAM_LAKE_INCONSISTENT;
            case LAKE_LAYOUT_MISMATCH -> LAKESTREAM_LAKE_LAYOUT_MISMATCH;
            case LAKE_COMMIT_CONFLICT, TIERING_FAILED -> LAKESTREAM_TIERING_ERROR;
            case LAKE_FILE_UNREADABLE -> LAKESTREAM_BAD_DATA;
            case TABLE_DROPPED -> LAKESTREAM_TABLE_DROPPED;
            case STAGED_SEGMENT_MISSING -> LAKESTREAM_STAGED_SEGMENT_MISSING;
            case CATALOG_LOCKED -> LAKESTREAM_CATALOG_LOCKED;
            case STREAMING_SCHEMA_MISMATCH -> LAKESTREAM_STREAMING_SCHEMA_MISMATCH;
            case SCHEMA_CHANGE_NOT_ALLOWED -> LAKESTREAM_SCHEMA_CHANGE_NOT_ALLOWED;
            case SCHEMA_CHANGE_UNSUPPORTED -> LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED;
            case PARTITIONING_NOT_ALLOWED -> LAKESTREAM_PARTITIONING_NOT_ALLOWED;
            case LOG_LAYOUT_MISMATCH -> LAKESTREAM_LOG_LAYOUT_MISMATCH;
            case PARTITION_EXPIRATION_INVALID -> LAKESTREAM_PARTITION_EXPIRATION_INVALID;
            case PARTITION_EXPIRY_NOT_POSSIBLE -> LAKESTREAM_PARTITION_EXPIRY_NOT_POSSIBLE;
            case TABLE_SCHEMA_CHANGED -> LAKESTREAM_TABLE_SCHEMA_CHANGED;
        };
    }
}
