package io.lakestream.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/**
 * A read-only {@link SeekableByteChannel} over a file system's positioned reads (Arrow's file reader
 * seeks to the footer first). Subclasses adapt one file system's input ({@link #readFully}, {@link
 * #closeInput}).
 */
public abstract class PositionedReadChannel implements SeekableByteChannel {
    private final long size;
    private long position;
    private boolean open = true;

    protected PositionedReadChannel(long size) {
        this.size = size;
    }

    /** Reads exactly {@code length} bytes at {@code position} of the file into {@code buffer}. */
    protected abstract void readFully(long position, byte[] buffer, int offset, int length) throws IOException;

    protected abstract void closeInput() throws IOException;

    @Override
    public final int read(ByteBuffer destination) throws IOException {
        checkOpen();
        if (position >= size) {
            return -1;
        }
        int length = (int) Math.min(destination.remaining(), size - position);
        if (length == 0) {
            return 0;
        }
        if (destination.hasArray()) {
            readFully(position, destination.array(), destination.arrayOffset() + destination.position(), length);
            destination.position(destination.position() + length);
        } else {
            byte[] buffer = new byte[length];
            readFully(position, buffer, 0, length);
            destination.put(buffer);
        }
        position += length;
        return length;
    }

    @Override
    public final int write(ByteBuffer source) {
        throw new NonWritableChannelException();
    }

    @Override
    public final long position() throws IOException {
        checkOpen();
        return position;
    }

    @Override
    public final SeekableByteChannel position(long newPosition) throws IOException {
        checkOpen();
        if (newPosition < 0) {
            throw new IllegalArgumentException("Negative position: " + newPosition);
        }
        position = newPosition;
        return this;
    }

    @Override
    public final long size() throws IOException {
        checkOpen();
        return size;
    }

    @Override
    public final SeekableByteChannel truncate(long newSize) {
        throw new NonWritableChannelException();
    }

    @Override
    public final boolean isOpen() {
        return open;
    }

    @Override
    public final void close() throws IOException {
        if (open) {
            open = false;
            closeInput();
        }
    }

    private void checkOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }
}
