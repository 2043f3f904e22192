package io.lakestream.log;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;

/**
 * Reads a log segment (an Arrow IPC file) whatever its batches' codecs: each batch names its own (none or ZSTD), so
 * segments written before compression existed, compressed ones, and segments by either zstd implementation read
 * alike.
 *
 * <p>A compressed batch is decompressed here, whole, before Arrow loads it as an uncompressed one: Arrow's loader
 * (18.3) leaks the buffers it already decompressed for a column when a later buffer of that column fails, while here
 * a damaged batch releases every buffer before the error goes up. The reader's one ZSTD codec is made at the first
 * compressed batch and closed with the reader.
 */
public final class SegmentFileReader extends ArrowFileReader {
    private final Supplier<ZstdSegmentCodec> codecs;
    private Optional<ZstdSegmentCodec> zstd = Optional.empty();

    public SegmentFileReader(SeekableByteChannel channel, BufferAllocator allocator) {
        this(channel, allocator, SegmentCodecs::zstd);
    }

    /** With the ZSTD codec {@code codecs} makes: for tests reading with one implementation. */
    SegmentFileReader(SeekableByteChannel channel, BufferAllocator allocator, Supplier<ZstdSegmentCodec> codecs) {
        // Arrow's loader only ever sees uncompressed batches
        super(channel, allocator, NoCompressionCodec.Factory.INSTANCE);
        this.codecs = codecs;
    }

    @Override
    protected void loadRecordBatch(ArrowRecordBatch batch) {
        CompressionUtil.CodecType codecType = CompressionUtil.CodecType.fromCompressionType(
                batch.getBodyCompression().getCodec());
        if (codecType == CompressionUtil.CodecType.NO_COMPRESSION) {
            super.loadRecordBatch(batch);
            return;
        }
        ArrowRecordBatch uncompressed;
        try {
            uncompressed = decompress(batch, codecType);
        } finally {
            batch.close();
        }
        super.loadRecordBatch(uncompressed);
    }

    /**
     * The batch with every buffer decompressed; on any failure every buffer made so far is released. Each buffer in
     * {@code buffers} is one reference of ours, given up at the end: the new batch takes its own.
     */
    private ArrowRecordBatch decompress(ArrowRecordBatch batch, CompressionUtil.CodecType codecType) {
        if (codecType != CompressionUtil.CodecType.ZSTD) {
            // Lakestream writes no LZ4: a batch with it was written by another tool, and the reader reports it
            throw new IllegalArgumentException(
                    "record batch compressed with %s; log segments hold uncompressed or ZSTD batches only"
                            .formatted(codecType));
        }
        ZstdSegmentCodec codec = codec();
        List<ArrowBuf> buffers = new ArrayList<>(batch.getBuffers().size());
        try {
            for (ArrowBuf buffer : batch.getBuffers()) {
                // a reference for us: the codec gives up the one it is handed (a slice of the batch's body) once it
                // has decompressed it, or hands it back as a slice of the raw bytes (length -1)
                buffer.getReferenceManager().retain();
                if (buffer.writerIndex() == 0) {
                    // an empty buffer (a column without nulls has no validity bytes) has no length prefix
                    buffers.add(buffer);
                    continue;
                }
                try {
                    buffers.add(codec.decompress(allocator, buffer));
                } catch (RuntimeException e) {
                    buffer.close();
                    throw e;
                }
            }
            return new ArrowRecordBatch(
                    batch.getLength(),
                    batch.getNodes(),
                    buffers,
                    NoCompressionCodec.DEFAULT_BODY_COMPRESSION,
                    batch.getVariadicBufferCounts(),
                    true);
        } finally {
            buffers.forEach(ArrowBuf::close);
        }
    }

    private ZstdSegmentCodec codec() {
        if (zstd.isEmpty()) {
            zstd = Optional.of(codecs.get());
        }
        return zstd.get();
    }

    @Override
    protected void closeReadSource() throws IOException {
        try {
            zstd.ifPresent(ZstdSegmentCodec::close);
            zstd = Optional.empty();
        } finally {
            super.closeReadSource();
        }
    }
}
