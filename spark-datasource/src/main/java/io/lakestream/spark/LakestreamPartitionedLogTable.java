package io.lakestream.spark;

import java.util.OptionalLong;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.expressions.filter.Predicate;

/**
 * A Lakestream table whose log is kept per (partition, bucket): besides everything a {@link LakestreamTable} does, a
 * {@code DELETE} whose condition selects whole partitions is Spark's metadata-only delete ({@code SupportsDeleteV2},
 * {@link LakestreamPartitionDeletes}: one lake commit, no log commit); Spark keeps its row-level operation for every
 * other condition. A {@code DELETE} without a condition is always the partition delete of every partition.
 */
final class LakestreamPartitionedLogTable extends LakestreamTable implements SupportsDeleteV2 {
    LakestreamPartitionedLogTable(
            String catalogName, LakestreamTableRef ref, io.lakestream.table.LakestreamTable table) {
        super(catalogName, ref, table, View.DATA, OptionalLong.empty(), OptionalLong.empty());
    }

    @Override
    public boolean canDeleteWhere(Predicate[] predicates) {
        return isWritable() && LakestreamPartitionDeletes.canDelete(table(), predicates);
    }

    @Override
    public void deleteWhere(Predicate[] predicates) {
        requireWritable();
        LakestreamPartitionDeletes.delete(table(), predicates);
    }
}
