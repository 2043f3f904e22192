package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/**
 * The driver side of a {@code DELETE}: the tasks stage delete changes; the commit protocol is the
 * insert's ({@link LakestreamBatchWrite}): one log commit keyed by the query id, staged segments
 * deleted on abort.
 */
final class LakestreamDeltaBatchWrite implements DeltaBatchWrite {
    private final LakestreamTableRef ref;
    private final LakestreamBatchWrite commitProtocol;

    LakestreamDeltaBatchWrite(LakestreamTableRef ref, LakestreamBatchWrite commitProtocol) {
        this.ref = requireNonNull(ref, "ref is null");
        this.commitProtocol = requireNonNull(commitProtocol, "commitProtocol is null");
    }

    @Override
    public DeltaWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        return new LakestreamDeltaWriterFactory(ref, commitProtocol.leaseId());
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        commitProtocol.commit(messages);
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        commitProtocol.abort(messages);
    }
}
