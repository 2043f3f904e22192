package io.lakestream.spark;

import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionLog;
import io.lakestream.plan.LogRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The logs a stream reads between two of its positions: every bucket, and for a log kept per (partition, bucket)
 * every bucket of every partition (docs/format.md "The log of a partitioned table"), each with its own offsets. A
 * partition that appears after a position is at offset 0 there (its first offset not yet emitted).
 */
final class StreamRanges {
    private StreamRanges() {}

    /** Per log of {@code to} (a bucket, or a bucket of a partition), the offsets {@code [from, to)}; empty ones left out. */
    static List<LogRange> between(OffsetMap from, OffsetMap to) {
        List<LogRange> ranges = new ArrayList<>();
        to.offsets().forEach((bucket, end) -> {
            long start = from.offset(bucket);
            if (end > start) {
                ranges.add(new LogRange(bucket, start, end));
            }
        });
        to.partitionOffsets().forEach((log, end) -> {
            long start = from.offset(log);
            if (end > start) {
                ranges.add(new LogRange(log, start, end));
            }
        });
        return ranges;
    }

    /** The changes between two positions, summed over every log. */
    static long rows(OffsetMap from, OffsetMap to) {
        return between(from, to).stream().mapToLong(LogRange::rowCount).sum();
    }

    /** The partition of a range of a partitioned log, if {@code log} still has it. */
    static Optional<PartitionLog> partition(LogSnapshot log, LogRange range) {
        return range.partitionId().flatMap(log::partition);
    }

    /**
     * The first offset of the range's log that {@code log} still holds: below it retention removed the changes. A
     * partition that {@code log} no longer has (removed whole once tiered) holds none of the range.
     */
    static long liveStart(LogSnapshot log, LogRange range) {
        if (range.partitionId().isPresent() && partition(log, range).isEmpty()) {
            return Long.MAX_VALUE;
        }
        return range.in(log).startOffset();
    }

    /** Names the range's log for messages: {@code bucket 3}, or {@code bucket 3 of partition region=eu}. */
    static String describe(LogSnapshot log, LogRange range) {
        return partition(log, range)
                .map(partition -> "bucket %s of partition %s".formatted(range.bucket(), partition.path()))
                .orElseGet(range::describeLog);
    }
}
