package io.lakestream.log;

import static io.lakestream.log.LogSnapshot.corrupt;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The partitions of a log while {@link LogSnapshot#apply} applies one commit to them: a commit adds segments to
 * (partition, bucket) logs, creates a partition by writing the next partition id, and removes a partition once
 * retention took its last segment. Enforces the rules of docs/format.md "The log of a partitioned table".
 */
final class PartitionChanges {
    private final TreeMap<Integer, PartitionLog> partitions = new TreeMap<>();
    private final int bucketCount;
    private final String commitFile;
    private final List<ExpiredPartition> expired = new ArrayList<>();
    private int nextId;

    PartitionChanges(List<PartitionLog> partitions, int nextId, int bucketCount, String commitFile) {
        partitions.forEach(partition -> this.partitions.put(partition.id(), partition));
        this.nextId = nextId;
        this.bucketCount = bucketCount;
        this.commitFile = commitFile;
    }

    void add(SegmentFile added) {
        int id = added.partitionId().orElseThrow();
        String path = added.partition().orElseThrow();
        if (added.bucket() >= bucketCount) {
            throw corrupt(
                    commitFile,
                    "adds a segment to bucket %s but the table has %s buckets".formatted(added.bucket(), bucketCount));
        }
        PartitionLog partition = partitions.get(id);
        if (partition == null) {
            // only the next id starts a partition: ids are dense in commit order and never reused
            if (id != nextId) {
                throw corrupt(
                        commitFile,
                        "adds %s to partition %s (%s), which the log does not have (the next new partition is %s)"
                                .formatted(added.path(), id, path, nextId));
            }
            checkNewPath(path, id, added);
            partition = PartitionLog.empty(id, path, bucketCount);
            nextId++;
        } else if (!partition.path().equals(path)) {
            throw corrupt(
                    commitFile,
                    "adds %s to partition %s as %s, but partition %s is %s"
                            .formatted(added.path(), id, path, id, partition.path()));
        }
        BucketLog bucket = LogSnapshot.append(
                partition.bucket(added.bucket()),
                added,
                "bucket %s of partition %s".formatted(added.bucket(), path),
                commitFile);
        partitions.put(id, partition.withBucket(added.bucket(), bucket));
    }

    void removePrefixSegment(SegmentFile removed) {
        int id = removed.partitionId().orElseThrow();
        PartitionLog partition = partitions.get(id);
        if (partition == null) {
            throw corrupt(
                    commitFile,
                    "removes %s from partition %s, which the log does not have".formatted(removed.path(), id));
        }
        BucketLog bucket = LogSnapshot.removePrefixSegment(partition.bucket(removed.bucket()), removed, commitFile);
        partitions.put(id, partition.withBucket(removed.bucket(), bucket));
    }

    /**
     * Removes a partition from the state (partition expiry): the commit's removals, applied before, must have taken
     * every live segment of it. Its id stays used ({@code nextId} does not move back).
     */
    void expire(int id) {
        PartitionLog partition = partitions.get(id);
        if (partition == null) {
            throw corrupt(commitFile, "expires partition %s, which the log does not have".formatted(id));
        }
        for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
            if (!partition.bucket(bucket).segments().isEmpty()) {
                throw corrupt(
                        commitFile,
                        "expires partition %s (%s) but leaves segments in its bucket %s"
                                .formatted(id, partition.path(), bucket));
            }
        }
        partitions.remove(id);
        expired.add(new ExpiredPartition(id, partition.path()));
    }

    /** {@code before} plus the partitions this commit expired, the newest {@code limit}. */
    List<ExpiredPartition> expired(List<ExpiredPartition> before, int limit) {
        if (expired.isEmpty()) {
            return before;
        }
        List<ExpiredPartition> all = new ArrayList<>(before);
        all.addAll(expired);
        return all.subList(Math.max(0, all.size() - limit), all.size());
    }

    List<PartitionLog> partitions() {
        return List.copyOf(partitions.values());
    }

    int nextId() {
        return nextId;
    }

    private void checkNewPath(String path, int id, SegmentFile added) {
        Optional<PartitionLog> existing = partitions.values().stream()
                .filter(partition -> partition.path().equals(path))
                .findFirst();
        if (existing.isPresent()) {
            throw corrupt(
                    commitFile,
                    "adds %s to a new partition %s for %s, which is already partition %s"
                            .formatted(added.path(), id, path, existing.get().id()));
        }
    }
}
