package io.lakestream.merge;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.LogSnapshot;
import io.lakestream.plan.LogRange;
import io.lakestream.table.LakestreamTable;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A primary-key split's log tail indexed once (last change per key), for an engine that reads the lake
 * with its own reader: {@link #changedKeys()} tells it which lake rows to drop, and {@link
 * UnionSplitReader#tailWinners} returns the tail's last upserts from the same index, so the tail's keys
 * are read once for both. Holds only heap memory: the allocator is used while building.
 */
public final class IndexedTail {
    private final LogRange range;
    private final TailIndex index;
    private final ChangedKeys changedKeys;
    private final MergeCounters counters;

    private IndexedTail(LogRange range, TailIndex index, ChangedKeys changedKeys, MergeCounters counters) {
        this.range = range;
        this.index = index;
        this.changedKeys = changedKeys;
        this.counters = counters;
    }

    /** Indexes the log range {@code range} at the pinned log snapshot, in one pass. */
    public static IndexedTail build(LakestreamTable table, LogSnapshot log, LogRange range, BufferAllocator allocator) {
        requireNonNull(range, "range is null");
        MergeCounters counters = new MergeCounters();
        TailIndex index = TailIndex.build(table, log, range, 0, 1, allocator, counters);
        return new IndexedTail(range, index, changedKeys(table, log, range, index, allocator), counters);
    }

    /**
     * The index's keys as {@link ChangedKeys} where both use the same layout; a time or timestamp key,
     * whose tail index holds longs but whose changed keys are encoded (engines differ in units), is read again.
     */
    private static ChangedKeys changedKeys(
            LakestreamTable table, LogSnapshot log, LogRange range, TailIndex index, BufferAllocator allocator) {
        return switch (index.keys()) {
            case TailKeys.SingleLong longs when ChangedLongKeys.supports(table) -> longs.changedKeys();
            case TailKeys.Generic encoded -> new ChangedEncodedKeys(encoded.index());
            default -> ChangedEncodedKeys.read(table, log, range, allocator);
        };
    }

    /** Every key the tail changes. */
    public ChangedKeys changedKeys() {
        return changedKeys;
    }

    LogRange range() {
        return range;
    }

    TailIndex index() {
        return index;
    }

    /** The log rows indexed and superseded (once added to a reader's counters by {@link UnionSplitReader}). */
    MergeCounters counters() {
        return counters;
    }
}
