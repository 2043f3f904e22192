package io.lakestream.log;

import java.nio.ByteBuffer;

/**
 * One Zstandard implementation for log segments: whole frames between direct buffers that are views of Arrow
 * buffers, so nothing is copied on the way. Not thread-safe (implementations keep compression state); closing frees
 * what an implementation holds outside the heap.
 */
interface ZstdFrames extends AutoCloseable {
    /** The most bytes a frame of {@code length} input bytes can take. */
    int maxCompressedLength(int length);

    /** Compresses all of {@code source} (position to limit) as one frame into {@code target} at 0; its length. */
    int compress(ByteBuffer source, ByteBuffer target);

    /**
     * Decompresses the frame {@code source} into {@code target} at 0; the bytes written. A damaged frame throws an
     * unchecked exception of the implementation (the segment reader reports it as a corrupt segment).
     */
    int decompress(ByteBuffer source, ByteBuffer target);

    @Override
    void close();
}
