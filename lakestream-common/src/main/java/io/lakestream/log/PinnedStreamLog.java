package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LOG_RANGE_INVALID;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A read-only view of a log as of one committed version: its "latest" snapshot stays that version
 * however many commits follow, so every step of a query (planning, statistics, reading splits) sees
 * the same log. Writes go to the log itself, never through a pinned view.
 */
public final class PinnedStreamLog implements StreamLog {
    private final StreamLog log;
    private final long version;

    public PinnedStreamLog(StreamLog log, long version) {
        this.log = requireNonNull(log, "log is null");
        if (version < 0) {
            throw new IllegalArgumentException("version is negative: " + version);
        }
        this.version = version;
    }

    /** The pinned version. */
    public long version() {
        return version;
    }

    @Override
    public int bucketCount() {
        return log.bucketCount();
    }

    @Override
    public LogSnapshot latestSnapshot() {
        return log.snapshot(version);
    }

    @Override
    public LogSnapshot newestSnapshot() {
        return log.newestSnapshot();
    }

    @Override
    public boolean ownedByItsTable() {
        return log.ownedByItsTable();
    }

    @Override
    public LogSnapshot snapshot(long requested) {
        if (requested > version) {
            throw new LakestreamException(
                    LOG_RANGE_INVALID,
                    "Log version %s does not exist: the newest version is %s".formatted(requested, version));
        }
        return log.snapshot(requested);
    }

    @Override
    public long versionAsOf(long timestampMillis) {
        // versions grow with commit time: the answer over the whole log, capped at the pinned version
        return Math.min(log.versionAsOf(timestampMillis), version);
    }

    @Override
    public CommitResult commit(List<StagedSegment> segments, Optional<String> idempotencyKey) {
        throw readOnly();
    }

    @Override
    public CommitResult commitIfUnchanged(
            List<StagedSegment> segments, Optional<String> idempotencyKey, OffsetMap expectedEnds) {
        throw readOnly();
    }

    @Override
    public CommitResult commitIfNoConflict(
            List<StagedSegment> segments,
            Optional<String> idempotencyKey,
            long readVersion,
            CommitConflictCheck check) {
        throw readOnly();
    }

    @Override
    public void discard(List<StagedSegment> segments) {
        throw readOnly();
    }

    @Override
    public int removeSegments(OffsetMap keepFrom, long committedBeforeMillis) {
        throw readOnly();
    }

    @Override
    public List<Integer> expirePartitions(Collection<Integer> partitionIds, OffsetMap lakeOffsets) {
        throw readOnly();
    }

    @Override
    public List<String> removeOrphans(Collection<String> candidates) {
        throw readOnly();
    }

    @Override
    public LogFileSystem fileSystem() {
        return log.fileSystem();
    }

    @Override
    public LogPaths paths() {
        return log.paths();
    }

    @Override
    public Optional<LogIdentity> identity() {
        return log.identity();
    }

    private UnsupportedOperationException readOnly() {
        return new UnsupportedOperationException(
                "The log at %s pinned at version %s is a read-only view; write to the log itself"
                        .formatted(log.paths().root(), version));
    }
}
