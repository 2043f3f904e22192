package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.LOG_COMMIT_CONFLICT;
import static io.lakestream.common.LakestreamError.STAGED_SEGMENT_MISSING;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.HeldLease;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog.CommitResult;
import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.WriteConflictCheck;
import io.lakestream.table.LakestreamTable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver side of a write: publishes the segments every task staged as one log commit, keyed by
 * the Spark query id so that a retried commit is applied once; on abort deletes them, so nothing of
 * a failed job becomes visible. An overwrite first stages the deletes of the rows it replaces (ahead
 * of the new rows, so a key that is deleted and written again keeps its new row) and commits only if
 * the log has not changed since the overwrite pinned it; otherwise nothing is published and the
 * write fails, asking to retry. A write planned from a read of the table (a row-level DELETE, UPDATE or
 * MERGE; an append whose statement read the table, such as a MERGE with only NOT MATCHED clauses) commits
 * with snapshot isolation from the version its scan read ({@link WriteConflictCheck}); a conflict
 * publishes nothing and fails the same way.
 *
 * <p>The driver holds a writer lease from the moment the tasks are about to start ({@link
 * #createBatchWriterFactory}, which Spark calls right before the job) until {@link #commit} or {@link
 * #abort}; the tasks stage their segments under it, so the orphan sweep keeps them however long the job
 * runs (docs/writes.md, "Writer leases").
 */
final class LakestreamBatchWrite implements BatchWrite {
    private static final Logger log = LoggerFactory.getLogger(LakestreamBatchWrite.class);

    private final LakestreamTableRef ref;
    private final LakestreamTable table;
    private final String queryId;
    private final String idempotencyKey;
    private final Optional<LakestreamOverwrite> overwrite;
    /** What the write read of the table, asked at commit (its scans have run by then); empty for a blind write. */
    private final Supplier<Optional<LakestreamRowLevelRead>> readOfTable;

    private boolean outcomeUnknown;
    private Optional<HeldLease> lease = Optional.empty();

    LakestreamBatchWrite(
            LakestreamTableRef ref,
            LakestreamTable table,
            String queryId,
            Optional<LakestreamOverwrite> overwrite,
            Supplier<Optional<LakestreamRowLevelRead>> readOfTable) {
        this(ref, table, queryId, "spark:" + queryId, overwrite, readOfTable);
    }

    private LakestreamBatchWrite(
            LakestreamTableRef ref,
            LakestreamTable table,
            String queryId,
            String idempotencyKey,
            Optional<LakestreamOverwrite> overwrite,
            Supplier<Optional<LakestreamRowLevelRead>> readOfTable) {
        this.ref = requireNonNull(ref, "ref is null");
        this.table = requireNonNull(table, "table is null");
        this.queryId = requireNonNull(queryId, "queryId is null");
        this.idempotencyKey = requireNonNull(idempotencyKey, "idempotencyKey is null");
        this.overwrite = requireNonNull(overwrite, "overwrite is null");
        this.readOfTable = requireNonNull(readOfTable, "readOfTable is null");
    }

    /**
     * The commit of one micro-batch of a streaming query: keyed by the query's id (kept in its
     * checkpoint, the same after a restart) and the epoch, so a micro-batch that Spark replays is
     * applied once. Its tasks stage under the streaming write's lease.
     */
    static LakestreamBatchWrite forMicroBatch(
            LakestreamTableRef ref, LakestreamTable table, String queryId, long epochId) {
        return new LakestreamBatchWrite(
                ref,
                table,
                queryId,
                "spark-stream:%s:%s".formatted(queryId, epochId),
                Optional.empty(),
                Optional::empty);
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        return new LakestreamDataWriterFactory(ref, leaseId());
    }

    /** The driver's writer lease, taken before the first task writes. */
    synchronized String leaseId() {
        if (lease.isEmpty()) {
            lease = Optional.of(HeldLease.acquire(table.log(), "spark query " + queryId, Clock.systemUTC()));
        }
        return lease.get().id();
    }

    private synchronized void releaseLease() {
        lease.ifPresent(HeldLease::close);
        lease = Optional.empty();
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        try {
            commitSegments(messages);
        } finally {
            releaseLease();
        }
    }

    private void commitSegments(WriterCommitMessage[] messages) {
        List<StagedSegment> segments = new ArrayList<>();
        if (overwrite.isPresent()) {
            segments.addAll(LakestreamOverwriteDeletes.stage(table, overwrite.get(), mergeConfig(), leaseId()));
        }
        segments.addAll(segments(messages));
        if (segments.isEmpty()) {
            return;
        }
        CommitResult result = publish(segments);
        if (result.alreadyApplied()) {
            // an earlier attempt of this query already published its rows: delete these copies, but never
            // the files that commit references (a commit retried with the very same messages)
            table.log().discard(notCommitted(segments, table.log().snapshot(result.version())));
        }
        log.info(
                "Committed {} segments into {} as log version {}{}",
                segments.size(),
                table,
                result.version(),
                result.alreadyApplied() ? " (already applied)" : "");
    }

    private CommitResult publish(List<StagedSegment> segments) {
        try {
            return publishOnce(segments);
        } catch (LakestreamException e) {
            if (e.error() == STAGED_SEGMENT_MISSING) {
                // refused before publishing: nothing of this write is visible, drop what is left of it
                outcomeUnknown = false;
                table.log().discard(segments);
            }
            throw e;
        }
    }

    private CommitResult publishOnce(List<StagedSegment> segments) {
        if (overwrite.isEmpty()) {
            Optional<LakestreamRowLevelRead> read = readOfTable.get();
            if (read.isPresent()) {
                return publishIfNoConflict(segments, read.get());
            }
            outcomeUnknown = true;
            return table.log().commit(segments, Optional.of(idempotencyKey()));
        }
        try {
            outcomeUnknown = true;
            return table.log()
                    .commitIfUnchanged(
                            segments,
                            Optional.of(idempotencyKey()),
                            overwrite.get().logEnds());
        } catch (LakestreamException e) {
            if (e.error() != LOG_COMMIT_CONFLICT) {
                throw e;
            }
            // nothing was published: drop everything staged, so nothing of this overwrite remains
            outcomeUnknown = false;
            table.log().discard(segments);
            throw new LakestreamException(
                    LOG_COMMIT_CONFLICT,
                    ("The overwrite of %s was not committed: another write changed the table after the overwrite read it "
                                    + "(at log version %s). Nothing was written; run the overwrite again")
                            .formatted(table, overwrite.get().logVersion()),
                    e);
        }
    }

    private CommitResult publishIfNoConflict(List<StagedSegment> segments, LakestreamRowLevelRead read) {
        try (BufferAllocator allocator = LakestreamMemory.newTaskAllocator("conflict check of " + table.identifier())) {
            outcomeUnknown = true;
            return table.log()
                    .commitIfNoConflict(
                            segments,
                            Optional.of(idempotencyKey()),
                            read.logVersion(),
                            read.check(table, new WriteConflictCheck(table, read.condition(), allocator)));
        } catch (LakestreamException e) {
            if (e.error() != LOG_COMMIT_CONFLICT) {
                throw e;
            }
            // nothing was published: drop everything staged, so nothing of the operation remains
            outcomeUnknown = false;
            table.log().discard(segments);
            throw e;
        }
    }

    private MergeConfig mergeConfig() {
        return LakestreamReadConf.resolve(
                        Map.of(),
                        LakestreamScanBuilder::sessionConf,
                        table.lake().properties())
                .merge();
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        try {
            if (outcomeUnknown) {
                // the commit's outcome is unknown (it may have landed): leave the segments, at worst orphans
                log.warn("Write into {} failed during its commit; staged segments are kept", table);
                return;
            }
            table.log().discard(segments(messages));
        } finally {
            releaseLease();
        }
    }

    String idempotencyKey() {
        return idempotencyKey;
    }

    private static List<StagedSegment> notCommitted(List<StagedSegment> segments, LogSnapshot snapshot) {
        List<StagedSegment> result = new ArrayList<>();
        for (StagedSegment segment : segments) {
            boolean committed = snapshot.bucket(segment.bucket()).segments().stream()
                    .anyMatch(file -> file.path().equals(segment.path()));
            if (!committed) {
                result.add(segment);
            }
        }
        return result;
    }

    private static List<StagedSegment> segments(WriterCommitMessage[] messages) {
        List<StagedSegment> segments = new ArrayList<>();
        for (WriterCommitMessage message : messages) {
            // Spark passes null for tasks that did not finish
            if (message instanceof LakestreamCommitMessage staged) {
                segments.addAll(staged.segments());
            }
        }
        return segments;
    }
}
