package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringRound;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * {@code CALL <catalog>.system.tier(table => 'db.t' [, max_records_per_bucket => n])}: one round of the Spark
 * tiering job ({@link SparkTiering}) for one table. Returns one row: the outcome ({@code TIERED},
 * {@code UP_TO_DATE}, or {@code CONFLICT} after losing the commit race to another tiering run three times),
 * the changes committed, the lake snapshot, the lake's offsets afterwards (JSON, bucket → next offset not in
 * the lake), the log version planned from, and the data and delete files committed.
 */
final class LakestreamTierProcedure extends LakestreamProcedure {

    static final Signature SIGNATURE = new Signature(
            "tier",
            "Tiers a Lakestream table's log into its lake as a Spark job (one round, exactly once)",
            List.of(TABLE, optional("max_records_per_bucket", DataTypes.LongType)));

    static final StructType OUTPUT = new StructType(new StructField[] {
        new StructField("outcome", DataTypes.StringType, false, Metadata.empty()),
        new StructField("changes", DataTypes.LongType, false, Metadata.empty()),
        new StructField("snapshot_id", DataTypes.LongType, true, Metadata.empty()),
        new StructField("lake_offsets", DataTypes.StringType, false, Metadata.empty()),
        new StructField("log_version", DataTypes.LongType, false, Metadata.empty()),
        new StructField("data_files", DataTypes.IntegerType, false, Metadata.empty()),
        new StructField("delete_files", DataTypes.IntegerType, false, Metadata.empty())
    });

    LakestreamTierProcedure(Context context) {
        super(SIGNATURE, context);
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
        LakestreamTable table = table(args, 0);
        SparkSession spark = SparkSession.active();
        SparkTiering tiering =
                new SparkTiering(spark, catalogName(), catalogOptions(), SparkTieringHooks.fromDriverConf(spark));
        long maxRecords = args.isNullAt(1) ? tiering.config().maxRecordsPerBucket() : args.getLong(1);
        if (maxRecords <= 0) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "max_records_per_bucket must be positive, not %s (it caps the records of one bucket a round tiers)"
                            .formatted(maxRecords));
        }
        TieringRound.Result result = tiering.tier(table, maxRecords);
        return result(OUTPUT, row(result));
    }

    private static InternalRow row(TieringRound.Result result) {
        String offsets = LakePosition.summary(
                        result.lakeOffsets(), result.logSnapshot().version())
                .get(LakestreamProperties.SUMMARY_LOG_OFFSETS);
        return new GenericInternalRow(new Object[] {
            UTF8String.fromString(result.outcome().name()),
            result.changes(),
            result.snapshotId().isPresent() ? result.snapshotId().getAsLong() : null,
            UTF8String.fromString(offsets),
            result.logSnapshot().version(),
            result.files().stream().mapToInt(files -> files.dataFiles().size()).sum(),
            result.files().stream()
                    .mapToInt(files -> files.deleteFiles().size())
                    .sum()
        });
    }
}
