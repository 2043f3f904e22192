package io.lakestream.tiering;

import static com.google.common.base.Preconditions.checkArgument;

import io.lakestream.log.BucketLog;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.SegmentFile;
import io.lakestream.plan.LogTail;
import java.time.Duration;
import java.util.Optional;

/**
 * How far the lake is behind the log: records not yet tiered, and the age of the oldest of them
 * (from the commit time of the segment that holds it; segments record when they were committed).
 *
 * @param pendingRecords log records at or above the lake offsets
 * @param oldestPendingAge age of the oldest untiered change; empty when nothing is pending
 */
public record TieringLag(long pendingRecords, Optional<Duration> oldestPendingAge) {
    public static final TieringLag NONE = new TieringLag(0, Optional.empty());

    public TieringLag {
        checkArgument(pendingRecords >= 0, "pendingRecords is negative");
    }

    public static TieringLag of(OffsetMap lakeOffsets, LogSnapshot log, long nowMillis) {
        long pending = 0;
        long oldestCommit = Long.MAX_VALUE;
        // every bucket, and every bucket of every partition of a partitioned table's log
        for (LogTail tail : LogTail.of(lakeOffsets, log)) {
            BucketLog bucketLog = tail.log();
            long from = tail.lakeOffset();
            if (from >= bucketLog.endOffset()) {
                continue;
            }
            pending += bucketLog.endOffset() - from;
            for (SegmentFile segment : bucketLog.segmentsOverlapping(from, bucketLog.endOffset())) {
                oldestCommit = Math.min(oldestCommit, segment.committedAtMillis());
                break;
            }
        }
        if (pending == 0) {
            return NONE;
        }
        Optional<Duration> age = oldestCommit == Long.MAX_VALUE
                ? Optional.empty()
                : Optional.of(Duration.ofMillis(Math.max(0, nowMillis - oldestCommit)));
        return new TieringLag(pending, age);
    }
}
