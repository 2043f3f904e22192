package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.CommitConflictCheck;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPaths;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** A log that forwards every call: tests override one method to make something happen at that point. */
class ForwardingStreamLog implements StreamLog {
    private final StreamLog log;

    ForwardingStreamLog(StreamLog log) {
        this.log = requireNonNull(log, "log is null");
    }

    @Override
    public int bucketCount() {
        return log.bucketCount();
    }

    @Override
    public LogSnapshot latestSnapshot() {
        return log.latestSnapshot();
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
    public LogSnapshot snapshot(long version) {
        return log.snapshot(version);
    }

    @Override
    public long versionAsOf(long timestampMillis) {
        return log.versionAsOf(timestampMillis);
    }

    @Override
    public CommitResult commit(List<StagedSegment> segments, Optional<String> idempotencyKey) {
        return log.commit(segments, idempotencyKey);
    }

    @Override
    public CommitResult commitIfUnchanged(
            List<StagedSegment> segments, Optional<String> idempotencyKey, OffsetMap expectedEnds) {
        return log.commitIfUnchanged(segments, idempotencyKey, expectedEnds);
    }

    @Override
    public CommitResult commitIfNoConflict(
            List<StagedSegment> segments,
            Optional<String> idempotencyKey,
            long readVersion,
            CommitConflictCheck check) {
        return log.commitIfNoConflict(segments, idempotencyKey, readVersion, check);
    }

    @Override
    public void discard(List<StagedSegment> segments) {
        log.discard(segments);
    }

    @Override
    public int removeSegments(OffsetMap keepFrom, long committedBeforeMillis) {
        return log.removeSegments(keepFrom, committedBeforeMillis);
    }

    @Override
    public List<Integer> expirePartitions(Collection<Integer> partitionIds, OffsetMap lakeOffsets) {
        return log.expirePartitions(partitionIds, lakeOffsets);
    }

    @Override
    public List<String> removeOrphans(Collection<String> candidates) {
        return log.removeOrphans(candidates);
    }

    @Override
    public LogFileSystem fileSystem() {
        return log.fileSystem();
    }

    @Override
    public LogPaths paths() {
        return log.paths();
    }
}
