package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static io.lakestream.common.LakestreamError.TIERING_FAILED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tiering round for one table: plan from the lake offsets and the pinned log end, write every
 * bucket's range in parallel, commit once (compare-and-swap on the offsets), then log retention and
 * compaction. A round that loses the commit race re-plans a few times, then leaves it to the next
 * round.
 */
public final class TableTiering {
    private static final Logger log = LoggerFactory.getLogger(TableTiering.class);

    /** Immediate re-plans after losing the commit race before the round gives up. */
    static final int MAX_PLAN_ATTEMPTS = 3;

    private final TieringConfig config;
    private final BufferAllocator allocator;
    private final ExecutorService writers;
    private final TieringHooks hooks;
    private final Clock clock;
    private final LakeCommitter committer;
    private final BucketCompactor compactor;
    private final OrphanSweeper sweeper;

    public TableTiering(
            TieringConfig config, BufferAllocator allocator, ExecutorService writers, TieringHooks hooks, Clock clock) {
        this.config = requireNonNull(config, "config is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.writers = requireNonNull(writers, "writers is null");
        this.hooks = requireNonNull(hooks, "hooks is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.committer = new LakeCommitter(hooks);
        this.compactor = new BucketCompactor(config, hooks);
        this.sweeper = new OrphanSweeper(config, clock);
    }

    /** Runs one round; bad states and failures are thrown as {@link LakestreamException}. */
    public TieringResult tier(LakestreamTable table) {
        for (int attempt = 1; ; attempt++) {
            table.lake().refresh();
            LakeLayoutValidator.validate(table);
            LakePosition lake = LakePosition.current(table.lake());
            LogSnapshot logSnapshot = table.log().latestSnapshot();
            TieringPlan plan;
            List<BucketFiles> files;
            try {
                plan = TieringPlanner.plan(
                        table.identifier().toString(), lake, logSnapshot, config.maxRecordsPerBucket());
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
                return finish(
                        table, TieringResult.Outcome.UP_TO_DATE, 0, lake.snapshotId(), lake.offsets(), logSnapshot);
            }
            try {
                files = writeAll(table, plan);
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
                return finish(
                        table,
                        TieringResult.Outcome.TIERED,
                        plan.records(),
                        result.snapshotId(),
                        plan.newOffsets(),
                        logSnapshot);
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

    private TieringResult conflict(LakestreamTable table, LogSnapshot logSnapshot) {
        table.lake().refresh();
        LakePosition now = LakePosition.current(table.lake());
        return new TieringResult(
                table.identifier(),
                TieringResult.Outcome.CONFLICT,
                0,
                now.snapshotId(),
                now.offsets(),
                TieringLag.of(now.offsets(), logSnapshot, clock.millis()),
                0,
                List.of(),
                0,
                Optional.empty());
    }

    /**
     * Whether the lake's offsets moved since the round read them ({@code planned}): another tiering run
     * committed, so a log range removed in between may be one the lake now holds.
     */
    private static boolean tieredByAnother(LakestreamTable table, LakePosition planned) {
        table.lake().refresh();
        return !LakePosition.current(table.lake()).offsets().equals(planned.offsets());
    }

    private List<BucketFiles> writeAll(LakestreamTable table, TieringPlan plan) {
        BucketRangeWriter writer =
                new BucketRangeWriter(table, plan.log(), allocator, config.targetFileSizeBytes(), hooks);
        List<Future<BucketFiles>> futures = new ArrayList<>(plan.tasks().size());
        for (BucketTask task : plan.tasks()) {
            futures.add(writers.submit(() -> writer.write(task)));
        }
        List<BucketFiles> files = new ArrayList<>(futures.size());
        Throwable failure = null;
        // Wait for every task even after a failure: a task still running could otherwise leave files behind.
        for (Future<BucketFiles> future : futures) {
            try {
                files.add(future.get());
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : addSuppressed(failure, e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                futures.forEach(pending -> pending.cancel(true));
                failure = failure == null ? e : addSuppressed(failure, e);
                break;
            }
        }
        if (failure != null) {
            LakeCommitter.deleteFiles(table.lake(), files);
            if (failure instanceof LakestreamException lakestream) {
                throw lakestream;
            }
            throw new LakestreamException(
                    TIERING_FAILED,
                    "Writing lake files for table %s failed: %s".formatted(table, failure.getMessage()),
                    failure);
        }
        return files;
    }

    private TieringResult finish(
            LakestreamTable table,
            TieringResult.Outcome outcome,
            long changes,
            OptionalLong snapshotId,
            OffsetMap lakeOffsets,
            LogSnapshot logSnapshot) {
        long now = clock.millis();
        int removed =
                table.log().removeSegments(lakeOffsets, now - config.retention().toMillis());
        List<Integer> compacted = List.of();
        Optional<String> error = Optional.empty();
        try {
            compacted = compactor.compact(table);
        } catch (RuntimeException e) {
            // Compaction only improves read performance: its failure must not hold back tiering.
            log.warn("Compaction of {} failed; tiering continues and compaction is retried next round", table, e);
            error = Optional.of("compaction failed: " + e.getMessage());
        }
        int orphans = 0;
        try {
            orphans = sweeper.sweepIfDue(table);
        } catch (RuntimeException e) {
            // Orphans only take space: a failed sweep must not hold back tiering either.
            log.warn("Orphan sweep of {} failed; tiering continues and the sweep is retried next round", table, e);
            String sweepError = "orphan sweep failed: " + e.getMessage();
            error = Optional.of(
                    error.map(previous -> previous + "; " + sweepError).orElse(sweepError));
        }
        TieringLag lag = TieringLag.of(lakeOffsets, logSnapshot, now);
        if (outcome == TieringResult.Outcome.TIERED || removed > 0 || !compacted.isEmpty() || orphans > 0) {
            log.info(
                    "Tiering {}: {} changes committed (snapshot {}), lake offsets {}, pending {} records, oldest untiered change {}, {} log segments removed, buckets compacted {}, {} orphan files removed",
                    table,
                    changes,
                    snapshotId.isPresent() ? snapshotId.getAsLong() : "none",
                    lakeOffsets.offsets(),
                    lag.pendingRecords(),
                    lag.oldestPendingAge().map(Object::toString).orElse("none"),
                    removed,
                    compacted,
                    orphans);
        }
        return new TieringResult(
                table.identifier(), outcome, changes, snapshotId, lakeOffsets, lag, removed, compacted, orphans, error);
    }

    private static Throwable addSuppressed(Throwable first, Throwable next) {
        if (first != next) {
            first.addSuppressed(next);
        }
        return first;
    }
}
