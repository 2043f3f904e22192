package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.lakestream.common.LakestreamException;
import io.lakestream.merge.SplitsForLimit;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.FixedSplitSource;
import io.trino.spi.predicate.Domain;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One Trino split per split of the shared union-read plan, planned on the table state the handle
 * pinned (the lake snapshot and the log version), pruning buckets and lake files with the
 * pushed-down filter.
 */
public final class LakestreamSplitManager implements ConnectorSplitManager {
    private final LakestreamCatalogAccess catalog;

    @Inject
    public LakestreamSplitManager(LakestreamCatalogAccess catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    @Override
    public ConnectorSplitSource getSplits(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorTableHandle tableHandle,
            Set<ColumnHandle> columns,
            Constraint constraint) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        if (handle.constraint().isNone()) {
            // no splits; the (empty) splits info lets this also be the scan of EXECUTE compact, which reads nothing
            // (LakestreamMetadata.beginTableExecute): Trino's finish of a table procedure requires the info
            return new FixedSplitSource(List.of(), List.of());
        }
        LakestreamTable table = catalog.loadTable(handle);
        ReadOptions options = handle.planOptions();
        ReadPlan plan;
        try {
            plan = UnionReadPlanner.plan(table, options, Optional.of(catalog.lakeFiles()));
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
        Optional<Domain> bucketDomain = LakestreamFilterTranslator.bucketDomain(handle.constraint());
        List<UnionSplit> splits = plan.splits().stream()
                .filter(split -> bucketDomain.isEmpty() || matches(split, bucketDomain.get()))
                .toList();
        return new FixedSplitSource(
                withinLimit(handle, splits).stream().map(LakestreamSplit::new).toList());
    }

    /**
     * With a limit and no filter, only the first splits that surely return that many rows: the others would be
     * scheduled and opened for rows the query never uses. A filter may drop any split's rows, so then all are read.
     */
    private static List<UnionSplit> withinLimit(LakestreamTableHandle handle, List<UnionSplit> splits) {
        if (handle.limit().isEmpty() || !handle.constraint().isAll()) {
            return splits;
        }
        return SplitsForLimit.enoughFor(splits, handle.limit().getAsLong());
    }

    /** {@code $bucket} is constant in a split: the split is read exactly when its bucket passes the filter. */
    private static boolean matches(UnionSplit split, Domain bucketDomain) {
        return bucketDomain.includesNullableValue(
                split.bucket().isPresent() ? (long) split.bucket().getAsInt() : null);
    }
}
