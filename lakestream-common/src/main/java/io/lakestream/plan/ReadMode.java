package io.lakestream.plan;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;

import io.lakestream.common.LakestreamException;
import java.util.Locale;

/** What a read of a Lakestream table returns. */
public enum ReadMode {
    /** The current state: committed lake data merged with the log tail (the default). */
    UNION,
    /** Committed lake data only, as stock Iceberg engines see it. */
    LAKE,
    /** The log as a changelog: change type, bucket, offset, timestamp and the row. */
    CHANGES;

    public static ReadMode parse(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS, "Unknown read mode '%s': use union, lake or changes".formatted(value));
        }
    }
}
