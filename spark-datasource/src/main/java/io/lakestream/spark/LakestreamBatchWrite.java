package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog.CommitResult;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver side of a write: publishes the segments every task staged as one log commit, keyed by
 * the Spark query id so that a retried commit is applied once; on abort deletes them, so nothing of
 * a failed job becomes visible.
 */
final class LakestreamBatchWrite implements BatchWrite {
    private static final Logger log = LoggerFactory.getLogger(LakestreamBatchWrite.class);

    private final LakestreamTableRef ref;
    private final LakestreamTable table;
    private final String queryId;
    private boolean commitAttempted;

    LakestreamBatchWrite(LakestreamTableRef ref, LakestreamTable table, String queryId) {
        this.ref = requireNonNull(ref, "ref is null");
        this.table = requireNonNull(table, "table is null");
        this.queryId = requireNonNull(queryId, "queryId is null");
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        return new LakestreamDataWriterFactory(ref);
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        List<StagedSegment> segments = segments(messages);
        if (segments.isEmpty()) {
            return;
        }
        commitAttempted = true;
        CommitResult result = table.log().commit(segments, Optional.of(idempotencyKey()));
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

    @Override
    public void abort(WriterCommitMessage[] messages) {
        if (commitAttempted) {
            // the commit's outcome is unknown (it may have landed): leave the segments, at worst orphans
            log.warn("Write into {} failed during its commit; staged segments are kept", table);
            return;
        }
        table.log().discard(segments(messages));
    }

    String idempotencyKey() {
        return "spark:" + queryId;
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
