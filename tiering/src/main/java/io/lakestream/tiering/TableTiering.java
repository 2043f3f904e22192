package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.compaction.BucketCompactor;
import io.lakestream.tiering.expiry.PartitionExpiry;
import io.lakestream.tiering.orphan.OrphanSweeper;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import org.apache.arrow.memory.BufferAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tiering round for one table in this JVM: a {@link TieringRound} (plan from the lake offsets and the
 * pinned log end, write every bucket's range in parallel, commit once: a compare-and-swap on the offsets;
 * re-planned a few times after a lost race), then log retention, compaction and the orphan sweep.
 */
public final class TableTiering {
    private static final Logger log = LoggerFactory.getLogger(TableTiering.class);

    private final TieringConfig config;
    private final TieringRound round;
    private final Clock clock;
    private final BucketCompactor compactor;
    private final OrphanSweeper sweeper;
    private final PartitionExpiry expiry;

    public TableTiering(
            TieringConfig config, BufferAllocator allocator, ExecutorService writers, TieringHooks hooks, Clock clock) {
        this.config = requireNonNull(config, "config is null");
        this.round = new TieringRound(
                config.maxRecordsPerBucket(),
                new LocalBucketTaskRunner(allocator, writers, config.targetFileSizeBytes(), hooks),
                hooks);
        this.clock = requireNonNull(clock, "clock is null");
        this.compactor = new BucketCompactor(config, hooks);
        this.sweeper = new OrphanSweeper(config, clock);
        this.expiry = new PartitionExpiry(hooks, clock);
    }

    /** Runs one round; bad states and failures are thrown as {@link LakestreamException}. */
    public TieringResult tier(LakestreamTable table) {
        return tier(table, false);
    }

    /**
     * Runs one round of a table read from the catalog just before (the service's {@link LoadedTables} refreshes the
     * table it holds to check it): the round does not read it again where it starts (see {@link TieringRound#run(
     * LakestreamTable, boolean)}).
     */
    TieringResult tier(LakestreamTable table, boolean justRead) {
        TieringRound.Result round = this.round.run(table, justRead);
        if (round.outcome() == TieringResult.Outcome.CONFLICT) {
            return new TieringResult(
                    table.identifier(),
                    TieringResult.Outcome.CONFLICT,
                    0,
                    round.snapshotId(),
                    round.lakeOffsets(),
                    TieringLag.of(round.lakeOffsets(), round.logSnapshot(), clock.millis()),
                    0,
                    List.of(),
                    0,
                    Optional.empty());
        }
        return finish(
                table, round.outcome(), round.changes(), round.snapshotId(), round.lakeOffsets(), round.logSnapshot());
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
            PartitionExpiry.Result expired = expiry.expire(table);
            if (expired.didSomething()) {
                log.info(
                        "Tiering {}: partitions expired from the log {}, deleted from the lake {}, waiting {}",
                        table,
                        expired.expiredFromLog(),
                        expired.lake().deleted(),
                        expired.lake().waiting());
            }
        } catch (RuntimeException e) {
            // each step of an expiry is complete or not done, and the next round finishes it: never hold back tiering
            log.warn("Partition expiry of {} failed; tiering continues and expiry is retried next round", table, e);
            error = Optional.of("partition expiry failed: " + e.getMessage());
        }
        try {
            compacted = compactor.compact(table);
        } catch (RuntimeException e) {
            // Compaction only improves read performance: its failure must not hold back tiering.
            log.warn("Compaction of {} failed; tiering continues and compaction is retried next round", table, e);
            String compactionError = "compaction failed: " + e.getMessage();
            error = Optional.of(
                    error.map(previous -> previous + "; " + compactionError).orElse(compactionError));
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
                    loggedOffsets(table.log().isPartitionedLog(), lakeOffsets),
                    lag.pendingRecords(),
                    lag.oldestPendingAge().map(Object::toString).orElse("none"),
                    removed,
                    compacted,
                    orphans);
        }
        return new TieringResult(
                table.identifier(), outcome, changes, snapshotId, lakeOffsets, lag, removed, compacted, orphans, error);
    }

    /**
     * The lake offsets as the table's log keeps them: per (partition, bucket) ({@code 0/1=4}) for a partitioned log,
     * whose per-bucket offsets are only placeholders, else per bucket.
     */
    static Map<?, Long> loggedOffsets(boolean partitionedLog, OffsetMap offsets) {
        return partitionedLog ? offsets.partitionOffsets() : offsets.offsets();
    }
}
