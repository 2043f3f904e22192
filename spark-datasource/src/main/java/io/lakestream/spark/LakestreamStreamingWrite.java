package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.HeldLease;
import io.lakestream.table.LakestreamTable;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.connector.write.streaming.StreamingDataWriterFactory;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;

/**
 * The driver side of a streaming write ({@code writeStream...toTable}): each micro-batch (epoch) is
 * published as one log commit whose idempotency key is the streaming query's id and the epoch
 * ({@link LakestreamBatchWrite#forMicroBatch}). The query id is stored in the query's checkpoint, so a
 * batch that Spark runs again after a restart (its log commit landed, but the checkpoint's commit log
 * did not record it) carries the same key and is applied once: the commit finds the key, publishes
 * nothing and deletes the replayed copies of the segments.
 *
 * <p>The driver holds a writer lease while a micro-batch's tasks run, from the writer factory (which
 * Spark asks for right before the batch's job) to the batch's commit or abort.
 */
final class LakestreamStreamingWrite implements StreamingWrite {
    private final LakestreamTableRef ref;
    private final LakestreamTable table;
    private final String queryId;
    private final LakestreamSinkInput input;
    /** The commit of each epoch in flight, so its abort knows whether the commit may have landed. */
    private final Map<Long, LakestreamBatchWrite> commits = new ConcurrentHashMap<>();

    private Optional<HeldLease> lease = Optional.empty();

    LakestreamStreamingWrite(LakestreamTableRef ref, LakestreamTable table, String queryId, LakestreamSinkInput input) {
        this.ref = requireNonNull(ref, "ref is null");
        this.table = requireNonNull(table, "table is null");
        this.queryId = requireNonNull(queryId, "queryId is null");
        this.input = requireNonNull(input, "input is null");
    }

    @Override
    public synchronized StreamingDataWriterFactory createStreamingWriterFactory(PhysicalWriteInfo info) {
        if (lease.isEmpty()) {
            lease = Optional.of(HeldLease.acquire(table.log(), "spark streaming query " + queryId, Clock.systemUTC()));
        }
        return new LakestreamStreamingWriterFactory(ref, lease.get().id(), input);
    }

    @Override
    public void commit(long epochId, WriterCommitMessage[] messages) {
        try {
            commits.computeIfAbsent(epochId, this::epochWrite).commit(messages);
            commits.remove(epochId);
        } finally {
            releaseLease();
        }
    }

    @Override
    public void abort(long epochId, WriterCommitMessage[] messages) {
        try {
            // a commit that failed with an unknown outcome keeps its segments (they may be in the log)
            Optional.ofNullable(commits.remove(epochId))
                    .orElseGet(() -> epochWrite(epochId))
                    .abort(messages);
        } finally {
            releaseLease();
        }
    }

    private LakestreamBatchWrite epochWrite(long epochId) {
        return LakestreamBatchWrite.forMicroBatch(ref, table, queryId, epochId);
    }

    private synchronized void releaseLease() {
        lease.ifPresent(HeldLease::close);
        lease = Optional.empty();
    }
}
