package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Optional;

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
 * @param partition for a partitioned table: the partition's values as the lake's partition path (absent for an
 *     unpartitioned table, so its commit files stay as they were before partitions existed)
 * @param partitionId for a partitioned table: the partition's dense id (see {@link PartitionLog}); present exactly
 *     when {@code partition} is
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
        long committedAtMillis,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<String> partition,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<Integer> partitionId) {
    public SegmentFile {
        checkArgument(bucket >= 0, "bucket is negative");
        requireNonNull(path, "path is null");
        checkArgument(baseOffset >= 0, "baseOffset is negative");
        checkArgument(rowCount > 0, "a segment holds at least one row");
        // absent in files of unpartitioned tables
        partition = partition == null ? Optional.empty() : partition;
        partitionId = partitionId == null ? Optional.empty() : partitionId;
        checkArgument(
                partition.isPresent() == partitionId.isPresent(),
                "a segment names both its partition and the partition's id, or neither");
        checkArgument(partitionId.orElse(0) >= 0, "partitionId is negative");
    }

    /** The (partition, bucket) log this segment belongs to; empty for a segment of an unpartitioned table. */
    public Optional<PartitionBucket> partitionBucket() {
        return partitionId.map(id -> new PartitionBucket(id, bucket));
    }

    public long endOffset() {
        return baseOffset + rowCount;
    }
}
