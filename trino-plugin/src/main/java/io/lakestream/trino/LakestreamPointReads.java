package io.lakestream.trino;

import io.lakestream.plan.ReadMode;
import io.lakestream.table.TableDefinition;
import io.trino.spi.connector.ConnectorTablePartitioning;
import io.trino.spi.connector.ConnectorTableProperties;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.types.Types;

/**
 * Point reads run in one stage. A union read whose enforced filter fixes every primary-key column to one value
 * returns at most one row from one bucket (one split; the key fixes the partition too, since a primary-key table is
 * partitioned by key columns only). Its scan is declared {@link LakestreamPartitioningHandle#SINGLE_NODE}, so Trino
 * plans a global aggregation or the output over it into the scan's fragment: one task and no remote exchange instead
 * of a leaf stage, an exchange and an output stage, which on a loaded machine cost more than the read itself.
 *
 * <p>Every other read keeps Trino's default (source-distributed splits, then exchanges): a scan of many splits would
 * lose its parallelism on one node, and everything above it would run on that node too.
 */
final class LakestreamPointReads {
    private LakestreamPointReads() {}

    /**
     * The table properties of the handle's scan: single-node partitioning for a point read, otherwise none. Decided
     * from the handle alone (it carries the primary key): the optimizer asks for every scan many times per query.
     */
    static ConnectorTableProperties tableProperties(LakestreamTableHandle handle) {
        if (!isPointRead(handle)) {
            return new ConnectorTableProperties();
        }
        return new ConnectorTableProperties(
                TupleDomain.all(),
                // no partitioning columns: every row is on the one node, whatever its values
                Optional.of(new ConnectorTablePartitioning(LakestreamPartitioningHandle.SINGLE_NODE, List.of())),
                Optional.empty(),
                List.of());
    }

    /** A union read of a primary-key table whose enforced filter gives each key column a single value. */
    static boolean isPointRead(LakestreamTableHandle handle) {
        if (handle.mode() != ReadMode.UNION || handle.primaryKeyFieldIds().isEmpty()) {
            return false;
        }
        Optional<Map<LakestreamColumnHandle, Domain>> domains =
                handle.constraint().getDomains();
        if (domains.isEmpty()) {
            // the filter is false: no split at all
            return false;
        }
        Set<Integer> fixedFields = new HashSet<>();
        domains.get().forEach((column, domain) -> {
            if (column.kind() == LakestreamColumnHandle.Kind.USER
                    && !column.isDereference()
                    && domain.isSingleValue()) {
                fixedFields.add(column.fieldId().getAsInt());
            }
        });
        return fixedFields.containsAll(handle.primaryKeyFieldIds());
    }

    /** What a handle of {@code definition} carries for {@link #isPointRead}: the primary key's field ids. */
    static List<Integer> primaryKeyFieldIds(TableDefinition definition) {
        return definition.primaryKeyFields().stream()
                .map(Types.NestedField::fieldId)
                .toList();
    }
}
