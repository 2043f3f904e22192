package io.lakestream.benchmarks;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.LogFileSystem;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A log file system that counts what the log's commit protocol asks of the one below it: each conditional
 * create ({@link #createExclusive}: one publish attempt), how many of them lost to another writer (a conflict
 * retry follows), the time they took, and the reads that find the latest version. Everything else is passed
 * through unchanged, so the writer under measurement runs its real code path.
 */
final class CountingLogFileSystem implements LogFileSystem {
    /** Counters shared by every writer of one measurement. */
    static final class Counters {
        private final AtomicLong publishAttempts = new AtomicLong();
        private final AtomicLong lostRaces = new AtomicLong();
        private final AtomicLong publishNanos = new AtomicLong();
        private final AtomicLong reads = new AtomicLong();

        long publishAttempts() {
            return publishAttempts.get();
        }

        long lostRaces() {
            return lostRaces.get();
        }

        /** Mean milliseconds of one conditional create (0 if there was none). */
        double meanPublishMillis() {
            long attempts = publishAttempts.get();
            return attempts == 0 ? 0 : publishNanos.get() / 1e6 / attempts;
        }

        long reads() {
            return reads.get();
        }
    }

    private final LogFileSystem delegate;
    private final Counters counters;

    CountingLogFileSystem(LogFileSystem delegate, Counters counters) {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.counters = requireNonNull(counters, "counters is null");
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        long start = System.nanoTime();
        boolean created = delegate.createExclusive(location, content);
        // commits and checkpoints alike: a checkpoint is part of what publishing costs every 50 versions
        counters.publishNanos.addAndGet(System.nanoTime() - start);
        counters.publishAttempts.incrementAndGet();
        if (!created) {
            counters.lostRaces.incrementAndGet();
        }
        return created;
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        counters.reads.incrementAndGet();
        return delegate.readIfExists(location);
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
    public boolean canPublish(String location) {
        return delegate.canPublish(location);
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        delegate.replace(location, content);
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
