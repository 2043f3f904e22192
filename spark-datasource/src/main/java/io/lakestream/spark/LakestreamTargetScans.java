package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.plan.ReadPlan;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * The scans Spark built of a table that a statement writes: those of one loaded table ({@link LakestreamTable}), or
 * of one row-level operation. The commit of the statement's write asks them what it read ({@link #read}), for its
 * snapshot-isolation check. Spark loads a table once per statement and never keeps the instance for the next one
 * (the target of a MERGE with only NOT MATCHED clauses is one relation, read by its left anti join and written by its
 * append), so every scan of one instance is its statement's.
 */
final class LakestreamTargetScans {
    private final List<LakestreamScan> scans = new CopyOnWriteArrayList<>();

    void add(LakestreamScan scan) {
        scans.add(requireNonNull(scan, "scan is null"));
    }

    /** Whether Spark built no scan: the statement reads nothing of the table (a blind write). */
    boolean isEmpty() {
        return scans.isEmpty();
    }

    /**
     * What the scans read: the oldest log version a scan was planned at, that scan's lake snapshot, and a condition
     * every row read satisfies (the planned scans' filters, or-ed: a scan of another filter may have read the rows).
     * A scan never planned read no row; when none was, the read is of no row at {@code startVersion}, a log version
     * from before the statement could read, with the built scans' filters ({@code alwaysTrue} without any).
     */
    LakestreamRowLevelRead read(long startVersion) {
        Optional<ReadPlan> oldest = Optional.empty();
        Expression planned = Expressions.alwaysFalse();
        Expression built = scans.isEmpty() ? Expressions.alwaysTrue() : Expressions.alwaysFalse();
        for (LakestreamScan scan : scans) {
            built = Expressions.or(built, scan.filter());
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
            return new LakestreamRowLevelRead(startVersion, built, false, OptionalLong.empty());
        }
        return new LakestreamRowLevelRead(
                oldest.get().logVersion(), planned, true, oldest.get().lakeSnapshotId());
    }
}
