package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.ReadPlan;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The scans Spark built of a table that a statement writes: those of one loaded table ({@link LakestreamTable}), or
 * of one row-level operation. The commit of the statement's write asks them what it read ({@link #read}), for its
 * snapshot-isolation check. Spark loads a table once per statement and never keeps the instance for the next one
 * (the target of a MERGE with only NOT MATCHED clauses is one relation, read by its left anti join and written by its
 * append), so every scan of one instance is its statement's.
 *
 * <p>The scans are held weakly: a DataFrame kept by an application (or a stream's static side) keeps its loaded table
 * and builds a new scan, with its plan of splits, for every query derived from it; those scans go once their queries
 * are gone. The scans of a running statement stay reachable from its plan until its write commits.
 */
final class LakestreamTargetScans {
    private final List<WeakReference<LakestreamScan>> scans = new ArrayList<>();

    synchronized void add(LakestreamScan scan) {
        requireNonNull(scan, "scan is null");
        scans.removeIf(reference -> reference.get() == null);
        scans.add(new WeakReference<>(scan));
    }

    /** Whether Spark built no scan: the statement reads nothing of the table (a blind write). */
    boolean isEmpty() {
        return live().isEmpty();
    }

    private synchronized List<LakestreamScan> live() {
        List<LakestreamScan> live = new ArrayList<>();
        for (WeakReference<LakestreamScan> reference : scans) {
            LakestreamScan scan = reference.get();
            if (scan != null) {
                live.add(scan);
            }
        }
        return live;
    }

    /**
     * What the scans read: the oldest log version a scan was planned at, that scan's lake snapshot, and a condition
     * every row read satisfies (the planned scans' filters, or-ed: a scan of another filter may have read the rows).
     * A scan never planned read no row; when none was, the read is of no row at {@code startVersion}, a log version
     * from before the statement could read, with the built scans' filters ({@code alwaysTrue} without any).
     */
    LakestreamRowLevelRead read(long startVersion) {
        List<LakestreamScan> built = live();
        Optional<ReadPlan> oldest = Optional.empty();
        Expression planned = Expressions.alwaysFalse();
        Expression anyBuilt = built.isEmpty() ? Expressions.alwaysTrue() : Expressions.alwaysFalse();
        for (LakestreamScan scan : built) {
            anyBuilt = Expressions.or(anyBuilt, scan.filter());
            Optional<ReadPlan> plan = scan.plannedRead();
            if (plan.isEmpty()) {
                continue;
            }
            planned = Expressions.or(planned, scan.filter());
            if (oldest.isEmpty() || plan.get().logVersion() < oldest.get().logVersion()) {
                oldest = plan;
            }
        }
        if (oldest.isEmpty()) {
            return new LakestreamRowLevelRead(startVersion, anyBuilt, false, OptionalLong.empty());
        }
        return new LakestreamRowLevelRead(
                oldest.get().logVersion(), planned, true, oldest.get().lakeSnapshotId());
    }
}
