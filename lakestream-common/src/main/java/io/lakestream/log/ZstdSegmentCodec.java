package io.lakestream.log;

import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow IPC's ZSTD body compression: one Zstandard frame per buffer, after the 8-byte uncompressed length that
 * {@link AbstractCompressionCodec} writes and reads (-1 and the raw bytes when compressing did not make a buffer
 * smaller). The frames are standard whichever implementation makes them ({@link ZstdFrames}: native zstd-jni or
 * pure-Java aircompressor), so each reads the other's, and any Arrow implementation reads both. Not thread-safe: one
 * codec per writer or per segment reader, closed with it ({@link SegmentCodecs#zstd()}).
 */
public final class ZstdSegmentCodec extends AbstractCompressionCodec implements AutoCloseable {
    private final ZstdFrames frames;

    ZstdSegmentCodec(ZstdFrames frames) {
        this.frames = frames;
    }

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
        int length = checkedLength(uncompressed.writerIndex());
        int maxCompressed = frames.maxCompressedLength(length);
        ArrowBuf compressed = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + maxCompressed);
        try {
            // views of both Arrow buffers: the frame goes straight from one to the other
            int written = frames.compress(
                    uncompressed.nioBuffer(0, length),
                    compressed.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, maxCompressed));
            compressed.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + written);
            return compressed;
        } catch (RuntimeException e) {
            compressed.close();
            throw e;
        }
    }

    @Override
    protected ArrowBuf doDecompress(BufferAllocator allocator, ArrowBuf compressed) {
        int length = checkedLength(readUncompressedLength(compressed));
        int compressedLength = checkedLength(compressed.writerIndex() - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH);
        ArrowBuf uncompressed = allocator.buffer(length);
        try {
            ByteBuffer source = compressed.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, compressedLength);
            int written = frames.decompress(source, uncompressed.nioBuffer(0, length));
            if (written != length) {
                throw new IllegalStateException(
                        "a zstd buffer of %s bytes decompressed to %s bytes, not the %s it records"
                                .formatted(compressedLength, written, length));
            }
            uncompressed.writerIndex(length);
            return uncompressed;
        } catch (RuntimeException e) {
            // a damaged frame: the segment reader reports the segment as corrupt
            uncompressed.close();
            throw e;
        }
    }

    @Override
    public CompressionUtil.CodecType getCodecType() {
        return CompressionUtil.CodecType.ZSTD;
    }

    /** Frees the native contexts, if any; the codec must not be used afterwards. */
    @Override
    public void close() {
        frames.close();
    }

    @Override
    public String toString() {
        return frames.toString();
    }

    /** Buffers of a segment stay below 2 GiB (a batch's column is cut at 1 GiB, {@code SegmentWriter}). */
    private static int checkedLength(long length) {
        if (length < 0 || length > Integer.MAX_VALUE) {
            throw new IllegalStateException("a zstd buffer of %s bytes is out of range".formatted(length));
        }
        return (int) length;
    }
}
