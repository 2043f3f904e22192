package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Collections;
import java.util.List;

/**
 * The live part of one bucket's log at a version: offsets {@code [startOffset, endOffset)} held by
 * contiguous segments. Offsets below {@code startOffset} were removed by retention.
 */
public record BucketLog(long startOffset, long endOffset, List<SegmentFile> segments) {
    public static final BucketLog EMPTY = new BucketLog(0, 0, List.of());

    public BucketLog {
        // shared with the bucket's earlier states (SegmentLists): a commit appends without copying the list
        segments = SegmentLists.of(segments);
        checkArgument(
                0 <= startOffset && startOffset <= endOffset, "invalid bucket range [%s, %s)", startOffset, endOffset);
    }

    /** Segments holding any offset in {@code [from, to)}. */
    public List<SegmentFile> segmentsOverlapping(long from, long to) {
        // contiguous and in offset order: a binary search for the first that ends after from, not a scan of every
        // live segment (readers and planners call this per bucket and query, and a bucket may hold thousands)
        int low = 0;
        int high = segments.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (segments.get(middle).endOffset() > from) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        int end = low;
        while (end < segments.size() && segments.get(end).baseOffset() < to) {
            end++;
        }
        return low == end ? List.of() : Collections.unmodifiableList(segments.subList(low, end));
    }
}
