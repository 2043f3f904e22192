package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;

import io.lakestream.common.LakestreamException;

/** The kind of a change row in the log, stored in the {@code __change_type} column as a byte. */
public enum ChangeType {
    /** A row of an append-only table. */
    INSERT((byte) 0),
    /** The new version of a primary key. */
    UPSERT((byte) 1),
    /** Removal of a primary key; only the key columns are set. */
    DELETE((byte) 2);

    private final byte code;

    ChangeType(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }

    public static ChangeType fromCode(byte code) {
        return switch (code) {
            case 0 -> INSERT;
            case 1 -> UPSERT;
            case 2 -> DELETE;
            default ->
                throw new LakestreamException(LOG_CORRUPT, "Unknown change type code " + code + " in a log segment");
        };
    }
}
