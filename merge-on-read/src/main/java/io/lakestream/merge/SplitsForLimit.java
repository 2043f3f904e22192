package io.lakestream.merge;

import static com.google.common.base.Preconditions.checkArgument;

import io.lakestream.plan.LakeFile;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import java.util.ArrayList;
import java.util.List;

/**
 * The splits a read with a {@code LIMIT} and no filter needs: the first splits of the plan that surely return that
 * many rows between them. The engines read only those (Trino's split manager, Spark's scan), as Trino's Iceberg
 * connector stops listing files once their row counts pass the limit; each split then still stops at the limit
 * ({@link LakeThenTailSplit}). Only counts that hold whatever the tail holds are added up, so a split left out is
 * never one whose rows the limit needed.
 */
public final class SplitsForLimit {
    /**
     * The magic bytes that open a Parquet file: no row group starts before them, so a byte range from at most here
     * to the end of the file holds all its rows (Iceberg's split offsets make a whole file's task start here).
     */
    private static final int PARQUET_MAGIC_LENGTH = 4;

    private SplitsForLimit() {}

    /**
     * The first splits of {@code splits} whose {@linkplain #guaranteedRows guaranteed rows} reach {@code limit}, or
     * all of them. Only for a read without a filter: a filtered split may return none of its rows.
     */
    public static List<UnionSplit> enoughFor(List<UnionSplit> splits, long limit) {
        checkArgument(limit >= 0, "limit is negative: %s", limit);
        List<UnionSplit> result = new ArrayList<>();
        long rows = 0;
        for (UnionSplit split : splits) {
            if (rows >= limit) {
                break;
            }
            result.add(split);
            rows += guaranteedRows(split);
        }
        return result;
    }

    /**
     * Rows a split without a filter returns for sure. Only whole lake files without delete files count (a delete
     * file hides an unknown number of rows; a byte range of a file an unknown part). Without a key merge every such
     * lake row and every log change is a row (an append-only log holds inserts only; a changelog row is a change).
     * With one, each change of the tail hides at most one lake row (a key has one live row in the lake), so the
     * split returns at least its lake rows minus its changes.
     */
    public static long guaranteedRows(UnionSplit split) {
        long lakeRows = 0;
        for (LakeFile file : split.lakeFiles()) {
            if (file.deletes().isEmpty() && isWholeFile(file)) {
                lakeRows += file.recordCount();
            }
        }
        long changes = split.logRange().map(LogRange::rowCount).orElse(0L);
        if (split.mode() == ReadMode.CHANGES || !split.mergeByKey()) {
            return lakeRows + changes;
        }
        return Math.max(0, lakeRows - changes);
    }

    private static boolean isWholeFile(LakeFile file) {
        return file.start() <= PARQUET_MAGIC_LENGTH && file.start() + file.length() == file.fileSizeBytes();
    }
}
