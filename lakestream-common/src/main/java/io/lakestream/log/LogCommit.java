package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The content of one commit file {@code _commits/<version>.json}: the segments it adds (an append,
 * possibly spanning many buckets) or removes (retention), or the unreferenced segment files it is
 * about to delete (an orphan sweep).
 *
 * @param formatVersion version of this file format
 * @param version the log version this commit creates
 * @param committedAtMillis wall-clock time of the commit
 * @param idempotencyKey a key that makes a retried commit a no-op (e.g. a query id)
 * @param operation what the commit does
 * @param added segments added, with their base offsets
 * @param removed segments removed by retention (always a prefix of their bucket)
 * @param swept paths (relative to the log root) of staged segment files no version references, which
 *     the sweep that published this commit deletes after publishing it; a commit naming one of them
 *     later is refused (format version 2; absent, hence empty, in version 1)
 * @param tableUuid the table whose log this commit was published for (see {@link LogIdentity}); absent in
 *     commits written before logs had an identity
 * @param expiredPartitions ids of partitions this {@code RETENTION} commit removes from the log state (partition
 *     expiry): {@code removed} holds every live segment of each; the id is never used again. Absent (empty) in every
 *     other commit, so their files are unchanged
 */
public record LogCommit(
        int formatVersion,
        long version,
        long committedAtMillis,
        Optional<String> idempotencyKey,
        Operation operation,
        List<SegmentFile> added,
        List<SegmentFile> removed,
        List<String> swept,
        Optional<UUID> tableUuid,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Integer> expiredPartitions) {
    /** 2: the {@code SWEEP} operation and {@code swept}; version-1 files are read as they are. */
    public static final int FORMAT_VERSION = 2;

    /**
     * 3: segments of a partitioned table name their {@code partition} and {@code partitionId}; only commits and
     * checkpoints of partitioned tables are written in it, so an unpartitioned log keeps version 2 byte for byte.
     * A version-2 reader of a partitioned log finds two segments at one bucket's offset and reports corruption
     * instead of misreading it.
     */
    public static final int PARTITIONED_FORMAT_VERSION = 3;

    /** The format version of a commit adding or removing these segments. */
    public static int formatVersion(List<SegmentFile> added, List<SegmentFile> removed) {
        boolean partitioned = added.stream()
                        .anyMatch(segment -> segment.partition().isPresent())
                || removed.stream().anyMatch(segment -> segment.partition().isPresent());
        return partitioned ? PARTITIONED_FORMAT_VERSION : FORMAT_VERSION;
    }

    public enum Operation {
        APPEND,
        RETENTION,
        /** Adds and removes no segment: records staged files that are deleted as orphans (see docs/format.md). */
        SWEEP
    }

    public LogCommit {
        checkArgument(version >= 1, "commit versions start at 1");
        requireNonNull(idempotencyKey, "idempotencyKey is null");
        requireNonNull(operation, "operation is null");
        added = ImmutableList.copyOf(requireNonNull(added, "added is null"));
        removed = ImmutableList.copyOf(requireNonNull(removed, "removed is null"));
        // a version-1 file has no swept paths
        swept = swept == null ? List.of() : ImmutableList.copyOf(swept);
        // a commit written before logs had an identity names no table
        tableUuid = tableUuid == null ? Optional.empty() : tableUuid;
        // only partition expiry's commits have them
        expiredPartitions = expiredPartitions == null ? List.of() : ImmutableList.copyOf(expiredPartitions);
    }

    /** A commit not bound to a table; {@link FileStreamLog} binds it with {@link #withTableUuid} when it publishes. */
    public LogCommit(
            int formatVersion,
            long version,
            long committedAtMillis,
            Optional<String> idempotencyKey,
            Operation operation,
            List<SegmentFile> added,
            List<SegmentFile> removed,
            List<String> swept) {
        this(
                formatVersion,
                version,
                committedAtMillis,
                idempotencyKey,
                operation,
                added,
                removed,
                swept,
                Optional.empty(),
                List.of());
    }

    public LogCommit withTableUuid(UUID uuid) {
        return new LogCommit(
                formatVersion,
                version,
                committedAtMillis,
                idempotencyKey,
                operation,
                added,
                removed,
                swept,
                Optional.of(uuid),
                expiredPartitions);
    }
}
