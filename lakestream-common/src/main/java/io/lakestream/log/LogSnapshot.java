package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The state of a log at one committed version: every bucket's live range and segments, plus the
 * idempotency keys of recent commits and the paths of recently swept orphan segments. Immutable; {@link #apply} derives the next version. This is
 * also the content of a checkpoint file.
 *
 * @param formatVersion checkpoint format version
 * @param version log version; 0 is the empty log before the first commit
 * @param committedAtMillis when this version was committed (0 for version 0)
 * @param buckets one entry per bucket
 * @param idempotencyKeys key -> version of the commit that used it, for the last {@link #RETAINED_IDEMPOTENCY_KEYS} keyed commits
 * @param swept staged segment path (relative to the log root) -> version of the {@code SWEEP} commit that
 *     deleted it, for the last {@link #RETAINED_SWEPT_PATHS} swept paths; absent (empty) in a version-1 checkpoint
 * @param tableUuid in a checkpoint file: the table whose log it was written for (see {@link LogIdentity});
 *     readers ignore a checkpoint of another table
 * @param partitions for a partitioned table: every live partition, by id (its buckets' logs; {@code buckets} then
 *     stay empty); empty, and absent from the checkpoint file, for an unpartitioned table
 * @param nextPartitionId the id the next partition new to the log gets: ids are dense in commit order and never
 *     reused, also after a partition is removed; 0 (absent) for an unpartitioned table
 * @param expiredPartitions the partitions partition expiry removed, oldest first, the last {@link
 *     #RETAINED_EXPIRED_PARTITIONS}; absent (empty) until the first expiry
 */
public record LogSnapshot(
        int formatVersion,
        long version,
        long committedAtMillis,
        List<BucketLog> buckets,
        Map<String, Long> idempotencyKeys,
        Map<String, Long> swept,
        Optional<UUID> tableUuid,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<PartitionLog> partitions,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) int nextPartitionId,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<ExpiredPartition> expiredPartitions) {
    /** How many keyed commits a retried commit is recognized within. */
    public static final int RETAINED_IDEMPOTENCY_KEYS = 10_000;

    /**
     * How many swept paths a commit is checked against. A commit also checks that its files exist, so a
     * path only needs to be remembered while its sweeper may not yet have deleted the file (see
     * docs/format.md, "Orphan sweeps").
     */
    public static final int RETAINED_SWEPT_PATHS = 10_000;

    /**
     * How many expired partitions the state remembers: an entry is needed only until the lake commit that completes
     * the expiry, normally the same tiering round (docs/tiering.md "Partition expiry").
     */
    public static final int RETAINED_EXPIRED_PARTITIONS = 10_000;

    public LogSnapshot {
        checkArgument(version >= 0, "version is negative");
        buckets = ImmutableList.copyOf(requireNonNull(buckets, "buckets is null"));
        // windows shared with the state they were derived from (RecentWindow), so that apply costs what it adds
        idempotencyKeys =
                RecentWindow.of(requireNonNull(idempotencyKeys, "idempotencyKeys is null"), RETAINED_IDEMPOTENCY_KEYS);
        // a version-1 checkpoint has no swept paths
        swept = RecentWindow.of(swept == null ? Map.of() : swept, RETAINED_SWEPT_PATHS);
        // a checkpoint written before logs had an identity names no table
        tableUuid = tableUuid == null ? Optional.empty() : tableUuid;
        // checkpoints of unpartitioned tables have no partitions
        partitions = partitions == null ? List.of() : ImmutableList.copyOf(partitions);
        checkArgument(nextPartitionId >= 0, "nextPartitionId is negative");
        expiredPartitions = expiredPartitions == null ? List.of() : ImmutableList.copyOf(expiredPartitions);
        for (int i = 0; i < partitions.size(); i++) {
            checkArgument(
                    partitions.get(i).id() < nextPartitionId
                            && (i == 0
                                    || partitions.get(i - 1).id()
                                            < partitions.get(i).id()),
                    "partitions must be ordered by id, below nextPartitionId %s: %s",
                    nextPartitionId,
                    partitions);
        }
    }

    /** This state, marked as the log of a table, for a checkpoint file. */
    public LogSnapshot withTableUuid(UUID uuid) {
        return new LogSnapshot(
                formatVersion,
                version,
                committedAtMillis,
                buckets,
                idempotencyKeys,
                swept,
                Optional.of(uuid),
                partitions,
                nextPartitionId,
                expiredPartitions);
    }

    /**
     * The snapshot after a commit that changes nothing: a commit another table's writer published into
     * this log (see {@link LogIdentity}) takes its version and is otherwise ignored.
     */
    public LogSnapshot skip(LogCommit commit, String commitFile) {
        if (commit.version() != version + 1) {
            throw corrupt(commitFile, "has version %s but follows version %s".formatted(commit.version(), version));
        }
        return new LogSnapshot(
                formatVersion,
                commit.version(),
                committedAtMillis,
                buckets,
                idempotencyKeys,
                swept,
                tableUuid,
                partitions,
                nextPartitionId,
                expiredPartitions);
    }

    public static LogSnapshot empty(int bucketCount) {
        return ofBuckets(0, java.util.Collections.nCopies(bucketCount, BucketLog.EMPTY));
    }

    /**
     * The state of an unpartitioned log at {@code version} made of these bucket logs alone (no idempotency keys,
     * swept paths or table): what a reader of given log ranges needs, not a state to write in a checkpoint.
     */
    public static LogSnapshot ofBuckets(long version, List<BucketLog> buckets) {
        return new LogSnapshot(
                LogCommit.FORMAT_VERSION,
                version,
                0,
                buckets,
                Map.of(),
                Map.of(),
                Optional.empty(),
                List.of(),
                0,
                List.of());
    }

    public int bucketCount() {
        return buckets.size();
    }

    public BucketLog bucket(int bucket) {
        checkArgument(bucket >= 0 && bucket < buckets.size(), "bucket %s out of range [0, %s)", bucket, buckets.size());
        return buckets.get(bucket);
    }

    /** The live partition with this id, if the log has it. */
    public Optional<PartitionLog> partition(int partitionId) {
        // few partitions are live at a time (expiry removes old ones): a scan is as cheap as an index
        for (PartitionLog partition : partitions) {
            if (partition.id() == partitionId) {
                return Optional.of(partition);
            }
        }
        return Optional.empty();
    }

    /** The path of a partition that partition expiry removed, while the state remembers it. */
    public Optional<String> expiredPartitionPath(int partitionId) {
        for (ExpiredPartition expired : expiredPartitions) {
            if (expired.id() == partitionId) {
                return Optional.of(expired.path());
            }
        }
        return Optional.empty();
    }

    /** The id of the live partition with this partition path, if the log has it. */
    public Optional<Integer> partitionId(String path) {
        for (PartitionLog partition : partitions) {
            if (partition.path().equals(path)) {
                return Optional.of(partition.id());
            }
        }
        return Optional.empty();
    }

    /** The log of a bucket of a partition; an empty one for a partition the log does not have. */
    public BucketLog bucket(PartitionBucket key) {
        return partition(key.partitionId())
                .map(partition -> partition.bucket(key.bucket()))
                .orElse(BucketLog.EMPTY);
    }

    /** Every live segment, of every bucket and partition. */
    public List<SegmentFile> liveSegments() {
        List<SegmentFile> live = new ArrayList<>();
        buckets.forEach(bucket -> live.addAll(bucket.segments()));
        partitions.forEach(partition -> partition.buckets().forEach(bucket -> live.addAll(bucket.segments())));
        return live;
    }

    public OffsetMap endOffsets() {
        Map<Integer, Long> offsets = new HashMap<>();
        for (int bucket = 0; bucket < buckets.size(); bucket++) {
            offsets.put(bucket, buckets.get(bucket).endOffset());
        }
        Map<PartitionBucket, Long> partitionOffsets = new HashMap<>();
        for (PartitionLog partition : partitions) {
            for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
                partitionOffsets.put(
                        new PartitionBucket(partition.id(), bucket),
                        partition.bucket(bucket).endOffset());
            }
        }
        return new OffsetMap(offsets, partitionOffsets);
    }

    /** The snapshot after {@code commit}; fails if the commit does not follow this version exactly. */
    public LogSnapshot apply(LogCommit commit, String commitFile) {
        if (commit.version() != version + 1) {
            throw corrupt(commitFile, "has version %s but follows version %s".formatted(commit.version(), version));
        }
        List<BucketLog> next = new ArrayList<>(buckets);
        PartitionChanges nextPartitions = new PartitionChanges(partitions, nextPartitionId, buckets.size(), commitFile);
        for (SegmentFile removed : commit.removed()) {
            if (removed.partitionId().isPresent()) {
                nextPartitions.removePrefixSegment(removed);
                continue;
            }
            next.set(removed.bucket(), removePrefixSegment(next.get(removed.bucket()), removed, commitFile));
        }
        commit.expiredPartitions().forEach(nextPartitions::expire);
        for (SegmentFile added : commit.added()) {
            if (added.partitionId().isPresent()) {
                nextPartitions.add(added);
                continue;
            }
            if (added.bucket() >= next.size()) {
                throw corrupt(
                        commitFile,
                        "adds a segment to bucket %s but the table has %s buckets"
                                .formatted(added.bucket(), next.size()));
            }
            next.set(added.bucket(), append(next.get(added.bucket()), added, "bucket " + added.bucket(), commitFile));
        }
        Map<String, Long> keys = idempotencyKeys;
        if (commit.idempotencyKey().isPresent()) {
            keys = remember(
                    idempotencyKeys,
                    List.of(commit.idempotencyKey().get()),
                    commit.version(),
                    RETAINED_IDEMPOTENCY_KEYS);
        }
        Map<String, Long> sweptPaths = swept;
        if (!commit.swept().isEmpty()) {
            sweptPaths = remember(swept, commit.swept(), commit.version(), RETAINED_SWEPT_PATHS);
        }
        List<PartitionLog> partitionsAfter = nextPartitions.partitions();
        // derived by this code, so in its format (a version-1 checkpoint's state gains the swept paths); the
        // partitioned format only where partitions exist, so an unpartitioned log's checkpoints stay as they were
        return new LogSnapshot(
                partitionsAfter.isEmpty() && nextPartitions.nextId() == 0
                        ? LogCommit.FORMAT_VERSION
                        : LogCommit.PARTITIONED_FORMAT_VERSION,
                commit.version(),
                commit.committedAtMillis(),
                next,
                keys,
                sweptPaths,
                tableUuid,
                partitionsAfter,
                nextPartitions.nextId(),
                nextPartitions.expired(expiredPartitions, RETAINED_EXPIRED_PARTITIONS));
    }

    /** {@code bucket} with {@code added} appended; {@code name} names the bucket in the error of a gap. */
    static BucketLog append(BucketLog bucket, SegmentFile added, String name, String commitFile) {
        if (added.baseOffset() != bucket.endOffset()) {
            throw corrupt(
                    commitFile,
                    "adds %s at offset %s but %s ends at %s"
                            .formatted(added.path(), added.baseOffset(), name, bucket.endOffset()));
        }
        List<SegmentFile> segments = SegmentLists.appended(bucket.segments(), added);
        return new BucketLog(bucket.startOffset(), added.endOffset(), segments);
    }

    /** {@code recent} plus {@code added} (mapped to {@code version}), keeping the newest {@code limit} entries. */
    private static Map<String, Long> remember(Map<String, Long> recent, List<String> added, long version, int limit) {
        return RecentWindow.of(recent, limit).remember(added, version);
    }

    static BucketLog removePrefixSegment(BucketLog bucket, SegmentFile removed, String commitFile) {
        if (bucket.segments().isEmpty() || !bucket.segments().getFirst().path().equals(removed.path())) {
            throw corrupt(
                    commitFile,
                    "removes %s, which is not the first live segment of bucket %s%s"
                            .formatted(
                                    removed.path(),
                                    removed.bucket(),
                                    removed.partition()
                                            .map(path -> " of partition " + path)
                                            .orElse("")));
        }
        List<SegmentFile> rest = SegmentLists.withoutFirst(bucket.segments());
        long start = rest.isEmpty() ? bucket.endOffset() : rest.getFirst().baseOffset();
        return new BucketLog(start, bucket.endOffset(), rest);
    }

    static LakestreamException corrupt(String commitFile, String problem) {
        return new LakestreamException(
                LOG_CORRUPT,
                "Log commit file %s %s; the log is inconsistent, restore the file or the log from a backup"
                        .formatted(commitFile, problem));
    }
}
