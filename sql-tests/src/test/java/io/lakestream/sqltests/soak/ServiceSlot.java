package io.lakestream.sqltests.soak;

import java.util.Optional;

/**
 * A slot whose child works on its own (a tiering service): the slot only restarts it whenever it was
 * killed, until the soak stops.
 */
final class ServiceSlot implements Runnable {
    private final ChildSlot slot;
    private volatile boolean stopping;

    ServiceSlot(ChildSlot slot) {
        this.slot = slot;
    }

    ChildSlot slot() {
        return slot;
    }

    void stop() {
        stopping = true;
    }

    @Override
    public void run() {
        try {
            Optional<Child> child = slot.currentOrStart();
            while (!stopping && child.isPresent()) {
                if (!child.get().isAlive()) {
                    child = slot.start();
                } else {
                    Thread.sleep(100);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
