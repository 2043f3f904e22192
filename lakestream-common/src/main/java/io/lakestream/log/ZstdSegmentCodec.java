package io.lakestream.log;

import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.compression.AbstractCompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * Arrow IPC's ZSTD body compression (one Zstandard frame per buffer, after the 8-byte uncompressed length that
 * {@link AbstractCompressionCodec} writes and reads) over aircompressor's pure-Java Zstandard, so no engine has to
 * load a native library for the log. The frames are standard: any Arrow implementation reads them, and this reads
 * theirs. Not thread-safe (the decompressor keeps state): one codec per writer or per loaded batch.
 */
final class ZstdSegmentCodec extends AbstractCompressionCodec {
    private final ZstdCompressor compressor = new ZstdCompressor();
    private final ZstdDecompressor decompressor = new ZstdDecompressor();

    @Override
    protected ArrowBuf doCompress(BufferAllocator allocator, ArrowBuf uncompressed) {
        int length = checkedLength(uncompressed.writerIndex());
        int maxCompressed = compressor.maxCompressedLength(length);
        ArrowBuf compressed = allocator.buffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + maxCompressed);
        try {
            ByteBuffer output = compressed.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, maxCompressed);
            compressor.compress(uncompressed.nioBuffer(0, length), output);
            compressed.writerIndex(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH + output.position());
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
            ByteBuffer output = uncompressed.nioBuffer(0, length);
            decompressor.decompress(
                    compressed.nioBuffer(CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH, compressedLength), output);
            if (output.position() != length) {
                throw new IllegalStateException(
                        "a zstd buffer of %s bytes decompressed to %s bytes, not the %s it records"
                                .formatted(compressedLength, output.position(), length));
            }
            uncompressed.writerIndex(length);
            return uncompressed;
        } catch (RuntimeException e) {
            // a damaged frame (aircompressor's MalformedInputException): the reader reports the segment
            uncompressed.close();
            throw e;
        }
    }

    @Override
    public CompressionUtil.CodecType getCodecType() {
        return CompressionUtil.CodecType.ZSTD;
    }

    /** Buffers of a segment stay below 2 GiB (a batch's column is cut at 1 GiB, {@code SegmentWriter}). */
    private static int checkedLength(long length) {
        if (length < 0 || length > Integer.MAX_VALUE) {
            throw new IllegalStateException("a zstd buffer of %s bytes is out of range".formatted(length));
        }
        return (int) length;
    }
}
