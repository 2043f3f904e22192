package io.lakestream.tiering;

import io.lakestream.table.LakestreamTable;
import java.util.List;

/**
 * Runs the {@link BucketTask}s of a {@link TieringPlan}: in this JVM's writer threads
 * ({@link LocalBucketTaskRunner}, the embedded service), or as tasks of a distributed job (the Spark tiering
 * job). Planning and committing stay with {@link TieringRound}, so every runner tiers under the same
 * exactly-once protocol.
 */
public interface BucketTaskRunner {
    /**
     * Writes the files of every task of the plan, committing nothing.
     *
     * @return one {@link BucketFiles} per task of the plan ({@link LakeCommitter} refuses anything else)
     * @throws io.lakestream.common.LakestreamException if a task fails; files of tasks the runner knows of are
     *     deleted first, files of tasks it cannot know of (a crashed process) are left to the orphan sweep
     */
    List<BucketFiles> write(LakestreamTable table, TieringPlan plan);
}
