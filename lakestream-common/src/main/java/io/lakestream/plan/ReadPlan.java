package io.lakestream.plan;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.log.OffsetMap;
import java.util.List;
import java.util.OptionalLong;

/**
 * A pinned read: the lake snapshot and its offset map, the log version and its end offsets, and the
 * splits that together return exactly the table state at the log version.
 *
 * @param mode the read mode
 * @param lakeSnapshotId the pinned lake snapshot; empty when the lake has none
 * @param lakeSnapshotCommitMillis when that snapshot was committed
 * @param lakeOffsets next offset per bucket not yet in the lake, at the pinned snapshot
 * @param logVersion the pinned log version
 * @param logEnds end offset per bucket at the pinned log version
 * @param splits the splits to read
 * @param freshness per bucket lag of the lake behind the log
 */
public record ReadPlan(
        ReadMode mode,
        OptionalLong lakeSnapshotId,
        OptionalLong lakeSnapshotCommitMillis,
        OffsetMap lakeOffsets,
        long logVersion,
        OffsetMap logEnds,
        List<UnionSplit> splits,
        List<BucketFreshness> freshness) {
    public ReadPlan {
        requireNonNull(mode, "mode is null");
        requireNonNull(lakeSnapshotId, "lakeSnapshotId is null");
        requireNonNull(lakeSnapshotCommitMillis, "lakeSnapshotCommitMillis is null");
        requireNonNull(lakeOffsets, "lakeOffsets is null");
        requireNonNull(logEnds, "logEnds is null");
        splits = ImmutableList.copyOf(requireNonNull(splits, "splits is null"));
        freshness = ImmutableList.copyOf(requireNonNull(freshness, "freshness is null"));
    }
}
