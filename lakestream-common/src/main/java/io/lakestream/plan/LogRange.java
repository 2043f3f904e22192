package io.lakestream.plan;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.lakestream.log.BucketLog;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.SegmentFile;
import java.util.Optional;

/**
 * The offsets {@code [from, to)} of one bucket of the log at a pinned log version; of a bucket of one partition for a
 * partitioned table's log (docs/format.md "The log of a partitioned table").
 *
 * @param partitionId the partition whose bucket this is; absent for an unpartitioned table (and from its JSON)
 */
public record LogRange(
        int bucket,
        long from,
        long to,
        @JsonInclude(JsonInclude.Include.NON_ABSENT) Optional<Integer> partitionId) {
    public LogRange {
        checkArgument(bucket >= 0, "bucket is negative");
        checkArgument(0 <= from && from <= to, "invalid range [%s, %s)", from, to);
        partitionId = partitionId == null ? Optional.empty() : partitionId;
        checkArgument(partitionId.orElse(0) >= 0, "partitionId is negative");
    }

    /** A range of a bucket of an unpartitioned table. */
    public LogRange(int bucket, long from, long to) {
        this(bucket, from, to, Optional.empty());
    }

    /** A range of a bucket of a partition. */
    public LogRange(PartitionBucket log, long from, long to) {
        this(log.bucket(), from, to, Optional.of(log.partitionId()));
    }

    /** The range's bucket log in {@code snapshot}: the bucket's, or the bucket's of its partition. */
    public BucketLog in(LogSnapshot snapshot) {
        return partitionId.isPresent()
                ? snapshot.bucket(new PartitionBucket(partitionId.get(), bucket))
                : snapshot.bucket(bucket);
    }

    /** Whether {@code segment} belongs to this range's (partition) bucket. */
    public boolean sameLog(SegmentFile segment) {
        return segment.bucket() == bucket && segment.partitionId().equals(partitionId);
    }

    /** Names the log for messages: {@code bucket 3} or {@code bucket 3 of partition 7}. */
    public String describeLog() {
        return partitionId
                .map(id -> "bucket %s of partition %s".formatted(bucket, id))
                .orElse("bucket " + bucket);
    }

    public long rowCount() {
        return to - from;
    }

    public boolean isEmpty() {
        return from == to;
    }
}
