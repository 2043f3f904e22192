package io.lakestream.log;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The last few log snapshots a {@link FileStreamLog} derived, by version. A snapshot of a committed
 * version never changes, so a reader that pinned a version a moment ago (a query planning splits,
 * then opening them) gets it without re-reading the checkpoint and the commits after it.
 */
final class RecentLogSnapshots {
    private final int capacity;
    private final ConcurrentSkipListMap<Long, LogSnapshot> byVersion = new ConcurrentSkipListMap<>();

    RecentLogSnapshots(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
        }
        this.capacity = capacity;
    }

    void add(LogSnapshot snapshot) {
        byVersion.put(snapshot.version(), snapshot);
        // the oldest go first: readers pin recent versions
        while (byVersion.size() > capacity) {
            byVersion.pollFirstEntry();
        }
    }

    /** The newest known snapshot at or below {@code version}. */
    Optional<LogSnapshot> floor(long version) {
        Map.Entry<Long, LogSnapshot> entry = byVersion.floorEntry(version);
        return entry == null ? Optional.empty() : Optional.of(entry.getValue());
    }
}
