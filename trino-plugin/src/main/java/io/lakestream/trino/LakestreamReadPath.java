package io.lakestream.trino;

import io.lakestream.plan.LakeFile;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.trino.spi.connector.ConnectorSession;
import java.util.List;

/**
 * Chooses how a split is read. A split with no log tail whose lake files have no delete files (the
 * state after tiering and compaction) needs no merge and no delete handling: its lake files are read
 * by Trino's own Parquet reader straight into pages ({@link LakeParquetPageSource}, the fast path).
 * Everything else goes through the engine-neutral union split reader ({@link LakestreamPageSource}).
 */
public enum LakestreamReadPath {
    /** Trino's Parquet reader over the lake files, no merge. */
    LAKE_PARQUET,
    /** The union split reader (merge by key, Iceberg deletes, log ranges), converted from Arrow. */
    UNION_SPLIT_READER;

    public static LakestreamReadPath choose(
            ConnectorSession session,
            LakestreamTableHandle table,
            UnionSplit split,
            List<LakestreamColumnHandle> columns) {
        return LakestreamSessionProperties.isNativeParquetReaderEnabled(session)
                        && isLakeOnlyWithoutDeletes(table, split, columns)
                ? LAKE_PARQUET
                : UNION_SPLIT_READER;
    }

    static boolean isLakeOnlyWithoutDeletes(
            LakestreamTableHandle table, UnionSplit split, List<LakestreamColumnHandle> columns) {
        return (table.mode() == ReadMode.UNION || table.mode() == ReadMode.LAKE)
                && split.mode() == table.mode()
                && split.isLakeOnly()
                && split.lakeFiles().stream().map(LakeFile::deletes).allMatch(List::isEmpty)
                // columns the lake files hold (user columns, and the primary key as the row id of a DELETE)
                && columns.stream()
                        .allMatch(column -> column.kind() == LakestreamColumnHandle.Kind.USER
                                || column.kind() == LakestreamColumnHandle.Kind.ROW_ID
                                || column.kind() == LakestreamColumnHandle.Kind.BUCKET);
    }
}
