package io.lakestream.write;

import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogPaths;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes the change rows of one bucket of one commit into a new segment file (Arrow IPC file
 * format, record batches of {@code batchRows} rows). The file is invisible until committed.
 */
final class SegmentWriter implements AutoCloseable {
    private final StreamLog log;
    private final int bucket;
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
            int bucket,
            String leaseId,
            Schema arrowSchema,
            ColumnWriter[] columnWriters,
            BufferAllocator allocator,
            int batchRows) {
        this.log = log;
        this.bucket = bucket;
        this.relativePath = LogPaths.newSegmentPath(bucket, Optional.of(leaseId));
        this.columnWriters = columnWriters;
        this.batchRows = batchRows;
        String location = log.paths().resolve(relativePath);
        try {
            this.output = new CountingChannel(log.fileSystem().createChannel(location));
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR, "Could not create log segment %s: %s".formatted(location, e.getMessage()), e);
        }
        this.root = VectorSchemaRoot.create(arrowSchema, allocator);
        this.fileWriter = new ArrowFileWriter(root, null, output);
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
            int count = Math.min(to - from, batchRows - rowsInBatch);
            writeSystemColumns(batch, rows, from, count);
            for (int i = 0; i < userVectors.length; i++) {
                columnWriters[i].write(
                        userVectors[i], validityAddresses[i], dataAddresses[i], batch, rows, from, count, rowsInBatch);
            }
            rowsInBatch += count;
            rowCount += count;
            from += count;
            if (rowsInBatch == batchRows) {
                flushBatch();
            }
        }
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

    /** Writes the file footer and closes it; the segment is ready to be committed. */
    StagedSegment finish() {
        if (rowsInBatch > 0) {
            flushBatch();
        }
        try {
            fileWriter.end();
        } catch (IOException e) {
            throw ioError(e);
        }
        close();
        return new StagedSegment(bucket, relativePath, rowCount, output.bytesWritten, minTimestamp, maxTimestamp);
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
            dataAddresses[i] = userVectors[i].getDataBufferAddress();
        }
        changeTypeValidity = changeTypes.getValidityBufferAddress();
        changeTypeData = changeTypes.getDataBufferAddress();
        timestampValidity = timestamps.getValidityBufferAddress();
        timestampData = timestamps.getDataBufferAddress();
    }

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

    /** Counts the bytes written, for the segment's size. */
    private static final class CountingChannel implements WritableByteChannel {
        private final WritableByteChannel delegate;
        private long bytesWritten;

        CountingChannel(WritableByteChannel delegate) {
            this.delegate = delegate;
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
