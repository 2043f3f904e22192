package io.lakestream.testing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Makes loads that may run at once really overlap, for tests of "loaded once, not once per caller": a
 * participant that reaches a load ({@link #arrive}) waits until every other participant has reached a load
 * too, or waits elsewhere (e.g. for this load to finish), or is done. Without that, the first caller could
 * finish before the others start, and a cache that loads once per caller would pass by luck.
 */
public final class ConcurrentLoadGate {
    private final int participants;
    private final Set<Thread> joined = ConcurrentHashMap.newKeySet();
    private final Set<Thread> arrived = ConcurrentHashMap.newKeySet();

    /** @param participants the threads that will {@link #join}: the gate holds nobody until all have */
    public ConcurrentLoadGate(int participants) {
        this.participants = participants;
    }

    /** The calling thread takes part: its later loads are held. */
    public void join() {
        joined.add(Thread.currentThread());
    }

    /** Called at a load; holds a participant as described above, returns at once for any other thread. */
    public void arrive() {
        Thread self = Thread.currentThread();
        if (!joined.contains(self)) {
            return;
        }
        arrived.add(self);
        while (joined.size() < participants || !othersArrivedOrWaiting(self)) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private boolean othersArrivedOrWaiting(Thread self) {
        return joined.stream()
                .filter(thread -> thread != self)
                .allMatch(thread -> arrived.contains(thread)
                        || thread.getState() == Thread.State.WAITING
                        || thread.getState() == Thread.State.BLOCKED
                        || thread.getState() == Thread.State.TERMINATED);
    }
}
