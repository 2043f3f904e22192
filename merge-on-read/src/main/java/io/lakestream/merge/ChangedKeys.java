package io.lakestream.merge;

/**
 * Every key a bucket's log tail changes (upserts and deletes alike), for a lake reader outside this
 * module that merges on its own data structures (Trino's Parquet reader into pages): a lake row whose
 * key is here is hidden by a newer version, whatever that version is. Built by {@link IndexedTail}, whose
 * index also gives the tail's winning rows ({@link UnionSplitReader#tailWinners}).
 * The same structures hold the keys of Iceberg equality delete files for such a reader
 * ({@link ChangedLongKeys#of}, {@link ChangedEncodedKeys#of}): a delete hides a lake row the same way.
 *
 * <p>Two layouts, as in the merge itself: {@link ChangedLongKeys} for a key of one {@code int},
 * {@code long} or {@code date} column (primitive longs), {@link ChangedEncodedKeys} for every other
 * key (the canonical byte encoding of docs/merge.md, which the reader must produce from its own
 * values).
 */
public sealed interface ChangedKeys permits ChangedLongKeys, ChangedEncodedKeys {
    /** How many distinct keys the tail changes. */
    int size();
}
