package io.lakestream.common;

import static java.util.Objects.requireNonNull;

/** The one exception type Lakestream throws: always with an error code and an actionable message. */
public class LakestreamException extends RuntimeException {
    private final LakestreamError error;

    public LakestreamException(LakestreamError error, String message) {
        this(error, message, null);
    }

    public LakestreamException(LakestreamError error, String message, Throwable cause) {
        super("[" + requireNonNull(error, "error is null").name() + "] " + message, cause);
        this.error = error;
    }

    public LakestreamError error() {
        return error;
    }
}
