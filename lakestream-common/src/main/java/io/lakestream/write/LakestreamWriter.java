package io.lakestream.write;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static io.lakestream.common.LakestreamError.INVALID_ROW;
import static io.lakestream.common.LakestreamError.STAGED_SEGMENT_MISSING;
import static io.lakestream.common.LakestreamError.TABLE_DROPPED;
import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.log.ChangeType;
import io.lakestream.log.HeldLease;
import io.lakestream.log.LogSchema;
import io.lakestream.log.SegmentCodecs;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.log.StreamLog.CommitResult;
import io.lakestream.log.WriterLease;
import io.lakestream.log.ZstdSegmentCodec;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import io.lakestream.table.TableDefinition;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.data.Record;

/**
 * The Java writer API: one writer is one transaction. Each row is validated when it is written and
 * kept in a batch; every 1,024 rows (and at {@link #prepare}) the batch goes to the buckets'
 * segments. {@link #commit} publishes all buckets' segments as one log commit, visible all at once or
 * not at all. An invalid row aborts the writer, so nothing of its transaction becomes visible.
 *
 * <p>Its segments are named after a writer lease, so the orphan sweep keeps them while the write runs
 * (docs/writes.md, "Writer leases"): a writer of its own holds one from its first segment until it
 * commits, aborts or is closed; the task writers of a distributed write stage under their coordinator's
 * lease ({@link #LakestreamWriter(LakestreamTable, BufferAllocator, String)}). Close every writer.
 *
 * <p>Not thread-safe: use one writer per thread.
 */
public final class LakestreamWriter implements AutoCloseable {
    /** Rows per Arrow record batch inside a segment. */
    public static final int DEFAULT_BATCH_ROWS = 8192;

    private final LakestreamTable table;
    private final TableDefinition definition;
    private final StreamLog log;
    private final BufferAllocator allocator;
    private final RowConverter rowConverter;
    private final Schema arrowSchema;
    private final ColumnWriter[] columnWriters;
    private final boolean hasPrimaryKey;
    /**
     * The rows not yet in their segments (both the boxed methods and the typed setters fill its row
     * being set), written a batch at a time: routed to buckets, then column by column.
     */
    private final RowBatch batch;

    private final BucketRouter router;
    /** The typed setters ({@link #row()}) of the batch's row being set. */
    private final RowBuffer rowBuffer;

    private final SegmentWriter[] segments;
    /** For a partitioned table: gives each row its log partition; empty for an unpartitioned one. */
    private final Optional<LogPartitioner> partitioner;
    /** For a partitioned table: the segments by partition path, then bucket ({@link #segments} stays empty). */
    private final Map<String, SegmentWriter[]> partitionSegments = new LinkedHashMap<>();
    /** Scratch: the rows of one bucket of a batch, grouped by partition. */
    private final int[] partitionRows = new int[RowBatch.DEFAULT_CAPACITY];

    private final Clock clock;
    private final int batchRows;
    /** The lease of a distributed write's coordinator, if this writer stages for one. */
    private final Optional<String> coordinatorLease;
    /** The lease this writer holds itself, from its first segment until it commits, aborts or is closed. */
    private Optional<HeldLease> ownLease = Optional.empty();

    private final long maxColumnBytes;
    /**
     * How this writer's segments compress their batches (the table's {@link LogCompression} when the writer was made):
     * one codec for all of them, so a zstd writer makes one native context, closed with the allocator.
     */
    private final CompressionCodec codec;

    private State state = State.OPEN;
    private String abortReason;

    private enum State {
        OPEN,
        PREPARED,
        COMMITTED,
        ABORTED
    }

    public LakestreamWriter(LakestreamTable table, BufferAllocator allocator) {
        this(table, allocator, Clock.systemUTC(), DEFAULT_BATCH_ROWS);
    }

    public LakestreamWriter(LakestreamTable table, BufferAllocator allocator, Clock clock, int batchRows) {
        this(table, allocator, clock, batchRows, Optional.empty(), SegmentWriter.MAX_COLUMN_BYTES);
    }

    /**
     * A task writer of a distributed write: its segments are staged under {@code leaseId}, the lease its
     * coordinator (Trino's, Spark's driver) holds until it commits or aborts them.
     */
    public LakestreamWriter(LakestreamTable table, BufferAllocator allocator, String leaseId) {
        this(
                table,
                allocator,
                Clock.systemUTC(),
                DEFAULT_BATCH_ROWS,
                Optional.of(WriterLease.checkId(leaseId)),
                SegmentWriter.MAX_COLUMN_BYTES);
    }

    /** With a smaller limit for a variable-width column of one record batch than Arrow's: for tests. */
    LakestreamWriter(
            LakestreamTable table, BufferAllocator allocator, Clock clock, int batchRows, long maxColumnBytes) {
        this(table, allocator, clock, batchRows, Optional.empty(), maxColumnBytes);
    }

    private LakestreamWriter(
            LakestreamTable table,
            BufferAllocator allocator,
            Clock clock,
            int batchRows,
            Optional<String> coordinatorLease,
            long maxColumnBytes) {
        checkArgument(batchRows >= 1, "batchRows must be at least 1, got %s", batchRows);
        checkArgument(
                maxColumnBytes >= 1 && maxColumnBytes <= SegmentWriter.MAX_COLUMN_BYTES,
                "maxColumnBytes must be between 1 and %s, got %s",
                SegmentWriter.MAX_COLUMN_BYTES,
                maxColumnBytes);
        this.coordinatorLease = coordinatorLease;
        this.maxColumnBytes = maxColumnBytes;
        this.table = requireNonNull(table, "table is null");
        // a lake changed outside Lakestream (or bucket properties changed) makes what is written unreadable
        LakeLayoutValidator.validate(table);
        this.definition = table.definition();
        this.log = table.log();
        LogCompression compression =
                LogCompression.of(table.identifier().toString(), table.lake().properties());
        this.allocator = requireNonNull(allocator, "allocator is null")
                .newChildAllocator("writer-" + table.identifier(), 0, Long.MAX_VALUE);
        this.clock = requireNonNull(clock, "clock is null");
        this.batchRows = batchRows;
        this.arrowSchema = LogSchema.arrowSchema(definition.schema());
        this.rowConverter = new RowConverter(definition);
        ValueConverter[] converters = new ValueConverter[rowConverter.columnCount()];
        this.columnWriters = new ColumnWriter[converters.length];
        boolean[] holdsObjects = new boolean[converters.length];
        for (int i = 0; i < converters.length; i++) {
            converters[i] = rowConverter.converter(i);
            columnWriters[i] = new ColumnWriter(converters[i], i);
            holdsObjects[i] = converters[i].holdsObjects();
        }
        this.hasPrimaryKey = definition.hasPrimaryKey();
        this.batch = new RowBatch(converters.length, RowBatch.DEFAULT_CAPACITY, holdsObjects);
        this.router = new BucketRouter(
                table.bucketFunction(),
                table.bucketKeyPositions(),
                converters,
                definition.bucketCount(),
                RowBatch.DEFAULT_CAPACITY,
                ThreadLocalRandom.current().nextInt(definition.bucketCount()));
        this.rowBuffer = new RowBuffer(converters, batch);
        this.segments = new SegmentWriter[definition.bucketCount()];
        // the layout the log was created with (its identity record), never the table's partitioning alone: a
        // partitioned table created before partitioned logs keeps writing per-bucket logs
        this.partitioner = definition.isPartitioned() && log.isPartitionedLog()
                ? Optional.of(new LogPartitioner(definition, converters))
                : Optional.empty();
        // last: nothing above can fail and leave the codec unclosed (its native context is made at its first batch)
        this.codec = compression == LogCompression.ZSTD ? SegmentCodecs.zstd() : NoCompressionCodec.INSTANCE;
    }

    /** Appends a row to an append-only table. */
    public void append(Map<String, ?> row) {
        requireAppendOnly();
        write(ChangeType.INSERT, row);
    }

    public void append(Record row) {
        requireAppendOnly();
        write(ChangeType.INSERT, row);
    }

    /** Inserts or replaces the row with this primary key. */
    public void upsert(Map<String, ?> row) {
        requirePrimaryKey("upsert");
        write(ChangeType.UPSERT, row);
    }

    public void upsert(Record row) {
        requirePrimaryKey("upsert");
        write(ChangeType.UPSERT, row);
    }

    /** Deletes the row with this primary key; only the key columns are read. */
    public void delete(Map<String, ?> key) {
        requirePrimaryKey("delete");
        write(ChangeType.DELETE, key);
    }

    public void delete(Record key) {
        requirePrimaryKey("delete");
        write(ChangeType.DELETE, key);
    }

    /**
     * The typed, no-boxing way to write rows: set the next row's columns on this buffer, then call
     * {@link #appendRow}, {@link #upsertRow} or {@link #deleteRow}. Validates and buckets rows exactly
     * as the boxed methods do; see {@link RowBuffer}.
     */
    public RowBuffer row() {
        return rowBuffer;
    }

    /** Appends the row set on {@link #row()} to an append-only table. */
    public void appendRow() {
        requireAppendOnly();
        writeRowBuffer(ChangeType.INSERT);
    }

    /** Inserts or replaces the row set on {@link #row()}. */
    public void upsertRow() {
        requirePrimaryKey("upsert");
        writeRowBuffer(ChangeType.UPSERT);
    }

    /** Deletes the row with the primary key set on {@link #row()}; other columns are ignored. */
    public void deleteRow() {
        requirePrimaryKey("delete");
        writeRowBuffer(ChangeType.DELETE);
    }

    /** Publishes everything written as one commit. */
    public CommitResult commit() {
        return commit(Optional.empty());
    }

    /** Publishes everything written as one commit, unless a commit with this key was already published. */
    public CommitResult commit(String idempotencyKey) {
        return commit(Optional.of(requireNonNull(idempotencyKey, "idempotencyKey is null")));
    }

    private CommitResult commit(Optional<String> idempotencyKey) {
        List<StagedSegment> staged = prepare();
        try {
            CommitResult result = staged.isEmpty() && idempotencyKey.isEmpty()
                    ? new CommitResult(log.latestSnapshot().version(), false)
                    : log.commit(staged, idempotencyKey);
            if (result.alreadyApplied()) {
                log.discard(staged);
            }
            state = State.COMMITTED;
            return result;
        } catch (RuntimeException e) {
            state = State.ABORTED;
            abortReason = "the commit failed: " + e.getMessage();
            if (e instanceof LakestreamException refused
                    && (refused.error() == STAGED_SEGMENT_MISSING || refused.error() == TABLE_DROPPED)) {
                // refused before publishing, or the log is no longer this table's (gone, or another
                // table's whose readers skip this commit): the staged files will never be read
                log.discard(staged);
            }
            // Otherwise the outcome may be unknown (e.g. an I/O error after the commit file was linked), so
            // the segment files stay: if the commit landed they are referenced, otherwise they are orphans.
            throw e;
        } finally {
            releaseLease();
        }
    }

    /**
     * For distributed writes (one writer per task): finishes the segment files without committing
     * them. The coordinator publishes the segments of all tasks as one commit with {@link
     * StreamLog#commit}, or deletes them with {@link StreamLog#discard}. Until then nothing is visible.
     */
    public List<StagedSegment> prepare() {
        requireOpen();
        List<StagedSegment> staged = new ArrayList<>();
        try {
            if (batch.size() > 0) {
                writeBatch();
            }
            for (SegmentWriter segment : segments) {
                if (segment != null) {
                    staged.add(segment.finish());
                }
            }
            for (SegmentWriter[] partition : partitionSegments.values()) {
                for (SegmentWriter segment : partition) {
                    if (segment != null) {
                        staged.add(segment.finish());
                    }
                }
            }
        } catch (RuntimeException e) {
            abort("writing a segment failed: " + e.getMessage());
            throw e;
        } finally {
            release();
        }
        state = State.PREPARED;
        return staged;
    }

    /** Discards everything written; nothing becomes visible. */
    public void abort() {
        if (state == State.OPEN) {
            abort("abort() was called");
            release();
        }
    }

    /** Aborts an open writer and gives up its lease (the segments of a {@link #prepare}d writer then age out). */
    @Override
    public void close() {
        try {
            abort();
        } finally {
            releaseLease();
        }
    }

    private void write(ChangeType changeType, Map<String, ?> values) {
        requireOpen();
        try {
            rowConverter.convert(values, changeType, batch);
        } catch (LakestreamException e) {
            throw rejected(e);
        }
        finishRow(changeType);
    }

    private void write(ChangeType changeType, Record values) {
        requireOpen();
        try {
            rowConverter.convert(values, changeType, batch);
        } catch (LakestreamException e) {
            throw rejected(e);
        }
        finishRow(changeType);
    }

    private void writeRowBuffer(ChangeType changeType) {
        requireOpen();
        try {
            rowConverter.validate(batch, rowBuffer.rejected(), changeType);
        } catch (LakestreamException e) {
            throw rejected(e);
        }
        finishRow(changeType);
    }

    /** An invalid row aborts the writer: nothing of its transaction becomes visible. */
    private LakestreamException rejected(LakestreamException e) {
        abort(e.getMessage());
        release();
        return e;
    }

    /** Keeps the validated row being set; a full batch goes to the segments. */
    private void finishRow(ChangeType changeType) {
        rowBuffer.clearRejected();
        batch.finishRow(changeType.code(), clock.millis() * 1000);
        if (batch.isFull()) {
            try {
                writeBatch();
            } catch (RuntimeException e) {
                // a segment may hold part of the batch: nothing of this transaction may be committed
                abort("writing a segment failed: " + e.getMessage());
                release();
                throw e;
            }
        }
    }

    /** Writes the batch's rows to their buckets' segments, in order, and empties the batch. */
    private void writeBatch() {
        try {
            router.route(batch);
            int[] rows = router.rows();
            for (int bucket = 0; bucket < segments.length; bucket++) {
                int start = router.start(bucket);
                int end = router.end(bucket);
                if (start < end) {
                    if (partitioner.isPresent()) {
                        writePartitioned(partitioner.get(), bucket, rows, start, end);
                    } else {
                        segment(bucket).write(batch, rows, start, end);
                    }
                }
            }
        } finally {
            batch.clear();
        }
    }

    /**
     * Writes the rows {@code rows[start..end)} of one bucket to the segments of their partitions, each partition's
     * rows in the order they were written: rows of one partition are one run in the common case (a batch of one
     * day), otherwise they are grouped first.
     */
    private void writePartitioned(LogPartitioner partitioner, int bucket, int[] rows, int start, int end) {
        String[] paths = new String[end - start];
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (int i = start; i < end; i++) {
            paths[i - start] = partitioner.path(batch, rows[i]);
            counts.merge(paths[i - start], 1, Integer::sum);
        }
        if (counts.size() == 1) {
            segment(Optional.of(paths[0]), bucket).write(batch, rows, start, end);
            return;
        }
        // a stable grouping of the rows by partition into the scratch array
        Map<String, Integer> next = new LinkedHashMap<>();
        int offset = 0;
        for (Map.Entry<String, Integer> count : counts.entrySet()) {
            next.put(count.getKey(), offset);
            offset += count.getValue();
        }
        for (int i = start; i < end; i++) {
            int position = next.merge(paths[i - start], 1, Integer::sum) - 1;
            partitionRows[position] = rows[i];
        }
        offset = 0;
        for (Map.Entry<String, Integer> count : counts.entrySet()) {
            segment(Optional.of(count.getKey()), bucket).write(batch, partitionRows, offset, offset + count.getValue());
            offset += count.getValue();
        }
    }

    private SegmentWriter segment(int bucket) {
        return segment(Optional.empty(), bucket);
    }

    private SegmentWriter segment(Optional<String> partition, int bucket) {
        SegmentWriter[] writers = partition.isEmpty()
                ? segments
                : partitionSegments.computeIfAbsent(partition.get(), path -> new SegmentWriter[segments.length]);
        SegmentWriter segment = writers[bucket];
        if (segment == null) {
            segment = new SegmentWriter(
                    log,
                    partition,
                    bucket,
                    leaseId(),
                    arrowSchema,
                    columnWriters,
                    allocator,
                    batchRows,
                    maxColumnBytes,
                    codec);
            writers[bucket] = segment;
        }
        return segment;
    }

    /** The lease the segments are staged under: the coordinator's, or this writer's own, taken at its first segment. */
    private String leaseId() {
        if (coordinatorLease.isPresent()) {
            return coordinatorLease.get();
        }
        if (ownLease.isEmpty()) {
            ownLease = Optional.of(HeldLease.acquire(log, "java writer of " + table.identifier(), clock));
        }
        return ownLease.get().id();
    }

    /** Frees the codec's native context, if any, and the writer's memory: once, when the writer is done. */
    private void release() {
        try {
            if (codec instanceof ZstdSegmentCodec zstd) {
                zstd.close();
            }
        } finally {
            allocator.close();
        }
    }

    private void releaseLease() {
        ownLease.ifPresent(HeldLease::close);
        ownLease = Optional.empty();
    }

    private void abort(String reason) {
        state = State.ABORTED;
        abortReason = reason;
        try {
            discardSegments();
        } finally {
            releaseLease();
        }
    }

    private void discardSegments() {
        discard(segments);
        partitionSegments.values().forEach(LakestreamWriter::discard);
        partitionSegments.clear();
    }

    private static void discard(SegmentWriter[] writers) {
        for (int i = 0; i < writers.length; i++) {
            if (writers[i] != null) {
                writers[i].discard();
                writers[i] = null;
            }
        }
    }

    private void requireOpen() {
        if (state == State.ABORTED) {
            throw new LakestreamException(
                    INVALID_ROW,
                    "This writer for %s was aborted (%s); nothing it wrote was committed. Open a new writer"
                            .formatted(table, abortReason));
        }
        checkState(
                state == State.OPEN, "this writer has already committed; open a new writer for the next transaction");
    }

    private void requireAppendOnly() {
        if (hasPrimaryKey) {
            throw new LakestreamException(
                    UNSUPPORTED_OPERATION,
                    "Table %s has a primary key %s: use upsert and delete instead of append"
                            .formatted(table, definition.primaryKey()));
        }
    }

    private void requirePrimaryKey(String operation) {
        if (!hasPrimaryKey) {
            throw new LakestreamException(
                    UNSUPPORTED_OPERATION,
                    "Table %s is an append-only table (it has no primary key): %s is not supported, use append"
                            .formatted(table, operation));
        }
    }
}
