package io.lakestream.log;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A table's per-bucket change log: what union reads, writers and tiering need from it. The
 * embedded default is {@link FileStreamLog}; a distributed log (Kafka partitions, Fluss buckets)
 * can implement the same contract.
 */
public interface StreamLog {
    int bucketCount();

    /** The newest committed version. */
    LogSnapshot latestSnapshot();

    /** The log as of a committed version; a clear error for an unknown version. */
    LogSnapshot snapshot(long version);

    /**
     * The newest committed version of the log itself, even through a view pinned at an older one: a reader
     * whose segment file is gone asks it whether retention removed the segment since the read pinned its
     * version, or the file is really missing.
     */
    default LogSnapshot newestSnapshot() {
        return latestSnapshot();
    }

    /**
     * Whether the log still belongs to the table this handle was opened for, read now: false once that table
     * was dropped, or dropped and re-created at the same location. A reader whose segment file is gone asks
     * it before calling the log corrupt. Always true for a log not bound to a table.
     */
    default boolean ownedByItsTable() {
        return true;
    }

    /**
     * The newest version committed at or before {@code timestampMillis}; 0 (the empty log) when the
     * first commit is later. Commit times come from the writers' clocks; {@link FileStreamLog} dates a
     * commit no earlier than its predecessor, so they grow with the version (docs/writes.md, "Commit
     * times and time travel under clock skew").
     */
    long versionAsOf(long timestampMillis);

    /**
     * Publishes staged segments atomically as one commit spanning all their buckets, assigning base
     * offsets. If {@code idempotencyKey} was used by an earlier commit, nothing is published and that
     * commit's version is returned.
     */
    CommitResult commit(List<StagedSegment> segments, Optional<String> idempotencyKey);

    /**
     * Like {@link #commit}, but only while every bucket still ends at {@code expectedEnds}: no change
     * was committed since the state the caller read (retention, which removes only old segments,
     * does not count). For writes planned from a read, e.g. an overwrite's deletes. Otherwise
     * publishes nothing and fails with {@code LOG_COMMIT_CONFLICT}.
     */
    CommitResult commitIfUnchanged(
            List<StagedSegment> segments, Optional<String> idempotencyKey, OffsetMap expectedEnds);

    /**
     * Like {@link #commit}, but with snapshot isolation for a write planned from a read of log version
     * {@code readVersion} (an UPDATE, a DELETE with a condition, a MERGE): publishes only if {@code
     * check} finds no conflict among the changes committed after {@code readVersion}, checked on the
     * very version the commit is published on top of (and again on a newer one if the publish loses a
     * race). Otherwise publishes nothing and fails with {@code LOG_COMMIT_CONFLICT}; the caller
     * discards the segments. A commit retried with an idempotency key that already landed returns
     * that commit's version, unchecked (its own changes would otherwise look like a conflict).
     */
    CommitResult commitIfNoConflict(
            List<StagedSegment> segments, Optional<String> idempotencyKey, long readVersion, CommitConflictCheck check);

    /** Deletes staged segments that will not be committed (an aborted distributed write). */
    void discard(List<StagedSegment> segments);

    /**
     * Removes the segments of each bucket that lie entirely below {@code keepFrom} and were committed
     * before {@code committedBeforeMillis}; returns the number of segments removed.
     */
    int removeSegments(OffsetMap keepFrom, long committedBeforeMillis);

    /**
     * Partition expiry's log step: removes whole partitions of a partitioned log, every live segment of each and the
     * partition itself from the state, in one {@code RETENTION} commit. Only those of {@code partitionIds} that are
     * live and completely in the lake ({@code lakeOffsets} equals the end of each of their buckets) on the very state
     * the commit is published on; a write into one since (or a lost publish race) is re-checked, so untiered changes
     * are never removed. Returns the ids removed; nothing is published when none qualifies.
     */
    default List<Integer> expirePartitions(Collection<Integer> partitionIds, OffsetMap lakeOffsets) {
        throw new UnsupportedOperationException("this log cannot expire partitions");
    }

    /**
     * Deletes staged segment files that will never be committed (the orphan sweep): publishes a {@code
     * SWEEP} commit naming those of {@code candidates} (paths relative to the log root) that the newest
     * version does not reference, then deletes them. From then on a commit naming one of them is refused
     * with {@code STAGED_SEGMENT_MISSING}, so no acknowledged commit can reference a swept file. Returns
     * the paths deleted.
     */
    List<String> removeOrphans(Collection<String> candidates);

    /** Where staged segments are written and committed segments are read. */
    LogFileSystem fileSystem();

    LogPaths paths();

    /**
     * The log's identity record (which table it belongs to, and the layout it was created with), if it
     * has one and this handle is bound to a table; see {@link LogIdentity}.
     */
    default Optional<LogIdentity> identity() {
        return Optional.empty();
    }

    /**
     * Whether this log is one log per (partition, bucket), as its identity record says; a log without one (created
     * before records existed, or not bound to a table) is per bucket.
     */
    default boolean isPartitionedLog() {
        return identity().map(LogIdentity::partitionedLog).orElse(false);
    }

    /**
     * Result of a commit.
     *
     * @param version the version that holds the segments
     * @param alreadyApplied true if an earlier commit with the same idempotency key holds them
     */
    record CommitResult(long version, boolean alreadyApplied) {}
}
