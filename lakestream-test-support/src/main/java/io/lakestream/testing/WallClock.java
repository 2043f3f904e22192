package io.lakestream.testing;

/**
 * For tests of engines whose log dates commits with the system clock (a Trino or Spark catalog opens its
 * log with {@code Clock.systemUTC()}; no test can hand it a {@link MutableClock}): a commit made after
 * {@link #awaitPast} returns is dated after {@code millis}, however fast or slow the machine is. It
 * waits for the clock's next millisecond at most, where a fixed sleep would only make that likely.
 */
public final class WallClock {
    private WallClock() {}

    /** Returns once {@link System#currentTimeMillis()} is past {@code millis}. */
    public static void awaitPast(long millis) {
        while (System.currentTimeMillis() <= millis) {
            Thread.onSpinWait();
        }
    }
}
