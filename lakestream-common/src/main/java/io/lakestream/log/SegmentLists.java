package io.lakestream.log;

import java.util.List;

/**
 * The storage of a bucket's live segments ({@link BucketLog#segments()}): an immutable {@link ChunkedList}, so a
 * commit appends a segment and retention drops the first ones without copying the bucket's whole list.
 */
final class SegmentLists {
    /** Chunks small enough that a bucket with a few segments stays small, large enough to add few of them. */
    private static final int CHUNK_CAPACITY = 64;

    private SegmentLists() {}

    /** {@code segments} as the storage: the same list if it is already, else an immutable copy. */
    static List<SegmentFile> of(List<SegmentFile> segments) {
        return ChunkedList.copyOf(segments, CHUNK_CAPACITY, null);
    }

    /** {@code segments} with {@code added} at the end. */
    static List<SegmentFile> appended(List<SegmentFile> segments, SegmentFile added) {
        return ChunkedList.<SegmentFile>copyOf(segments, CHUNK_CAPACITY, null).append(added);
    }

    /** {@code segments} without the first one. */
    static List<SegmentFile> withoutFirst(List<SegmentFile> segments) {
        return ChunkedList.<SegmentFile>copyOf(segments, CHUNK_CAPACITY, null).dropFirst(1);
    }
}
