package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.compaction.TableCompaction;
import java.util.Iterator;
import java.util.List;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.util.GenericArrayData;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.compact(table => 'db.t' [, where => '<filter>'] [, target_file_size_bytes => n])}:
 * rewrites the lake data files of every bucket the filter selects with their delete files applied, in one
 * lake commit, on the driver, with the embedded compaction's code ({@link TableCompaction}). The filter is
 * Spark SQL over the table's columns and must be one the Lakestream scan evaluates exactly ({@link
 * SparkWhereFilter}). Returns one row: the new snapshot (NULL when nothing needed compacting), the buckets
 * rewritten, and the data files rewritten, delete files removed and data files added.
 */
final class LakestreamCompactProcedure extends LakestreamProcedure {

    static final Signature SIGNATURE = new Signature(
            "compact",
            "Rewrites a Lakestream table's lake data files with their delete files applied, in one commit",
            List.of(
                    TABLE,
                    optional("where", DataTypes.StringType),
                    optional("target_file_size_bytes", DataTypes.LongType)));

    private static final StructType OUTPUT = new StructType(new StructField[] {
        new StructField("snapshot_id", DataTypes.LongType, true, Metadata.empty()),
        new StructField("buckets", DataTypes.createArrayType(DataTypes.IntegerType, false), false, Metadata.empty()),
        new StructField("rewritten_data_files_count", DataTypes.IntegerType, false, Metadata.empty()),
        new StructField("removed_delete_files_count", DataTypes.IntegerType, false, Metadata.empty()),
        new StructField("added_data_files_count", DataTypes.IntegerType, false, Metadata.empty())
    });

    LakestreamCompactProcedure(Context context) {
        super(SIGNATURE, context);
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
        LakestreamTable table = table(args, 0);
        TieringConfig config = TieringConfig.fromProperties(SparkTiering.tieringOptions(catalogOptions()));
        long targetFileSize = args.isNullAt(2) ? config.targetFileSizeBytes() : args.getLong(2);
        if (targetFileSize < 1024) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "target_file_size_bytes must be at least 1024, not %s".formatted(targetFileSize));
        }
        Expression filter = args.isNullAt(1)
                ? Expressions.alwaysTrue()
                : SparkWhereFilter.toLakeFilter(
                        SparkSession.active(),
                        catalogName(),
                        table.identifier(),
                        args.getUTF8String(1).toString());
        TableCompaction.Result result =
                new TableCompaction(config, TieringHooks.NONE).compact(table, filter, targetFileSize);
        return result(OUTPUT, new GenericInternalRow(new Object[] {
            result.snapshotId().isPresent() ? result.snapshotId().getAsLong() : null,
            new GenericArrayData(result.buckets().toArray()),
            result.dataFilesRemoved(),
            result.deleteFilesRemoved(),
            result.dataFilesAdded()
        }));
    }
}
