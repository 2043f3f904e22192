package io.lakestream.log;

import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import java.nio.ByteBuffer;

/**
 * aircompressor's pure-Java Zstandard (one level, close to zstd's 3): the codec of log segments where zstd-jni's native
 * library cannot load ({@link SegmentCodecs#zstd()}), and the only one before zstd-jni. It holds nothing outside the
 * heap.
 */
final class JavaZstdFrames implements ZstdFrames {
    private final ZstdCompressor compressor = new ZstdCompressor();
    private final ZstdDecompressor decompressor = new ZstdDecompressor();

    @Override
    public int maxCompressedLength(int length) {
        return compressor.maxCompressedLength(length);
    }

    @Override
    public int compress(ByteBuffer source, ByteBuffer target) {
        compressor.compress(source, target);
        return target.position();
    }

    @Override
    public int decompress(ByteBuffer source, ByteBuffer target) {
        decompressor.decompress(source, target);
        return target.position();
    }

    @Override
    public void close() {}

    @Override
    public String toString() {
        return "pure-Java zstd (aircompressor)";
    }
}
