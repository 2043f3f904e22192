package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * A segment file a writer has fully written but not yet committed: invisible to readers until a
 * commit references it.
 *
 * @param partition for a partitioned table: the partition path of its rows (the commit assigns the partition's id)
 */
public record StagedSegment(
        int bucket,
        String path,
        long rowCount,
        long sizeBytes,
        long minTimestampMicros,
        long maxTimestampMicros,
        Optional<String> partition) {
    public StagedSegment {
        checkArgument(bucket >= 0, "bucket is negative");
        requireNonNull(path, "path is null");
        checkArgument(rowCount > 0, "a segment holds at least one row");
        // absent when a task's message of an unpartitioned table is read
        partition = partition == null ? Optional.empty() : partition;
    }

    SegmentFile committed(long baseOffset, long version, long committedAtMillis, Optional<Integer> partitionId) {
        return new SegmentFile(
                bucket,
                path,
                baseOffset,
                rowCount,
                sizeBytes,
                minTimestampMicros,
                maxTimestampMicros,
                version,
                committedAtMillis,
                partition,
                partitionId);
    }
}
