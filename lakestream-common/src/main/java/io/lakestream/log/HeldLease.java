package io.lakestream.log;

import static io.lakestream.common.LakestreamError.LOG_IO_ERROR;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A writer lease this process holds: written when acquired, renewed by a heartbeat on a shared daemon
 * thread, deleted on {@link #close}. Hold it from before the write stages its first segment until the
 * write has committed or aborted, and name its segments after {@link #id}. See {@link WriterLease}.
 *
 * <p>A renewal that fails is logged and retried at the next beat; if the lease expires meanwhile, the
 * sweep may remove the write's segments and its commit is then refused (nothing is lost). Thread-safe.
 */
public final class HeldLease implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HeldLease.class);

    private static final ScheduledThreadPoolExecutor HEARTBEATS = heartbeats();

    private final LogFileSystem fileSystem;
    private final String location;
    private final Clock clock;
    private WriterLease lease;
    private ScheduledFuture<?> heartbeat;
    private boolean closed;

    private HeldLease(LogFileSystem fileSystem, String location, Clock clock, WriterLease lease) {
        this.fileSystem = fileSystem;
        this.location = location;
        this.clock = clock;
        this.lease = lease;
    }

    /** Writes a new lease of the default timeout into the log's lease directory and starts renewing it. */
    public static HeldLease acquire(StreamLog streamLog, String holder, Clock clock) {
        return acquire(streamLog, holder, clock, WriterLease.DEFAULT_TIMEOUT);
    }

    public static HeldLease acquire(StreamLog streamLog, String holder, Clock clock, Duration timeout) {
        requireNonNull(streamLog, "streamLog is null");
        WriterLease lease = new WriterLease(
                WriterLease.FORMAT_VERSION, WriterLease.newId(), holder, timeout.toMillis(), 0, clock.millis());
        HeldLease held = new HeldLease(streamLog.fileSystem(), streamLog.paths().lease(lease.id()), clock, lease);
        try {
            held.write(lease);
        } catch (IOException e) {
            throw new LakestreamException(
                    LOG_IO_ERROR,
                    "Could not write the writer lease %s (the log at %s must be writable): %s"
                            .formatted(held.location, streamLog.paths().root(), e.getMessage()),
                    e);
        }
        long interval = lease.heartbeatInterval().toMillis();
        synchronized (held) {
            held.heartbeat = HEARTBEATS.scheduleAtFixedRate(held::beat, interval, interval, TimeUnit.MILLISECONDS);
        }
        return held;
    }

    public String id() {
        return lease.id();
    }

    /** Rewrites the lease with one more renewal; the heartbeat calls it, a test may too. */
    public synchronized void renew() throws IOException {
        if (closed) {
            return;
        }
        WriterLease next = lease.renewed(clock.millis());
        write(next);
        lease = next;
    }

    private void beat() {
        try {
            renew();
        } catch (IOException | RuntimeException e) {
            log.warn("Could not renew writer lease {}; retrying at the next heartbeat", location, e);
        }
    }

    private void write(WriterLease content) throws IOException {
        fileSystem.replace(location, LogJson.write(content));
    }

    /** Stops renewing and deletes the lease file: the write has committed or aborted. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (heartbeat != null) {
            heartbeat.cancel(false);
        }
        try {
            fileSystem.delete(location);
        } catch (IOException | RuntimeException e) {
            // the sweeper deletes it once it has not changed for its timeout
            log.warn("Could not delete writer lease {}; it expires on its own", location, e);
        }
    }

    private static ScheduledThreadPoolExecutor heartbeats() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = Executors.defaultThreadFactory().newThread(runnable);
            thread.setName("lakestream-lease-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
