package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionLog;
import io.lakestream.plan.LogPartitionPruner;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.Partitioning;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Projections;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The partitions a delete filter selects as a whole, or nothing when it does not (docs/writes.md "Deleting whole
 * partitions"): for every partition of the log and of the lake, Iceberg's strict projection of the filter (every row
 * of the partition matches) must agree with its inclusive projection (some row may match). A filter on a column that
 * is not a partition source (or on one through a transform that cannot decide it) has a strict projection that is
 * false where the inclusive one is true, so it is not a whole-partition filter.
 *
 * @param partitions the log partitions (of the pinned log) the filter selects
 * @param lakeFiles how many lake data files of the snapshot the filter selects
 */
record PartitionSelection(List<PartitionLog> partitions, int lakeFiles) {
    PartitionSelection {
        partitions = ImmutableList.copyOf(requireNonNull(partitions, "partitions is null"));
    }

    boolean isEmpty() {
        return partitions.isEmpty() && lakeFiles == 0;
    }

    /**
     * The whole partitions {@code filter} selects in the lake at {@code snapshot} (null for an empty lake) and in the
     * log at {@code log}; empty if a partition would be deleted only in part, or the table's log is not kept per
     * (partition, bucket).
     */
    static Optional<PartitionSelection> of(
            LakestreamTable table, Expression filter, Snapshot snapshot, LogSnapshot log) {
        if (!table.log().isPartitionedLog()
                || table.definition().partitionFields().isEmpty()) {
            return Optional.empty();
        }
        PartitionSpec userSpec = Partitioning.userSpec(table.definition());
        Agreement logAgreement = new Agreement(userSpec, filter);
        LogPartitionPruner paths = new LogPartitionPruner(table.definition(), filter);
        List<PartitionLog> selected = new ArrayList<>();
        for (PartitionLog partition : log.partitions()) {
            StructLike values;
            try {
                values = paths.values(partition.path());
            } catch (RuntimeException e) {
                // a path that cannot be read back cannot be decided: keep the row-level path
                return Optional.empty();
            }
            Optional<Boolean> whole = logAgreement.decide(values);
            if (whole.isEmpty()) {
                return Optional.empty();
            }
            if (whole.get()) {
                selected.add(partition);
            }
        }
        int lakeFiles = 0;
        if (snapshot != null) {
            Table lake = table.lake();
            Agreement lakeAgreement = new Agreement(lake.spec(), filter);
            try (CloseableIterable<FileScanTask> tasks = lake.newScan()
                    .useSnapshot(snapshot.snapshotId())
                    .caseSensitive(false)
                    .filter(filter)
                    .ignoreResiduals()
                    .planFiles()) {
                for (FileScanTask task : tasks) {
                    Optional<Boolean> whole = lakeAgreement.decide(task.file().partition());
                    if (whole.isEmpty()) {
                        return Optional.empty();
                    }
                    if (whole.get()) {
                        lakeFiles++;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Optional.of(new PartitionSelection(selected, lakeFiles));
    }

    /** The strict and the inclusive projection of a filter over one spec, evaluated on partition values. */
    private static final class Agreement {
        private final Evaluator strict;
        private final Evaluator inclusive;

        Agreement(PartitionSpec spec, Expression filter) {
            this.strict = new Evaluator(
                    spec.partitionType(), Projections.strict(spec, false).project(filter), false);
            this.inclusive = new Evaluator(
                    spec.partitionType(), Projections.inclusive(spec, false).project(filter), false);
        }

        /** True: every row of the partition matches; false: none does; empty: some may. */
        Optional<Boolean> decide(StructLike partition) {
            boolean all = strict.eval(partition);
            boolean some = inclusive.eval(partition);
            if (all) {
                return Optional.of(true);
            }
            return some ? Optional.empty() : Optional.of(false);
        }
    }
}
