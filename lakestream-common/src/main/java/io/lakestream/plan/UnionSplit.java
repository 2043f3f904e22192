package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A unit of parallel reading. For a primary-key table it is one bucket: the bucket's lake files
 * and its log range {@code [O[b], E[b])}, merged by key. For an append-only table it is a group of
 * lake files or one log range, read independently.
 *
 * @param bucket the bucket, when the split is one bucket's data
 * @param mode how to read it
 * @param lakeFiles lake data files with their deletes
 * @param logRange the log part; empty when the split has none
 * @param logVersion the pinned log version (segments are resolved at this version)
 * @param mergeByKey whether log changes replace lake rows by primary key (primary-key union splits)
 */
public record UnionSplit(
        OptionalInt bucket,
        ReadMode mode,
        List<LakeFile> lakeFiles,
        Optional<LogRange> logRange,
        long logVersion,
        boolean mergeByKey) {
    public UnionSplit {
        requireNonNull(bucket, "bucket is null");
        requireNonNull(mode, "mode is null");
        lakeFiles = ImmutableList.copyOf(requireNonNull(lakeFiles, "lakeFiles is null"));
        requireNonNull(logRange, "logRange is null");
    }

    /** Rows the split reads at most: its weight for scheduling. */
    public long estimatedRows() {
        return lakeFiles.stream().mapToLong(LakeFile::recordCount).sum()
                + logRange.map(LogRange::rowCount).orElse(0L);
    }

    /** True if there is no log tail to merge: the lake files can be returned as they are. */
    public boolean isLakeOnly() {
        return logRange.isEmpty() || logRange.get().isEmpty();
    }
}
