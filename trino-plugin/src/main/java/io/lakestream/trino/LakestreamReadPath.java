package io.lakestream.trino;

import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.trino.spi.connector.ConnectorSession;
import java.util.List;

/**
 * Chooses how a split is read. A split with no log tail needs no merge: its lake files are read by
 * Trino's own Parquet reader into pages ({@link LakeParquetPageSource}; with no delete files, the state
 * after tiering and compaction, its pages are returned as they are: the fast path). A primary-key split
 * with a log tail is merged on those pages ({@link LakeParquetMergePageSource}). Iceberg's delete files
 * are applied on the pages in both cases. Everything else (the changelog, a tail too long for one merge
 * pass, the session property off) goes through the engine-neutral union split reader
 * ({@link LakestreamPageSource}).
 */
public enum LakestreamReadPath {
    /** Trino's Parquet reader over the lake files, no merge. */
    LAKE_PARQUET,
    /** Trino's Parquet reader over the lake files minus the keys the log tail changes, then the tail's winners. */
    LAKE_PARQUET_MERGE,
    /** The union split reader (merge by key, Iceberg deletes, log ranges), converted from Arrow. */
    UNION_SPLIT_READER;

    public static LakestreamReadPath choose(
            ConnectorSession session,
            LakestreamTableHandle table,
            UnionSplit split,
            List<LakestreamColumnHandle> columns) {
        if (!LakestreamSessionProperties.isNativeParquetReaderEnabled(session)
                || !readsLakeFiles(table, split, columns)) {
            return UNION_SPLIT_READER;
        }
        if (split.isLakeOnly()) {
            return LAKE_PARQUET;
        }
        return split.mode() == ReadMode.UNION
                        && split.mergeByKey()
                        // one merge pass: a longer tail is merged in passes by the union split reader
                        && split.logRange().orElseThrow().rowCount() <= MergeConfig.DEFAULT.maxIndexRows()
                ? LAKE_PARQUET_MERGE
                : UNION_SPLIT_READER;
    }

    static boolean readsLakeFiles(LakestreamTableHandle table, UnionSplit split, List<LakestreamColumnHandle> columns) {
        return (table.mode() == ReadMode.UNION || table.mode() == ReadMode.LAKE)
                && split.mode() == table.mode()
                // columns the lake files hold (user columns, the primary key as the row id of a DELETE)
                // or that are constant in a lake split ($bucket; $offset, null for lake rows)
                && columns.stream().allMatch(column -> column.kind() != LakestreamColumnHandle.Kind.CHANGE);
    }
}
