package io.lakestream.merge;

import io.lakestream.log.LogSnapshot;
import io.lakestream.plan.LogRange;
import io.lakestream.table.LakestreamTable;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Every key a bucket's log tail changes (upserts and deletes alike), for a lake reader outside this
 * module that merges on its own data structures (Trino's Parquet reader into pages): a lake row whose
 * key is here is hidden by a newer version, whatever that version is. The tail's winning rows are
 * read separately, by a {@link UnionSplitReader} over the tail alone.
 *
 * <p>Two layouts, as in the merge itself: {@link ChangedLongKeys} for a key of one {@code int},
 * {@code long} or {@code date} column (primitive longs), {@link ChangedEncodedKeys} for every other
 * key (the canonical byte encoding of docs/merge.md, which the reader must produce from its own
 * values).
 */
public sealed interface ChangedKeys permits ChangedLongKeys, ChangedEncodedKeys {
    /** Reads the key columns of the log range {@code range} at the pinned log snapshot. */
    static ChangedKeys read(LakestreamTable table, LogSnapshot log, LogRange range, BufferAllocator allocator) {
        return ChangedLongKeys.supports(table)
                ? ChangedLongKeys.read(table, log, range, allocator)
                : ChangedEncodedKeys.read(table, log, range, allocator);
    }

    /** How many distinct keys the tail changes. */
    int size();
}
