package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.OffsetMap;
import java.util.Iterator;
import java.util.Optional;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;

/**
 * The compare-and-swap condition of a lake commit: the lake's offset map is still the one the round
 * planned from.
 *
 * <p>Iceberg calls this inside {@code SnapshotProducer.apply()} on every commit attempt, with the
 * ancestry of the freshly refreshed base, and then swaps in the new metadata only if the catalog's
 * current metadata is still that base. A check before {@code commit()} would not be enough: on a
 * retry Iceberg refreshes and re-applies the change on top of whatever another writer committed.
 */
public final class OffsetsUnchanged implements SnapshotAncestryValidator {
    private final OffsetMap expected;
    private final int bucketCount;
    private final Runnable duringCommit;
    private volatile Optional<LakePosition> conflicting = Optional.empty();
    private volatile boolean foreignChange;

    public OffsetsUnchanged(OffsetMap expected, int bucketCount, Runnable duringCommit) {
        this.expected = requireNonNull(expected, "expected is null");
        this.bucketCount = bucketCount;
        this.duringCommit = requireNonNull(duringCommit, "duringCommit is null");
    }

    @Override
    public boolean validate(Iterable<Snapshot> ancestry) {
        if (foreignChangeSinceLakestream(ancestry)) {
            // a stock engine committed since the round validated the lake: this commit would bury its
            // change under new offsets; fail it like a lost race, the re-plan reports the mismatch
            conflicting = Optional.of(LakePosition.EMPTY);
            foreignChange = true;
            return false;
        }
        Iterator<Snapshot> snapshots = ancestry.iterator();
        LakePosition current = snapshots.hasNext()
                ? LakePosition.fromAncestry(snapshots.next().snapshotId(), ancestry)
                : LakePosition.EMPTY;
        if (!LakePosition.sameOffsets(current.offsets(), expected, bucketCount)) {
            conflicting = Optional.of(current);
            return false;
        }
        duringCommit.run();
        return true;
    }

    private static boolean foreignChangeSinceLakestream(Iterable<Snapshot> ancestry) {
        for (Snapshot snapshot : ancestry) {
            if (LakeLayoutValidator.isLakestreamSnapshot(snapshot)) {
                return false;
            }
            if (!DataOperations.REPLACE.equals(snapshot.operation())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String errorMessage() {
        if (foreignChange) {
            return "the lake got a snapshot not written by Lakestream since tiering planned this commit";
        }
        return "the lake's log offsets changed since tiering planned this commit (another tiering run committed %s)"
                .formatted(conflicting
                        .map(position -> position.offsets().toString())
                        .orElse("first"));
    }

    /** The lake position that failed validation, if validation failed. */
    Optional<LakePosition> conflicting() {
        return conflicting;
    }
}
