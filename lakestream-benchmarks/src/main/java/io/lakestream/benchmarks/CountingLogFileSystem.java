package io.lakestream.benchmarks;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.ForwardingLogFileSystem;
import io.lakestream.log.LogFileSystem;
import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A log file system that counts what the log's commit protocol asks of the one below it: each conditional
 * create ({@link #createExclusive}: one publish attempt), how many of them lost to another writer (a conflict
 * retry follows), the time they took, and the reads that find the latest version. Everything else is passed
 * through unchanged, so the writer under measurement runs its real code path.
 */
final class CountingLogFileSystem extends ForwardingLogFileSystem {
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

    private final Counters counters;

    CountingLogFileSystem(LogFileSystem delegate, Counters counters) {
        super(delegate);
        this.counters = requireNonNull(counters, "counters is null");
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        long start = System.nanoTime();
        boolean created = super.createExclusive(location, content);
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
        return super.readIfExists(location);
    }
}
