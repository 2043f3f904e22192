package io.lakestream.tiering.expiry;

import static java.util.Objects.requireNonNull;

import java.util.Iterator;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;

/**
 * The compare-and-swap condition of partition expiry's lake commit: the lake's current snapshot is still the one the
 * expiry was planned from. Iceberg calls it inside {@code SnapshotProducer.apply()} on every attempt, with the freshly
 * refreshed base, then swaps only if the catalog still has that base (as {@code OffsetsUnchanged} does for tiering).
 * Any new snapshot rejects it: a tiering commit of late data into the same partition path since the plan would
 * otherwise be deleted with the expired rows.
 */
final class BaseUnchanged implements SnapshotAncestryValidator {
    private final long expected;
    private final Runnable duringCommit;
    private volatile boolean rejected;

    BaseUnchanged(long expected, Runnable duringCommit) {
        this.expected = expected;
        this.duringCommit = requireNonNull(duringCommit, "duringCommit is null");
    }

    @Override
    public boolean validate(Iterable<Snapshot> ancestry) {
        Iterator<Snapshot> snapshots = ancestry.iterator();
        if (!snapshots.hasNext() || snapshots.next().snapshotId() != expected) {
            rejected = true;
            return false;
        }
        duringCommit.run();
        return true;
    }

    @Override
    public String errorMessage() {
        return "the lake got a new snapshot since partition expiry planned this commit (expected snapshot %s)"
                .formatted(expected);
    }

    boolean rejected() {
        return rejected;
    }
}
