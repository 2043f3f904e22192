package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A committed log segment: an Arrow IPC file of change rows of one bucket. Offsets are not stored
 * in the file: the commit that added it assigned {@code baseOffset}, so row {@code i} has offset
 * {@code baseOffset + i}.
 *
 * @param bucket the bucket
 * @param path path relative to the log root, e.g. {@code bucket-0003/<uuid>.arrow}
 * @param baseOffset offset of the first row
 * @param rowCount number of rows
 * @param sizeBytes file size
 * @param minTimestampMicros smallest {@code __timestamp} in the segment
 * @param maxTimestampMicros largest {@code __timestamp} in the segment
 * @param version the log version whose commit added it
 * @param committedAtMillis when that commit was published
 */
public record SegmentFile(
        int bucket,
        String path,
        long baseOffset,
        long rowCount,
        long sizeBytes,
        long minTimestampMicros,
        long maxTimestampMicros,
        long version,
        long committedAtMillis) {
    public SegmentFile {
        checkArgument(bucket >= 0, "bucket is negative");
        requireNonNull(path, "path is null");
        checkArgument(baseOffset >= 0, "baseOffset is negative");
        checkArgument(rowCount > 0, "a segment holds at least one row");
    }

    public long endOffset() {
        return baseOffset + rowCount;
    }
}
