package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import java.util.List;

/**
 * One round of tiering for one table: where the lake is, which log version is pinned, and the
 * bucket ranges to tier. Committing it moves the lake from {@code base.offsets()} to {@link #newOffsets}.
 *
 * @param base the lake position planned from; the commit succeeds only if the lake is still there
 * @param log the pinned log snapshot
 * @param tasks one task per bucket with something to tier
 * @param newOffsets the lake offsets after the commit (every bucket listed)
 */
public record TieringPlan(LakePosition base, LogSnapshot log, List<BucketTask> tasks, OffsetMap newOffsets) {
    public TieringPlan {
        requireNonNull(base, "base is null");
        requireNonNull(log, "log is null");
        tasks = ImmutableList.copyOf(requireNonNull(tasks, "tasks is null"));
        requireNonNull(newOffsets, "newOffsets is null");
    }

    public boolean isEmpty() {
        return tasks.isEmpty();
    }

    public long records() {
        return tasks.stream().mapToLong(BucketTask::records).sum();
    }
}
