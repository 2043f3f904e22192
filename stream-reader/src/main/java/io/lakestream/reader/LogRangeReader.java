package io.lakestream.reader;

import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static io.lakestream.common.LakestreamError.LOG_RANGE_INVALID;
import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static io.lakestream.common.LakestreamError.STAGED_SEGMENT_MISSING;
import static io.lakestream.common.LakestreamError.TABLE_DROPPED;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.BucketLog;
import io.lakestream.log.LogSchema;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.SegmentFileReader;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import io.lakestream.plan.LogRange;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.iceberg.types.Types;

/**
 * Reads the change rows of one bucket in the offset range {@code [from, to)} of a pinned log
 * snapshot as Arrow batches, with column projection. Segments are read one record batch at a
 * time; vectors are transferred, not copied, when a whole batch is in range.
 */
public final class LogRangeReader implements Iterator<LogBatch>, AutoCloseable {
    private final StreamLog log;
    private final int bucket;
    /** The range this reader reads, naming its partition for a partitioned table's log. */
    private final LogRange range;

    private final long from;
    private final long to;
    private final List<Types.NestedField> projection;
    private final BufferAllocator allocator;
    private final Iterator<SegmentFile> segments;
    /** Reading a staged (not yet committed) segment: a missing file is the writer's problem, not corruption. */
    private final boolean staged;

    private SegmentFile segment;
    private ArrowFileReader segmentReader;
    private List<ArrowBlock> blocks;
    private int nextBlock;
    private long nextBlockOffset;
    private LogBatch next;

    /**
     * @param projection user columns to read, resolved by Iceberg field id (columns missing from an
     *     older segment read as nulls)
     */
    public LogRangeReader(
            StreamLog log,
            LogSnapshot snapshot,
            int bucket,
            long from,
            long to,
            List<Types.NestedField> projection,
            BufferAllocator allocator) {
        this(log, snapshot, new LogRange(bucket, from, to), projection, allocator, false);
    }

    /** Reads {@code range}: a bucket's, or a bucket's of one partition of a partitioned table's log. */
    public LogRangeReader(
            StreamLog log,
            LogSnapshot snapshot,
            LogRange range,
            List<Types.NestedField> projection,
            BufferAllocator allocator) {
        this(log, snapshot, range, projection, allocator, false);
    }

    private LogRangeReader(
            StreamLog log,
            LogSnapshot snapshot,
            LogRange range,
            List<Types.NestedField> projection,
            BufferAllocator allocator,
            boolean staged) {
        this.staged = staged;
        this.log = requireNonNull(log, "log is null");
        this.range = requireNonNull(range, "range is null");
        this.bucket = range.bucket();
        this.from = range.from();
        this.to = range.to();
        this.projection = ImmutableList.copyOf(requireNonNull(projection, "projection is null"));
        this.allocator = requireNonNull(allocator, "allocator is null");
        BucketLog bucketLog = range.in(snapshot);
        if (from < 0 || from > to || to > bucketLog.endOffset()) {
            throw new LakestreamException(
                    LOG_RANGE_INVALID,
                    "Cannot read offsets [%s, %s) of %s: at log version %s the bucket holds [%s, %s)"
                            .formatted(
                                    from,
                                    to,
                                    range.describeLog(),
                                    snapshot.version(),
                                    bucketLog.startOffset(),
                                    bucketLog.endOffset()));
        }
        if (from < bucketLog.startOffset() && from < to) {
            throw rangeRemoved(bucketLog.startOffset());
        }
        this.segments = bucketLog.segmentsOverlapping(from, to).iterator();
    }

    /**
     * Reads all rows of a segment a writer staged but did not commit yet (e.g. to learn the keys a
     * write is about to publish), with offsets counted from 0.
     */
    public static LogRangeReader staged(
            StreamLog log, StagedSegment segment, List<Types.NestedField> projection, BufferAllocator allocator) {
        SegmentFile file = new SegmentFile(
                segment.bucket(),
                segment.path(),
                0,
                segment.rowCount(),
                segment.sizeBytes(),
                segment.minTimestampMicros(),
                segment.maxTimestampMicros(),
                0,
                0,
                Optional.empty(),
                Optional.empty());
        List<BucketLog> buckets = new ArrayList<>(Collections.nCopies(segment.bucket() + 1, BucketLog.EMPTY));
        buckets.set(segment.bucket(), new BucketLog(0, segment.rowCount(), List.of(file)));
        LogSnapshot alone = LogSnapshot.ofBuckets(0, buckets);
        return new LogRangeReader(
                log, alone, new LogRange(segment.bucket(), 0, segment.rowCount()), projection, allocator, true);
    }

    @Override
    public boolean hasNext() {
        while (next == null) {
            if (segmentReader == null && !openNextSegment()) {
                return false;
            }
            next = readNextBlock();
        }
        return true;
    }

    @Override
    public LogBatch next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        LogBatch batch = next;
        next = null;
        return batch;
    }

    private boolean openNextSegment() {
        if (!segments.hasNext()) {
            return false;
        }
        segment = segments.next();
        String location = log.paths().resolve(segment.path());
        try {
            // every batch names its codec: compressed and uncompressed segments read alike (docs/format.md)
            segmentReader = new SegmentFileReader(log.fileSystem().openForRead(location), allocator);
            blocks = segmentReader.getRecordBlocks();
        } catch (NoSuchFileException | FileNotFoundException e) {
            closeSegment();
            if (staged) {
                throw new LakestreamException(
                        STAGED_SEGMENT_MISSING,
                        "Staged log segment %s of a write that is not committed yet is missing (was it removed as an orphan?); nothing was committed, retry the write"
                                .formatted(location),
                        e);
            }
            throw unreadable("is missing", e);
        } catch (IOException | RuntimeException e) {
            closeSegment();
            throw unreadable("cannot be read: " + e.getMessage(), e);
        }
        nextBlock = 0;
        nextBlockOffset = segment.baseOffset();
        return true;
    }

    /** The in-range part of the next record batch, or null if it has none (then the caller moves on). */
    private LogBatch readNextBlock() {
        if (nextBlock >= blocks.size() || nextBlockOffset >= to) {
            if (nextBlockOffset < Math.min(to, segment.endOffset())) {
                throw corrupt("holds fewer rows than its commit says (%s)".formatted(segment.rowCount()), null);
            }
            closeSegment();
            return null;
        }
        VectorSchemaRoot source;
        try {
            segmentReader.loadRecordBatch(blocks.get(nextBlock++));
            source = segmentReader.getVectorSchemaRoot();
        } catch (IOException | RuntimeException e) {
            // an object store's file removed after it was opened fails here
            throw unreadable("has an unreadable record batch: " + e.getMessage(), e);
        }
        long batchStart = nextBlockOffset;
        int rows = source.getRowCount();
        nextBlockOffset += rows;
        if (nextBlockOffset > segment.endOffset()) {
            throw corrupt("holds more rows than its commit says (%s)".formatted(segment.rowCount()), null);
        }
        long start = Math.max(from, batchStart);
        long end = Math.min(to, nextBlockOffset);
        if (start >= end) {
            return null;
        }
        return new LogBatch(
                bucket, start, segment.committedAtMillis(), project(source, (int) (start - batchStart), (int)
                        (end - start)));
    }

    private VectorSchemaRoot project(VectorSchemaRoot source, int offsetInBatch, int length) {
        List<FieldVector> vectors = new ArrayList<>(projection.size() + LogSchema.SYSTEM_COLUMN_COUNT);
        try {
            vectors.add(slice(source.getVector(0), offsetInBatch, length));
            vectors.add(slice(source.getVector(1), offsetInBatch, length));
            for (Types.NestedField column : projection) {
                FieldVector vector = findByFieldId(source, column.fieldId());
                if (vector == null) {
                    FieldVector nulls = LogSchema.arrowField(column).createVector(allocator);
                    nulls.allocateNew();
                    nulls.setValueCount(length);
                    vectors.add(nulls);
                } else {
                    FieldVector projected = slice(vector, offsetInBatch, length);
                    Field current = LogSchema.arrowField(column);
                    if (column.type().isNestedType() && EvolvedNestedVector.differs(projected.getField(), current)) {
                        // written before an ALTER TABLE changed a field inside the column, or read in part (r.a of row
                        // r:
                        // only the fields asked for go on)
                        try (FieldVector written = projected) {
                            projected = EvolvedNestedVector.rebuild(
                                    written,
                                    current,
                                    allocator,
                                    "Log segment " + log.paths().resolve(segment.path()));
                        }
                    } else if (!projected.getField().getType().equals(current.getType())) {
                        // written before an ALTER TABLE widened the column
                        try (FieldVector written = projected) {
                            projected = WidenedVector.widen(
                                    written,
                                    current,
                                    allocator,
                                    "Log segment " + log.paths().resolve(segment.path()));
                        }
                    }
                    vectors.add(projected);
                }
            }
        } catch (RuntimeException e) {
            // a column that cannot be mapped: give back the vectors already taken from the batch
            vectors.forEach(FieldVector::close);
            throw e;
        }
        List<Field> fields = new ArrayList<>(vectors.size());
        fields.add(vectors.get(0).getField());
        fields.add(vectors.get(1).getField());
        for (int i = 0; i < projection.size(); i++) {
            fields.add(LogSchema.arrowField(projection.get(i)));
        }
        return new VectorSchemaRoot(fields, vectors, length);
    }

    private FieldVector slice(FieldVector vector, int offset, int length) {
        if (offset == 0 && length == vector.getValueCount()) {
            var transfer = vector.getTransferPair(allocator);
            transfer.transfer();
            return (FieldVector) transfer.getTo();
        }
        var transfer = vector.getTransferPair(allocator);
        transfer.splitAndTransfer(offset, length);
        return (FieldVector) transfer.getTo();
    }

    private static FieldVector findByFieldId(VectorSchemaRoot root, int fieldId) {
        String id = Integer.toString(fieldId);
        for (FieldVector vector : root.getFieldVectors()) {
            if (id.equals(vector.getField().getMetadata().get(LogSchema.FIELD_ID_METADATA))) {
                return vector;
            }
        }
        return null;
    }

    private LakestreamException rangeRemoved(long startOffset) {
        return new LakestreamException(
                LOG_RANGE_REMOVED,
                ("Offsets [%s, %s) of bucket %s in log %s were removed by retention (the log now starts at %s). "
                                + "Read a newer lake snapshot, or keep log segments longer than tiering lags behind")
                        .formatted(from, startOffset, bucket, log.paths().root(), startOffset));
    }

    /**
     * A segment that cannot be read: removed by retention since the read pinned its log version, if the
     * newest version of the log no longer holds it (a normal race: the read took longer than retention
     * keeps tiered segments); otherwise really missing or damaged.
     */
    private LakestreamException unreadable(String problem, Exception cause) {
        if (!staged && !ownedNow()) {
            // a drop deletes the log's identity record, then its segments: the file went with the table
            return new LakestreamException(
                    TABLE_DROPPED,
                    ("The table whose log is at %s was dropped while this read ran (or dropped and re-created there): "
                                    + "log segment %s of bucket %s is gone with it. Re-run the query against the table as it is now")
                            .formatted(log.paths().root(), segment.path(), bucket),
                    cause);
        }
        long newestStart;
        try {
            newestStart = range.in(log.newestSnapshot()).startOffset();
        } catch (RuntimeException e) {
            LakestreamException corrupt = corrupt(problem, cause);
            corrupt.addSuppressed(e);
            return corrupt;
        }
        if (newestStart >= segment.endOffset()) {
            return new LakestreamException(
                    LOG_RANGE_REMOVED,
                    ("Offsets [%s, %s) of bucket %s in log %s were removed by retention while this read ran (the log"
                                    + " now starts at %s; retention removes only changes the lake already holds). Re-run the query:"
                                    + " a new read pins the newer lake snapshot that holds them (a time-travel read of this old"
                                    + " version can no longer be served). If this happens often, queries take longer than tiered"
                                    + " log segments are kept: raise the tiering service's retention")
                            .formatted(
                                    Math.max(from, segment.baseOffset()),
                                    Math.min(to, segment.endOffset()),
                                    bucket,
                                    log.paths().root(),
                                    newestStart),
                    cause);
        }
        return corrupt(problem, cause);
    }

    /** Whether the log is still its table's; an identity record that cannot be read leaves the question to the caller. */
    private boolean ownedNow() {
        try {
            return log.ownedByItsTable();
        } catch (RuntimeException e) {
            return true;
        }
    }

    private LakestreamException corrupt(String problem, Throwable cause) {
        return new LakestreamException(
                LOG_CORRUPT,
                "Log segment %s (bucket %s, offsets [%s, %s)) %s"
                        .formatted(
                                log.paths().resolve(segment.path()),
                                bucket,
                                segment.baseOffset(),
                                segment.endOffset(),
                                problem),
                cause);
    }

    private void closeSegment() {
        if (segmentReader != null) {
            try {
                segmentReader.close();
            } catch (IOException e) {
                // read-only: nothing to lose
            }
            segmentReader = null;
        }
    }

    @Override
    public void close() {
        if (next != null) {
            next.close();
            next = null;
        }
        closeSegment();
    }
}
