package io.lakestream.log;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The local log file system with faults a test can inject: a pause before a publish or before a read
 * of a log file (another process acts in it), deletes that do not happen (a process that stalls after publishing, before it deletes),
 * and a read-only log (what the Java writer, Spark and tiering see on {@code s3a:} through Hadoop). Every
 * operation it does not change is forwarded ({@link ForwardingLogFileSystem}).
 */
public final class FaultyLogFileSystem extends ForwardingLogFileSystem {
    private final AtomicReference<Runnable> beforeNextPublish = new AtomicReference<>();
    private final AtomicReference<Runnable> beforeNextRead = new AtomicReference<>();
    private volatile boolean deletes = true;
    private volatile boolean readOnly;

    public FaultyLogFileSystem() {
        super(new LocalLogFileSystem());
    }

    /** Runs {@code action} once, right before the next {@link #createExclusive}. */
    public void beforeNextPublish(Runnable action) {
        beforeNextPublish.set(action);
    }

    /**
     * Runs {@code action} once, right before the next {@link #readIfExists} (how the log reads its
     * identity record and probes for new commits).
     */
    public void beforeNextRead(Runnable action) {
        beforeNextRead.set(action);
    }

    public void ignoreDeletes() {
        deletes = false;
    }

    /** Every write fails, and {@link #canPublish} says so. */
    public void readOnly() {
        readOnly = true;
    }

    @Override
    public boolean canPublish(String location) {
        return !readOnly && super.canPublish(location);
    }

    private void checkWritable(String location) throws IOException {
        if (readOnly) {
            throw new IOException("read-only log file system: cannot write " + location);
        }
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        checkWritable(location);
        Runnable action = beforeNextPublish.getAndSet(null);
        if (action != null) {
            action.run();
        }
        return super.createExclusive(location, content);
    }

    @Override
    public void delete(String location) throws IOException {
        checkWritable(location);
        if (deletes) {
            super.delete(location);
        }
    }

    @Override
    public OutputStream create(String location) throws IOException {
        checkWritable(location);
        return super.create(location);
    }

    @Override
    public OutputChannel createChannel(String location) throws IOException {
        checkWritable(location);
        return super.createChannel(location);
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        checkWritable(location);
        super.replace(location, content);
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        Runnable action = beforeNextRead.getAndSet(null);
        if (action != null) {
            action.run();
        }
        return super.readIfExists(location);
    }

    @Override
    public void deleteRecursively(String location) throws IOException {
        checkWritable(location);
        super.deleteRecursively(location);
    }
}
