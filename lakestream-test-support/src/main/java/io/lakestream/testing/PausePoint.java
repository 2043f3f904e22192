package io.lakestream.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds an engine's write in the middle: a test function of the engine (a Trino scalar function, a
 * Spark UDF) calls {@link #reached} for every row, and the call for the armed value blocks until the
 * test {@link #resume}s it. Engines run in the test's JVM, so the state is static. Every wait is bounded
 * (two minutes), so a failing test cannot hang the build.
 */
public final class PausePoint {
    private static volatile long armed = Long.MIN_VALUE;
    private static volatile CountDownLatch paused = new CountDownLatch(1);
    private static volatile CountDownLatch resumed = new CountDownLatch(1);

    private PausePoint() {}

    public static void arm(long value) {
        paused = new CountDownLatch(1);
        resumed = new CountDownLatch(1);
        armed = value;
    }

    /** Whether a call reached the armed value (within the bound). */
    public static boolean awaitPaused() throws InterruptedException {
        return paused.await(2, TimeUnit.MINUTES);
    }

    public static void resume() {
        armed = Long.MIN_VALUE;
        resumed.countDown();
    }

    /** Returns {@code value}; blocks first if it is the armed value. */
    public static long reached(long value) {
        if (value == armed) {
            paused.countDown();
            try {
                resumed.await(2, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return value;
    }
}
