package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Optional;

/**
 * A {@link LogFileSystem} that forwards every operation, the default ones included, to another one. A
 * decorator (counting, recording, injecting a fault) extends it and overrides only what it changes, so a
 * method added to {@link LogFileSystem} later is forwarded by every decorator at once instead of silently
 * falling back to the interface's default in the ones that forgot it.
 */
public abstract class ForwardingLogFileSystem implements LogFileSystem {
    private final LogFileSystem delegate;

    protected ForwardingLogFileSystem(LogFileSystem delegate) {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    /** The file system every operation goes to. */
    protected final LogFileSystem delegate() {
        return delegate;
    }

    @Override
    public OutputStream create(String location) throws IOException {
        return delegate.create(location);
    }

    @Override
    public OutputChannel createChannel(String location) throws IOException {
        return delegate.createChannel(location);
    }

    @Override
    public void syncDirectory(String location) throws IOException {
        delegate.syncDirectory(location);
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        return delegate.createExclusive(location, content);
    }

    @Override
    public boolean canPublish(String location) {
        return delegate.canPublish(location);
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        delegate.replace(location, content);
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        return delegate.readIfExists(location);
    }

    @Override
    public SeekableByteChannel openForRead(String location) throws IOException {
        return delegate.openForRead(location);
    }

    @Override
    public boolean exists(String location) throws IOException {
        return delegate.exists(location);
    }

    @Override
    public void delete(String location) throws IOException {
        delegate.delete(location);
    }

    @Override
    public void deleteRecursively(String location) throws IOException {
        delegate.deleteRecursively(location);
    }

    @Override
    public List<FileEntry> listRecursively(String location) throws IOException {
        return delegate.listRecursively(location);
    }
}
