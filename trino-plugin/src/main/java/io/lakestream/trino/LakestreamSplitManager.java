package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.inject.Inject;
import io.lakestream.common.LakestreamException;
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
        return new FixedSplitSource(plan.splits().stream()
                .filter(split -> bucketDomain.isEmpty() || matches(split, bucketDomain.get()))
                .map(LakestreamSplit::new)
                .toList());
    }

    /** {@code $bucket} is constant in a split: the split is read exactly when its bucket passes the filter. */
    private static boolean matches(UnionSplit split, Domain bucketDomain) {
        return bucketDomain.includesNullableValue(
                split.bucket().isPresent() ? (long) split.bucket().getAsInt() : null);
    }
}
