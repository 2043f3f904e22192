package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The content of one commit file {@code _commits/<version>.json}: the segments it adds (an append,
 * possibly spanning many buckets) or removes (retention).
 *
 * @param formatVersion version of this file format
 * @param version the log version this commit creates
 * @param committedAtMillis wall-clock time of the commit
 * @param idempotencyKey a key that makes a retried commit a no-op (e.g. a query id)
 * @param operation what the commit does
 * @param added segments added, with their base offsets
 * @param removed segments removed by retention (always a prefix of their bucket)
 * @param tableUuid the table whose log this commit was published for (see {@link LogIdentity}); absent in
 *     commits written before logs had an identity
 */
public record LogCommit(
        int formatVersion,
        long version,
        long committedAtMillis,
        Optional<String> idempotencyKey,
        Operation operation,
        List<SegmentFile> added,
        List<SegmentFile> removed,
        Optional<UUID> tableUuid) {
    public static final int FORMAT_VERSION = 1;

    public enum Operation {
        APPEND,
        RETENTION
    }

    public LogCommit {
        checkArgument(version >= 1, "commit versions start at 1");
        requireNonNull(idempotencyKey, "idempotencyKey is null");
        requireNonNull(operation, "operation is null");
        added = ImmutableList.copyOf(requireNonNull(added, "added is null"));
        removed = ImmutableList.copyOf(requireNonNull(removed, "removed is null"));
        requireNonNull(tableUuid, "tableUuid is null");
    }

    /** A commit not bound to a table; {@link FileStreamLog} binds it with {@link #withTableUuid} when it publishes. */
    public LogCommit(
            int formatVersion,
            long version,
            long committedAtMillis,
            Optional<String> idempotencyKey,
            Operation operation,
            List<SegmentFile> added,
            List<SegmentFile> removed) {
        this(formatVersion, version, committedAtMillis, idempotencyKey, operation, added, removed, Optional.empty());
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
                Optional.of(uuid));
    }
}
