package io.lakestream.plan;

import io.lakestream.log.PartitionLog;
import io.lakestream.table.PartitionPathValues;
import io.lakestream.table.Partitioning;
import io.lakestream.table.TableDefinition;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Projections;

/**
 * Which partitions of a partitioned table's log a filter can match, before any segment is opened: the filter is
 * projected through the user's partition fields ({@link Projections#inclusive}, as Iceberg prunes lake files) and
 * evaluated on each partition's values, read back from its partition path (docs/format.md "The log of a partitioned
 * table"). Inclusive: a partition is kept unless no row of it can match.
 */
public final class LogPartitionPruner {
    private final PartitionSpec spec;
    private final Evaluator evaluator;
    private final boolean everything;

    public LogPartitionPruner(TableDefinition definition, Expression filter) {
        this.spec = Partitioning.userSpec(definition);
        Expression projected = Projections.inclusive(spec, false).project(filter);
        this.everything = projected.op() == Expression.Operation.TRUE || filter.equals(Expressions.alwaysTrue());
        this.evaluator = new Evaluator(spec.partitionType(), projected, false);
    }

    public boolean mayMatch(PartitionLog partition) {
        if (everything) {
            return true;
        }
        try {
            return evaluator.eval(values(partition.path()));
        } catch (RuntimeException e) {
            // a path this code cannot read back is kept: pruning may only ever skip what cannot match
            return true;
        }
    }

    /**
     * The partition's values (Iceberg's internal representation of each field's result type) from its path, as a
     * struct of {@link Partitioning#userSpec}'s partition type; also used to decide whether a delete selects whole
     * partitions (tiering's {@code PartitionDelete}).
     */
    public StructLike values(String path) {
        return PartitionPathValues.values(spec, path);
    }
}
