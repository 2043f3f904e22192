package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once core of tiering, shared by the embedded service and the Spark job: plan from the lake
 * offsets and the pinned log end ({@link TieringPlanner}), have a {@link BucketTaskRunner} write every
 * bucket's range, commit once ({@link LakeCommitter}: a compare-and-swap on the offsets). A round that loses
 * the commit race, or finds part of its range removed by another run's retention, re-plans a few times.
 * Housekeeping (retention, compaction, orphan sweeps) is not part of it.
 */
public final class TieringRound {
    private static final Logger log = LoggerFactory.getLogger(TieringRound.class);

    /** Immediate re-plans after losing the commit race before the round gives up. */
    static final int MAX_PLAN_ATTEMPTS = 3;

    private final long maxRecordsPerBucket;
    private final BucketTaskRunner runner;
    private final TieringHooks hooks;
    private final LakeCommitter committer;

    public TieringRound(long maxRecordsPerBucket, BucketTaskRunner runner, TieringHooks hooks) {
        this.maxRecordsPerBucket = maxRecordsPerBucket;
        this.runner = requireNonNull(runner, "runner is null");
        this.hooks = requireNonNull(hooks, "hooks is null");
        this.committer = new LakeCommitter(hooks);
    }

    /**
     * What a round did.
     *
     * @param outcome tiered, up to date, or lost the race {@link #MAX_PLAN_ATTEMPTS} times
     * @param changes log records committed to the lake
     * @param snapshotId the lake snapshot the round committed, or the lake's current one otherwise
     * @param lakeOffsets the lake's offsets after the round
     * @param logSnapshot the log snapshot the round (last) planned from
     * @param files the files committed (empty unless tiered)
     */
    public record Result(
            TieringResult.Outcome outcome,
            long changes,
            OptionalLong snapshotId,
            OffsetMap lakeOffsets,
            LogSnapshot logSnapshot,
            List<BucketFiles> files) {
        public Result {
            requireNonNull(outcome, "outcome is null");
            requireNonNull(snapshotId, "snapshotId is null");
            requireNonNull(lakeOffsets, "lakeOffsets is null");
            requireNonNull(logSnapshot, "logSnapshot is null");
            files = ImmutableList.copyOf(requireNonNull(files, "files is null"));
        }
    }

    /** Runs one round; bad states and failures are thrown as {@link LakestreamException}. */
    public Result run(LakestreamTable table) {
        return run(table, false);
    }

    /**
     * Runs one round of a table read from the catalog just before ({@code justRead}: the round starts from it as it
     * is, instead of reading it from the catalog once more); a re-plan after a lost race always reads it again.
     */
    public Result run(LakestreamTable table, boolean justRead) {
        for (int attempt = 1; ; attempt++) {
            if (attempt > 1 || !justRead) {
                table.lake().refresh();
            }
            LakeLayoutValidator.validate(table);
            LakePosition lake = LakePosition.current(table.lake());
            LogSnapshot logSnapshot = table.log().latestSnapshot();
            TieringPlan plan;
            List<BucketFiles> files;
            try {
                plan = TieringPlanner.plan(table.identifier().toString(), lake, logSnapshot, maxRecordsPerBucket);
            } catch (LakestreamException e) {
                // Another tiering run may have tiered the range and its retention removed it between our reading
                // the lake and reading the log: then the lake moved and holds it. If the lake did not move, the
                // range was removed before anyone tiered it: a bad state for an operator.
                if (e.error() != LOG_RANGE_REMOVED || !tieredByAnother(table, lake)) {
                    throw e;
                }
                if (replanAfterRemoval(table, attempt)) {
                    continue;
                }
                return conflict(table, logSnapshot);
            }
            if (plan.isEmpty()) {
                return new Result(
                        TieringResult.Outcome.UP_TO_DATE, 0, lake.snapshotId(), lake.offsets(), logSnapshot, List.of());
            }
            try {
                files = runner.write(table, plan);
            } catch (LakestreamException e) {
                // Segments of the planned range were removed while we read them (the write deleted its files).
                // The re-plan tells the two cases apart: it tiers on from the lake if another run tiered the
                // range, and fails as a bad state if the range was removed before anyone tiered it.
                if (e.error() != LOG_RANGE_REMOVED) {
                    throw e;
                }
                if (replanAfterRemoval(table, attempt)) {
                    continue;
                }
                return conflict(table, logSnapshot);
            }
            LakeCommitter.Result result = committer.commit(table, plan, files);
            if (result.outcome() == LakeCommitter.Outcome.COMMITTED) {
                hooks.reached(table.identifier(), TieringStep.COMMITTED, -1);
                return new Result(
                        TieringResult.Outcome.TIERED,
                        plan.records(),
                        result.snapshotId(),
                        plan.newOffsets(),
                        logSnapshot,
                        files);
            }
            log.info("Tiering {}: another tiering run committed first (attempt {}), re-planning", table, attempt);
            if (attempt >= MAX_PLAN_ATTEMPTS) {
                return conflict(table, logSnapshot);
            }
        }
    }

    /** Whether the round may re-plan after part of its range was removed from the log (a normal race). */
    private static boolean replanAfterRemoval(LakestreamTable table, int attempt) {
        log.info(
                "Tiering {}: part of the planned log range was removed by retention (attempt {}), re-planning",
                table,
                attempt);
        return attempt < MAX_PLAN_ATTEMPTS;
    }

    private static Result conflict(LakestreamTable table, LogSnapshot logSnapshot) {
        table.lake().refresh();
        LakePosition now = LakePosition.current(table.lake());
        return new Result(TieringResult.Outcome.CONFLICT, 0, now.snapshotId(), now.offsets(), logSnapshot, List.of());
    }

    /**
     * Whether the lake's offsets moved since the round read them ({@code planned}): another tiering run
     * committed, so a log range removed in between may be one the lake now holds.
     */
    private static boolean tieredByAnother(LakestreamTable table, LakePosition planned) {
        table.lake().refresh();
        return !LakePosition.current(table.lake()).offsets().equals(planned.offsets());
    }
}
