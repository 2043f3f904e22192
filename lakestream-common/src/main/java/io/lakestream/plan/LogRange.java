package io.lakestream.plan;

import static com.google.common.base.Preconditions.checkArgument;

/** The offsets {@code [from, to)} of one bucket of the log at a pinned log version. */
public record LogRange(int bucket, long from, long to) {
    public LogRange {
        checkArgument(bucket >= 0, "bucket is negative");
        checkArgument(0 <= from && from <= to, "invalid range [%s, %s)", from, to);
    }

    public long rowCount() {
        return to - from;
    }

    public boolean isEmpty() {
        return from == to;
    }
}
