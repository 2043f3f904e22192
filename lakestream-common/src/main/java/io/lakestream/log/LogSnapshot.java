package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static java.util.Objects.requireNonNull;

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
 */
public record LogSnapshot(
        int formatVersion,
        long version,
        long committedAtMillis,
        List<BucketLog> buckets,
        Map<String, Long> idempotencyKeys,
        Map<String, Long> swept,
        Optional<UUID> tableUuid) {
    /** How many keyed commits a retried commit is recognized within. */
    public static final int RETAINED_IDEMPOTENCY_KEYS = 10_000;

    /**
     * How many swept paths a commit is checked against. A commit also checks that its files exist, so a
     * path only needs to be remembered while its sweeper may not yet have deleted the file (see
     * docs/format.md, "Orphan sweeps").
     */
    public static final int RETAINED_SWEPT_PATHS = 10_000;

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
    }

    public LogSnapshot(
            int formatVersion,
            long version,
            long committedAtMillis,
            List<BucketLog> buckets,
            Map<String, Long> idempotencyKeys,
            Map<String, Long> swept) {
        this(formatVersion, version, committedAtMillis, buckets, idempotencyKeys, swept, Optional.empty());
    }

    /** This state, marked as the log of a table, for a checkpoint file. */
    public LogSnapshot withTableUuid(UUID uuid) {
        return new LogSnapshot(
                formatVersion, version, committedAtMillis, buckets, idempotencyKeys, swept, Optional.of(uuid));
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
                formatVersion, commit.version(), committedAtMillis, buckets, idempotencyKeys, swept, tableUuid);
    }

    public static LogSnapshot empty(int bucketCount) {
        return new LogSnapshot(
                LogCommit.FORMAT_VERSION,
                0,
                0,
                java.util.Collections.nCopies(bucketCount, BucketLog.EMPTY),
                Map.of(),
                Map.of());
    }

    public int bucketCount() {
        return buckets.size();
    }

    public BucketLog bucket(int bucket) {
        checkArgument(bucket >= 0 && bucket < buckets.size(), "bucket %s out of range [0, %s)", bucket, buckets.size());
        return buckets.get(bucket);
    }

    public OffsetMap endOffsets() {
        Map<Integer, Long> offsets = new HashMap<>();
        for (int bucket = 0; bucket < buckets.size(); bucket++) {
            offsets.put(bucket, buckets.get(bucket).endOffset());
        }
        return new OffsetMap(offsets);
    }

    /** The snapshot after {@code commit}; fails if the commit does not follow this version exactly. */
    public LogSnapshot apply(LogCommit commit, String commitFile) {
        if (commit.version() != version + 1) {
            throw corrupt(commitFile, "has version %s but follows version %s".formatted(commit.version(), version));
        }
        List<BucketLog> next = new ArrayList<>(buckets);
        for (SegmentFile removed : commit.removed()) {
            next.set(removed.bucket(), removePrefixSegment(next, removed, commitFile));
        }
        for (SegmentFile added : commit.added()) {
            if (added.bucket() >= next.size()) {
                throw corrupt(
                        commitFile,
                        "adds a segment to bucket %s but the table has %s buckets"
                                .formatted(added.bucket(), next.size()));
            }
            BucketLog bucket = next.get(added.bucket());
            if (added.baseOffset() != bucket.endOffset()) {
                throw corrupt(
                        commitFile,
                        "adds %s at offset %s but bucket %s ends at %s"
                                .formatted(added.path(), added.baseOffset(), added.bucket(), bucket.endOffset()));
            }
            List<SegmentFile> segments = SegmentLists.appended(bucket.segments(), added);
            next.set(added.bucket(), new BucketLog(bucket.startOffset(), added.endOffset(), segments));
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
        // derived by this code, so in its format (a version-1 checkpoint's state gains the swept paths)
        return new LogSnapshot(
                LogCommit.FORMAT_VERSION,
                commit.version(),
                commit.committedAtMillis(),
                next,
                keys,
                sweptPaths,
                tableUuid);
    }

    /** {@code recent} plus {@code added} (mapped to {@code version}), keeping the newest {@code limit} entries. */
    private static Map<String, Long> remember(Map<String, Long> recent, List<String> added, long version, int limit) {
        return RecentWindow.of(recent, limit).remember(added, version);
    }

    private static BucketLog removePrefixSegment(List<BucketLog> buckets, SegmentFile removed, String commitFile) {
        BucketLog bucket = buckets.get(removed.bucket());
        if (bucket.segments().isEmpty() || !bucket.segments().getFirst().path().equals(removed.path())) {
            throw corrupt(
                    commitFile,
                    "removes %s, which is not the first live segment of bucket %s"
                            .formatted(removed.path(), removed.bucket()));
        }
        List<SegmentFile> rest = SegmentLists.withoutFirst(bucket.segments());
        long start = rest.isEmpty() ? bucket.endOffset() : rest.getFirst().baseOffset();
        return new BucketLog(start, bucket.endOffset(), rest);
    }

    private static LakestreamException corrupt(String commitFile, String problem) {
        return new LakestreamException(
                LOG_CORRUPT,
                "Log commit file %s %s; the log is inconsistent, restore the file or the log from a backup"
                        .formatted(commitFile, problem));
    }
}
