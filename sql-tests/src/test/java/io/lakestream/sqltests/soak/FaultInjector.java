package io.lakestream.sqltests.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Carries out a {@link FaultPlan} against the running slots: one thread kills, another fills and frees
 * the warehouse's disk. Remembers when the disk was full, so that the run can tell failures a full disk
 * explains from others, and check that every slot made progress after the disk was freed.
 */
final class FaultInjector {
    private final FaultPlan plan;
    private final Map<String, ChildSlot> slots;
    private final Optional<Tmpfs> disk;
    private final History history;
    private final Tally tally;
    private final List<long[]> diskFullWindows = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;
    private long startNanos;

    FaultInjector(FaultPlan plan, Map<String, ChildSlot> slots, Optional<Tmpfs> disk, History history, Tally tally) {
        this.plan = plan;
        this.slots = slots;
        this.disk = disk;
        this.history = history;
        this.tally = tally;
    }

    void start() {
        startNanos = System.nanoTime();
        threads.add(Thread.ofPlatform().name("soak-kills").start(this::kill));
        if (disk.isPresent() && !plan.diskFulls().isEmpty()) {
            threads.add(Thread.ofPlatform().name("soak-disk").start(this::fillDisk));
        }
    }

    /** Stops injecting; a full disk is freed before this returns. */
    void stop() throws InterruptedException {
        stopping = true;
        for (Thread thread : threads) {
            thread.interrupt();
            thread.join();
        }
    }

    synchronized boolean diskFullOverlaps(long fromNanos, long toNanos) {
        for (long[] window : diskFullWindows) {
            long end = window[1] == 0 ? Long.MAX_VALUE : window[1];
            if (fromNanos <= end && toNanos >= window[0]) {
                return true;
            }
        }
        return false;
    }

    /** When the disk was last freed, if it was ever filled. */
    synchronized Optional<Long> lastFreedNanos() {
        return diskFullWindows.isEmpty()
                ? Optional.empty()
                : Optional.of(diskFullWindows.getLast()[1]);
    }

    private void kill() {
        for (FaultPlan.Kill kill : plan.kills()) {
            if (!sleepUntil(kill.atMillis())) {
                return;
            }
            if (!slots.get(kill.slot()).kill()) {
                tally.increment("kills skipped (the slot was restarting)");
            }
        }
    }

    private void fillDisk() {
        Tmpfs tmpfs = disk.orElseThrow();
        for (FaultPlan.DiskFull episode : plan.diskFulls()) {
            if (!sleepUntil(episode.atMillis())) {
                return;
            }
            long[] window = {System.nanoTime(), 0};
            synchronized (this) {
                diskFullWindows.add(window);
            }
            long filled = tmpfs.fill();
            history.note("disk", "full", "filler of " + filled + " bytes, for " + episode.holdMillis() + " ms");
            tally.increment("disk-full episodes");
            tally.add("disk-full ms", episode.holdMillis());
            try {
                // the hold starts once the disk is full (filling it takes a while on a busy machine)
                Thread.sleep(episode.holdMillis());
            } catch (InterruptedException e) {
                // stopping: free the disk now
            } finally {
                tmpfs.free();
                synchronized (this) {
                    window[1] = System.nanoTime();
                }
                history.note("disk", "freed", "");
            }
        }
    }

    /** Sleeps until the moment of the plan; false if the soak is stopping. */
    private boolean sleepUntil(long atMillis) {
        long wait = atMillis - (System.nanoTime() - startNanos) / 1_000_000;
        if (wait > 0) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                return false;
            }
        }
        return !stopping;
    }
}
