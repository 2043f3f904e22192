package io.lakestream.write;

import static io.lakestream.common.LakestreamError.INVALID_ROW;
import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPaths;
import io.lakestream.log.SegmentCodecs;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the change rows of one bucket of one commit into a new segment file (Arrow IPC file
 * format, record batches of {@code batchRows} rows, each compressed with the writer's codec: the table's
 * {@code LogCompression}).
 * The file is invisible until committed.
 */
final class SegmentWriter implements AutoCloseable {
    /**
     * The most bytes the values of one variable-width column may take in one record batch. Arrow grows a
     * column's data buffer by powers of two up to {@code Integer.MAX_VALUE} bytes, so 1 GiB is the largest
     * buffer it can hold; a batch is cut short before a column would pass it.
     */
    static final int MAX_COLUMN_BYTES = 1 << 30;

    private final StreamLog log;
    private final int bucket;
    /** For a partitioned table: the partition path of its rows. */
    private final Optional<String> partition;

    private final String relativePath;
    private final ColumnWriter[] columnWriters;
    private final FieldVector[] vectors;
    private final TinyIntVector changeTypes;
    private final TimeStampMicroTZVector timestamps;
    private final FieldVector[] userVectors;
    /** Buffer addresses of the user vectors, current after every (re)allocation; see ensureBatchCapacity. */
    private final long[] validityAddresses;

    private final long[] dataAddresses;
    private final int batchRows;
    private final long maxColumnBytes;
    /** Positions (in {@link #userVectors}) of the variable-width columns, and their bytes in the current batch. */
    private final int[] variableColumns;

    private final long[] variableBytes;
    private final VectorSchemaRoot root;
    private final CountingChannel output;
    /** Buffer addresses of the system columns, current after every (re)allocation. */
    private long changeTypeValidity;

    private long changeTypeData;
    private long timestampValidity;
    private long timestampData;
    private final ArrowFileWriter fileWriter;
    private int rowsInBatch;
    private long rowCount;
    private long minTimestamp = Long.MAX_VALUE;
    private long maxTimestamp = Long.MIN_VALUE;
    private boolean closed;

    SegmentWriter(
            StreamLog log,
            Optional<String> partition,
            int bucket,
            String leaseId,
            Schema arrowSchema,
            ColumnWriter[] columnWriters,
            BufferAllocator allocator,
            int batchRows,
            long maxColumnBytes,
            CompressionCodec codec) {
        this.log = log;
        this.bucket = bucket;
        this.partition = partition;
        this.relativePath = LogPaths.newSegmentPath(partition, bucket, Optional.of(leaseId));
        this.columnWriters = columnWriters;
        this.batchRows = batchRows;
        this.maxColumnBytes = maxColumnBytes;
        this.variableColumns = IntStream.range(0, columnWriters.length)
                .filter(i -> columnWriters[i].isVariableWidth())
                .toArray();
        this.variableBytes = new long[variableColumns.length];
        String location = log.paths().resolve(relativePath);
        try {
            this.output = new CountingChannel(log.fileSystem().createChannel(location));
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR, "Could not create log segment %s: %s".formatted(location, e.getMessage()), e);
        }
        this.root = VectorSchemaRoot.create(arrowSchema, allocator);
        // NONE writes byte for byte what the plain writer writes (no footer metadata, batches without a compression
        // field): what every segment was before compression existed. The codec is the writer's, shared by its
        // segments (one zstd context), and closed by it.
        this.fileWriter = new ArrowFileWriter(
                root,
                null,
                output,
                null,
                IpcOption.DEFAULT,
                SegmentCodecs.writingWith(codec),
                codec.getCodecType(),
                Optional.empty());
        try {
            fileWriter.start();
        } catch (IOException e) {
            throw ioError(e);
        }
        List<FieldVector> fieldVectors = root.getFieldVectors();
        this.vectors = fieldVectors.toArray(FieldVector[]::new);
        this.changeTypes = (TinyIntVector) vectors[0];
        this.timestamps = (TimeStampMicroTZVector) vectors[1];
        this.userVectors = fieldVectors.subList(2, vectors.length).toArray(FieldVector[]::new);
        this.validityAddresses = new long[userVectors.length];
        this.dataAddresses = new long[userVectors.length];
        for (FieldVector vector : vectors) {
            vector.setInitialCapacity(batchRows);
        }
        root.allocateNew();
        ensureBatchCapacity();
    }

    /**
     * Appends the batch rows {@code rows[from]} to {@code rows[to - 1]}, in that order, column by
     * column; a record batch is written out whenever it holds {@code batchRows} rows.
     */
    void write(RowBatch batch, int[] rows, int from, int to) {
        while (from < to) {
            int room = Math.min(to - from, batchRows - rowsInBatch);
            int count = fitting(batch, rows, from, room);
            if (count == 0) {
                if (rowsInBatch == 0) {
                    throw tooLarge(batch, rows[from]);
                }
                // the next row's large values would pass Arrow's limit: they start a new batch
                flushBatch();
                continue;
            }
            writeSystemColumns(batch, rows, from, count);
            for (int i = 0; i < userVectors.length; i++) {
                columnWriters[i].write(
                        userVectors[i], validityAddresses[i], dataAddresses[i], batch, rows, from, count, rowsInBatch);
            }
            rowsInBatch += count;
            rowCount += count;
            from += count;
            for (int i = 0; i < variableColumns.length; i++) {
                variableBytes[i] = ((BaseVariableWidthVector) userVectors[variableColumns[i]])
                        .getOffsetBuffer()
                        .getInt((long) rowsInBatch * BaseVariableWidthVector.OFFSET_WIDTH);
            }
            if (rowsInBatch == batchRows || count < room) {
                flushBatch();
            }
        }
    }

    /**
     * How many of the rows {@code rows[from]}, ... (at most {@code count}) fit in the current batch without
     * a variable-width column passing {@link #maxColumnBytes}. Usually all: checked on the batch's total
     * first, row by row only when the total does not fit.
     */
    private int fitting(RowBatch batch, int[] rows, int from, int count) {
        int fit = count;
        for (int i = 0; i < variableColumns.length; i++) {
            int column = columnWriters[variableColumns[i]].column();
            long used = variableBytes[i];
            if (used + batch.bytesUsed(column) <= maxColumnBytes) {
                continue;
            }
            boolean[] nulls = batch.nulls[column];
            int[] lengths = batch.lengths[column];
            for (int n = 0; n < fit; n++) {
                int row = rows[from + n];
                if (!nulls[row]) {
                    used += lengths[row];
                }
                if (used > maxColumnBytes) {
                    fit = n;
                    break;
                }
            }
        }
        return fit;
    }

    /** A row with a value no record batch can hold, even alone. */
    private LakestreamException tooLarge(RowBatch batch, int row) {
        for (int variable : variableColumns) {
            int column = columnWriters[variable].column();
            if (!batch.nulls[column][row] && batch.lengths[column][row] > maxColumnBytes) {
                return new LakestreamException(
                        INVALID_ROW,
                        ("Invalid row: column '%s' holds a value of %s bytes, more than a column of a log record batch can"
                                        + " hold (%s bytes, Arrow's buffer limit); store such large objects elsewhere (e.g. in"
                                        + " files) and write a reference to them")
                                .formatted(
                                        userVectors[variable].getName(), batch.lengths[column][row], maxColumnBytes));
            }
        }
        throw new IllegalStateException("no value of row %s is larger than %s bytes".formatted(row, maxColumnBytes));
    }

    private void writeSystemColumns(RowBatch batch, int[] rows, int from, int count) {
        byte[] changeTypeCodes = batch.changeTypes;
        long[] timestampMicros = batch.timestamps;
        for (int i = 0; i < count; i++) {
            int row = rows[from + i];
            int index = rowsInBatch + i;
            long timestamp = timestampMicros[row];
            ColumnWriter.setBit(changeTypeValidity, index);
            MemoryUtil.putByte(changeTypeData + index, changeTypeCodes[row]);
            ColumnWriter.setBit(timestampValidity, index);
            MemoryUtil.putLong(timestampData + (long) index * Long.BYTES, timestamp);
            minTimestamp = Math.min(minTimestamp, timestamp);
            maxTimestamp = Math.max(maxTimestamp, timestamp);
        }
    }

    long rowCount() {
        return rowCount;
    }

    /**
     * Writes the file footer, forces the file to stable storage and closes it; the segment is ready to
     * be committed (the commit makes its name durable, {@code FileStreamLog}). One force per segment, at
     * the end: forcing per batch would cost an fsync per batch and buy nothing, since nothing is
     * visible before the commit.
     */
    StagedSegment finish() {
        if (rowsInBatch > 0) {
            flushBatch();
        }
        try {
            fileWriter.end();
            output.force();
        } catch (IOException e) {
            throw ioError(e);
        }
        closeFinished();
        return new StagedSegment(
                bucket, relativePath, rowCount, output.bytesWritten, minTimestamp, maxTimestamp, partition);
    }

    /** Closes and deletes the file: nothing of it was committed. */
    void discard() {
        close();
        try {
            log.fileSystem().delete(log.paths().resolve(relativePath));
        } catch (IOException e) {
            // An uncommitted segment is invisible to readers; leaving it behind loses nothing.
        }
    }

    private void flushBatch() {
        root.setRowCount(rowsInBatch);
        try {
            fileWriter.writeBatch();
        } catch (IOException e) {
            throw ioError(e);
        }
        for (FieldVector vector : vectors) {
            vector.reset();
        }
        ensureBatchCapacity();
        rowsInBatch = 0;
        Arrays.fill(variableBytes, 0);
    }

    /**
     * Makes room for a whole batch in every vector, so fixed-width values are set without a capacity
     * check per value (variable-width data still grows as needed), and records the buffer addresses
     * the user columns' fixed-width values are written to. Called before every batch; fixed-width
     * buffers are reallocated only here ({@code reset()} keeps them).
     */
    private void ensureBatchCapacity() {
        for (FieldVector vector : vectors) {
            while (vector.getValueCapacity() < batchRows) {
                vector.reAlloc();
            }
        }
        for (int i = 0; i < userVectors.length; i++) {
            validityAddresses[i] = userVectors[i].getValidityBufferAddress();
            // lists, maps and structs have no data buffer of their own: their writer uses Arrow's setters
            dataAddresses[i] =
                    userVectors[i].getField().getType().isComplex() ? 0 : userVectors[i].getDataBufferAddress();
        }
        changeTypeValidity = changeTypes.getValidityBufferAddress();
        changeTypeData = changeTypes.getDataBufferAddress();
        timestampValidity = timestamps.getValidityBufferAddress();
        timestampData = timestamps.getDataBufferAddress();
    }

    /** Closes after a failure or a discard: the segment will not be committed, so errors do not matter. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            fileWriter.close();
        } catch (Exception e) {
            // Closing after a failure: the segment will not be committed.
        } finally {
            root.close();
        }
    }

    /**
     * Closes a finished segment: a failure here fails the write, since the segment may be incomplete
     * (on an object store, closing is what uploads it).
     */
    private void closeFinished() {
        closed = true;
        try {
            fileWriter.close();
        } catch (RuntimeException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR,
                    "Could not close log segment %s: %s".formatted(log.paths().resolve(relativePath), e.getMessage()),
                    e);
        } finally {
            root.close();
        }
    }

    /** Counts the bytes written, for the segment's size. */
    private static final class CountingChannel implements WritableByteChannel {
        private final LogFileSystem.OutputChannel delegate;
        private long bytesWritten;

        CountingChannel(LogFileSystem.OutputChannel delegate) {
            this.delegate = delegate;
        }

        void force() throws IOException {
            delegate.force();
        }

        @Override
        public int write(ByteBuffer source) throws IOException {
            int written = delegate.write(source);
            bytesWritten += written;
            return written;
        }

        @Override
        public boolean isOpen() {
            return delegate.isOpen();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }

    private LakestreamException ioError(IOException e) {
        return new LakestreamException(
                LOG_IO_ERROR,
                "Could not write log segment %s: %s".formatted(log.paths().resolve(relativePath), e.getMessage()),
                e);
    }
}
