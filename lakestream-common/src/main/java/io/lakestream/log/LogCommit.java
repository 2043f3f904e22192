package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Optional;

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
 */
public record LogCommit(
        int formatVersion,
        long version,
        long committedAtMillis,
        Optional<String> idempotencyKey,
        Operation operation,
        List<SegmentFile> added,
        List<SegmentFile> removed) {
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
    }
}
