package io.lakestream.plan;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.google.common.collect.ImmutableList;
import io.lakestream.log.BucketLog;
import io.lakestream.log.LogCommit;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionLog;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StreamLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A unit of parallel reading. For a primary-key table it is one bucket: the bucket's lake files
 * and its log range {@code [O[b], E[b])}, merged by key. For an append-only table it is a group of
 * lake files or one log range, read independently.
 *
 * <p>A union split also carries the log segments that hold its range at the pinned version (up to {@link
 * #MAX_CARRIED_SEGMENTS}): the planner has them, and a reader on another node (a Trino worker, a Spark
 * executor) would otherwise read every log commit since the last version that node saw to find them.
 *
 * @param bucket the bucket, when the split is one bucket's data
 * @param mode how to read it
 * @param lakeFiles lake data files with their deletes
 * @param logRange the log part; empty when the split has none
 * @param logVersion the pinned log version (segments are resolved at this version)
 * @param mergeByKey whether log changes replace lake rows by primary key (primary-key union splits)
 * @param logSegments the segments of the log range's bucket that hold any of its offsets at {@code logVersion},
 *     in offset order; empty when the split does not carry them (no log range, a changelog split, or more
 *     segments than {@link #MAX_CARRIED_SEGMENTS}): then the reader finds them in the log
 */
public record UnionSplit(
        OptionalInt bucket,
        ReadMode mode,
        List<LakeFile> lakeFiles,
        Optional<LogRange> logRange,
        long logVersion,
        boolean mergeByKey,
        Optional<List<SegmentFile>> logSegments) {
    /**
     * A split carries at most this many segments (about 200 bytes each in JSON): a tail that tiering keeps short
     * has a few; a longer one is found in the log by the node that reads it, once per log version and node.
     */
    public static final int MAX_CARRIED_SEGMENTS = 128;

    @JsonCreator
    public UnionSplit {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(mode, "mode is null");
        lakeFiles = ImmutableList.copyOf(requireNonNull(lakeFiles, "lakeFiles is null"));
        requireNonNull(logRange, "logRange is null");
        logSegments = logSegments == null ? Optional.empty() : logSegments.map(ImmutableList::copyOf);
        if (logSegments.isPresent()) {
            checkArgument(logRange.isPresent(), "a split without a log range carries no log segments");
            LogRange range = logRange.get();
            for (SegmentFile segment : logSegments.get()) {
                checkArgument(
                        range.sameLog(segment)
                                && segment.baseOffset() < range.to()
                                && segment.endOffset() > range.from(),
                        "segment %s does not hold offsets of the range %s",
                        segment,
                        range);
            }
        }
    }

    /**
     * {@code range} of {@code log} (the log at {@code logVersion}) as a split of {@code mode}, carrying the segments
     * that hold it when there are at most {@link #MAX_CARRIED_SEGMENTS}.
     */
    static UnionSplit withLog(
            OptionalInt bucket,
            ReadMode mode,
            List<LakeFile> lakeFiles,
            LogRange range,
            LogSnapshot log,
            boolean mergeByKey) {
        List<SegmentFile> segments = range.in(log).segmentsOverlapping(range.from(), range.to());
        return new UnionSplit(
                bucket,
                mode,
                lakeFiles,
                Optional.of(range),
                log.version(),
                mergeByKey,
                segments.size() <= MAX_CARRIED_SEGMENTS ? Optional.of(segments) : Optional.empty());
    }

    /** Rows the split reads at most: its weight for scheduling. */
    public long estimatedRows() {
        return lakeFiles.stream().mapToLong(LakeFile::recordCount).sum()
                + logRange.map(LogRange::rowCount).orElse(0L);
    }

    /** True if there is no log tail to merge: the lake files can be returned as they are. */
    public boolean isLakeOnly() {
        return logRange.isEmpty() || logRange.get().isEmpty();
    }

    /** This split without its lake files: its log tail alone (e.g. after the engine read the lake files itself). */
    public UnionSplit tailOnly() {
        return new UnionSplit(bucket, mode, List.of(), logRange, logVersion, mergeByKey, logSegments);
    }

    /**
     * The log at {@code logVersion} as far as this split reads it: from the segments it carries, with no log read,
     * or else {@code log}'s snapshot at that version (which reads the commits the node has not read yet). Only the
     * range's bucket is filled in a snapshot built from carried segments: use it for this split's range alone.
     *
     * @param log the table's log, pinned at this split's version
     */
    public LogSnapshot logSnapshot(StreamLog log) {
        if (logSegments.isEmpty()) {
            return log.snapshot(logVersion);
        }
        LogRange range = logRange.orElseThrow();
        List<SegmentFile> segments = logSegments.get();
        long start = segments.isEmpty()
                ? range.from()
                : Math.min(range.from(), segments.getFirst().baseOffset());
        long end = segments.isEmpty()
                ? range.to()
                : Math.max(range.to(), segments.getLast().endOffset());
        List<BucketLog> buckets = new ArrayList<>(Collections.nCopies(log.bucketCount(), BucketLog.EMPTY));
        BucketLog carried = new BucketLog(start, end, segments);
        if (range.partitionId().isEmpty()) {
            buckets.set(range.bucket(), carried);
            return LogSnapshot.ofBuckets(logVersion, buckets);
        }
        // only the range's partition, and in it only the range's bucket, is filled in
        int partitionId = range.partitionId().get();
        String path = segments.isEmpty() ? "" : segments.getFirst().partition().orElseThrow();
        List<BucketLog> partitionBuckets = new ArrayList<>(buckets);
        partitionBuckets.set(range.bucket(), carried);
        return new LogSnapshot(
                LogCommit.PARTITIONED_FORMAT_VERSION,
                logVersion,
                0,
                buckets,
                Map.of(),
                Map.of(),
                Optional.empty(),
                List.of(new PartitionLog(partitionId, path, partitionBuckets)),
                partitionId + 1,
                List.of());
    }
}
