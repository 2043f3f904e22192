package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A segment file a writer has fully written but not yet committed: invisible to readers until a
 * commit references it.
 */
public record StagedSegment(
        int bucket, String path, long rowCount, long sizeBytes, long minTimestampMicros, long maxTimestampMicros) {
    public StagedSegment {
        checkArgument(bucket >= 0, "bucket is negative");
        requireNonNull(path, "path is null");
        checkArgument(rowCount > 0, "a segment holds at least one row");
    }

    SegmentFile committed(long baseOffset, long version, long committedAtMillis) {
        return new SegmentFile(
                bucket,
                path,
                baseOffset,
                rowCount,
                sizeBytes,
                minTimestampMicros,
                maxTimestampMicros,
                version,
                committedAtMillis);
    }
}
