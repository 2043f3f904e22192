package io.lakestream.merge;

import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import java.util.function.BooleanSupplier;

/**
 * How an engine reads a split: the eligibility rules of the engines' fast paths, written once for Trino and
 * Spark. A split with no log tail needs no merge: its lake files are read by the engine's own Parquet reader
 * ({@link #LAKE_PARQUET}). A primary-key split with a tail short enough for one merge pass is merged on the
 * engine's own batches ({@link #LAKE_PARQUET_MERGE}: the lake rows minus the keys the tail changes, then the
 * tail's winners). Iceberg's position and equality delete files are applied on both paths by {@link
 * LakeRowSelector}, so they never decide the path. Everything else (the changelog, a longer tail, columns or
 * keys the engine's reader does not return as the union read does) goes through the engine-neutral {@link
 * UnionSplitReader} ({@link #UNION_SPLIT_READER}).
 */
public enum LakeReadPath {
    /** The engine's Parquet reader over the lake files, no merge. */
    LAKE_PARQUET,
    /** The engine's Parquet reader over the lake files minus the keys the log tail changes, then the tail's winners. */
    LAKE_PARQUET_MERGE,
    /** The union split reader (merge by key, Iceberg deletes, log ranges), in Arrow. */
    UNION_SPLIT_READER;

    /**
     * @param engineReadsLake the engine's reader returns every column the read needs from the split's lake files
     *     (with the columns of their equality delete files) as the union read does, and the engine takes this path
     * @param engineMerges the engine also reads and matches the primary key on its batches (asked only for a split
     *     with a tail)
     * @param maxIndexRows the most tail changes one merge pass indexes: a longer tail is merged in passes by the
     *     union split reader
     */
    public static LakeReadPath choose(
            UnionSplit split, boolean engineReadsLake, BooleanSupplier engineMerges, long maxIndexRows) {
        if (!engineReadsLake || (split.mode() != ReadMode.UNION && split.mode() != ReadMode.LAKE)) {
            return UNION_SPLIT_READER;
        }
        if (split.isLakeOnly()) {
            return LAKE_PARQUET;
        }
        return split.mode() == ReadMode.UNION
                        && split.mergeByKey()
                        && split.logRange().orElseThrow().rowCount() <= maxIndexRows
                        && engineMerges.getAsBoolean()
                ? LAKE_PARQUET_MERGE
                : UNION_SPLIT_READER;
    }
}
