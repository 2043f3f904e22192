package io.lakestream.io;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import org.apache.iceberg.io.PositionOutputStream;

/** An Iceberg {@link PositionOutputStream} over any stream: the position is the count of bytes written. */
public final class CountingPositionOutputStream extends PositionOutputStream {
    private final OutputStream stream;
    private long position;

    public CountingPositionOutputStream(OutputStream stream) {
        this.stream = requireNonNull(stream, "stream is null");
    }

    @Override
    public long getPos() {
        return position;
    }

    @Override
    public void write(int b) throws IOException {
        stream.write(b);
        position++;
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        stream.write(bytes, offset, length);
        position += length;
    }

    @Override
    public void flush() throws IOException {
        stream.flush();
    }

    @Override
    public void close() throws IOException {
        stream.close();
    }
}
