package io.lakestream.log;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import java.nio.ByteBuffer;

/**
 * zstd-jni's native Zstandard, with one compression and one decompression context made at first use and reused for
 * every buffer until closed: a writer's segments share one context, a reader's batches another. Only made once the
 * native library has loaded ({@link SegmentCodecs#zstd()}).
 */
final class NativeZstdFrames implements ZstdFrames {
    private final int level;
    private ZstdCompressCtx compressor;
    private ZstdDecompressCtx decompressor;
    private boolean closed;

    NativeZstdFrames(int level) {
        this.level = level;
    }

    @Override
    public int maxCompressedLength(int length) {
        return Math.toIntExact(Zstd.compressBound(length));
    }

    @Override
    public int compress(ByteBuffer source, ByteBuffer target) {
        if (compressor == null) {
            checkOpen();
            compressor = new ZstdCompressCtx().setLevel(level);
        }
        return compressor.compressDirectByteBuffer(
                target, 0, target.capacity(), source, source.position(), source.remaining());
    }

    @Override
    public int decompress(ByteBuffer source, ByteBuffer target) {
        if (decompressor == null) {
            checkOpen();
            decompressor = new ZstdDecompressCtx();
        }
        return decompressor.decompressDirectByteBuffer(
                target, 0, target.capacity(), source, source.position(), source.remaining());
    }

    /** Frees both contexts; a context made after closing would never be freed, so using it again fails. */
    @Override
    public void close() {
        closed = true;
        if (compressor != null) {
            compressor.close();
            compressor = null;
        }
        if (decompressor != null) {
            decompressor.close();
            decompressor = null;
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this zstd codec is closed");
        }
    }

    @Override
    public String toString() {
        return "native zstd (zstd-jni), level " + level;
    }
}
