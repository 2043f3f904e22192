package io.lakestream.catalog;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.TimeUnit;

/**
 * A clock a test moves forward, which counts how often it was read: a test waits until the code under test
 * read it a few times after a move, i.e. until that code has acted on the new time, whatever the machine's
 * speed.
 */
final class CountingClock extends Clock {
    private volatile Instant now;
    private long reads;

    CountingClock(Instant now) {
        this.now = now;
    }

    synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    synchronized long reads() {
        return reads;
    }

    /** Waits until the clock was read {@code count} more times than {@code since}. */
    void awaitReads(long since, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (reads() < since + count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the clock was not read %d times within two minutes".formatted(count));
            }
            Thread.sleep(1);
        }
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public synchronized Instant instant() {
        reads++;
        return now;
    }
}
