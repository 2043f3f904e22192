package io.lakestream.log;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Assigns a commit's staged segments their base offsets on top of the state it publishes on: each (partition)
 * bucket's next segment starts at its end offset. A partition the log does not have yet gets the next partition id,
 * in the order the commit's segments first name it, so ids are dense in commit order.
 */
final class OffsetAssignment {
    private final LogSnapshot current;
    private final int bucketCount;
    private final long[] ends;
    private final Map<PartitionBucket, Long> partitionEnds = new HashMap<>();
    private final Map<String, Integer> newPartitions = new HashMap<>();

    OffsetAssignment(LogSnapshot current, int bucketCount) {
        this.current = current;
        this.bucketCount = bucketCount;
        this.ends = new long[bucketCount];
        for (int bucket = 0; bucket < bucketCount; bucket++) {
            ends[bucket] = current.bucket(bucket).endOffset();
        }
    }

    List<SegmentFile> assign(List<StagedSegment> segments, long version, long committedAtMillis) {
        List<SegmentFile> added = new ArrayList<>(segments.size());
        for (StagedSegment segment : segments) {
            if (segment.bucket() >= bucketCount) {
                throw new IllegalArgumentException(
                        "segment for bucket %s, but the log has %s buckets".formatted(segment.bucket(), bucketCount));
            }
            if (segment.partition().isEmpty()) {
                added.add(segment.committed(ends[segment.bucket()], version, committedAtMillis, Optional.empty()));
                ends[segment.bucket()] += segment.rowCount();
                continue;
            }
            PartitionBucket key =
                    new PartitionBucket(partitionId(segment.partition().get()), segment.bucket());
            long base =
                    partitionEnds.computeIfAbsent(key, k -> current.bucket(k).endOffset());
            added.add(segment.committed(base, version, committedAtMillis, Optional.of(key.partitionId())));
            partitionEnds.put(key, base + segment.rowCount());
        }
        return added;
    }

    private int partitionId(String path) {
        return current.partitionId(path)
                .orElseGet(() ->
                        newPartitions.computeIfAbsent(path, p -> current.nextPartitionId() + newPartitions.size()));
    }
}
