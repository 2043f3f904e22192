package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.PartitionDelete;
import java.util.Optional;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.filter.Predicate;

/**
 * Spark's side of a DELETE of whole partitions (docs/writes.md "Deleting whole partitions"): the predicates Spark
 * hands to {@code SupportsDeleteV2} are translated to one Iceberg expression (every one of them exactly, or the
 * delete is not offered), and the tiering module's {@link PartitionDelete} decides and commits; every other DELETE is
 * Spark's row-level operation ({@link LakestreamRowLevelOperation}).
 */
final class LakestreamPartitionDeletes {
    private LakestreamPartitionDeletes() {}

    static boolean canDelete(LakestreamTable table, Predicate[] predicates) {
        if (!table.log().isPartitionedLog()) {
            return false;
        }
        return filter(table, predicates)
                .map(filter -> PartitionDelete.selectsWholePartitions(table, filter))
                .orElse(false);
    }

    /** Deletes the partitions with the rows committed up to the log's newest version (the statement reads no row). */
    static void delete(LakestreamTable table, Predicate[] predicates) {
        Expression filter = filter(table, predicates)
                .orElseThrow(() -> new LakestreamException(
                        UNSUPPORTED_OPERATION,
                        "The DELETE on %s has a condition that cannot be a delete of whole partitions; delete row by row"
                                .formatted(table.identifier())));
        new PartitionDelete().delete(table, filter, table.log().latestSnapshot().version());
    }

    /** All predicates as one Iceberg expression, or empty if one has no exact translation. */
    private static Optional<Expression> filter(LakestreamTable table, Predicate[] predicates) {
        Expression filter = Expressions.alwaysTrue();
        for (Predicate predicate : predicates) {
            Optional<Expression> translated =
                    LakestreamFilters.translate(predicate, table.definition().schema());
            if (translated.isEmpty()) {
                return Optional.empty();
            }
            filter = Expressions.and(filter, translated.get());
        }
        return Optional.of(filter);
    }
}
