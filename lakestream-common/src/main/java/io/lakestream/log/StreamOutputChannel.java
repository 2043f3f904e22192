package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;

/** A {@link LogFileSystem.OutputChannel} over a stream, forced the way its file system forces (flush, hsync). */
final class StreamOutputChannel implements LogFileSystem.OutputChannel {
    /** What makes the stream's content durable. */
    @FunctionalInterface
    interface Force {
        void force() throws IOException;
    }

    private final WritableByteChannel channel;
    private final Force force;

    StreamOutputChannel(OutputStream stream, Force force) {
        this.channel = Channels.newChannel(requireNonNull(stream, "stream is null"));
        this.force = requireNonNull(force, "force is null");
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        return channel.write(source);
    }

    @Override
    public void force() throws IOException {
        force.force();
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
