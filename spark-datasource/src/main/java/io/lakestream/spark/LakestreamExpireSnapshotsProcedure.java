package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableSnapshotExpiry;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.expire_snapshots(table => 'db.t' [, older_than => TIMESTAMP '...'] [, retain_last
 * => n])}: expires lake snapshots older than {@code older_than} (default: 5 days ago, Iceberg's default) beyond
 * the last {@code retain_last} (default 1), on the driver ({@link TableSnapshotExpiry}: never the snapshot
 * carrying the tiered offsets, never the one a union read started before the cut-off may have pinned). Returns
 * one row: snapshots expired and files deleted.
 */
final class LakestreamExpireSnapshotsProcedure extends LakestreamProcedure {
    static final Duration DEFAULT_AGE = Duration.ofDays(5);

    static final Signature SIGNATURE = new Signature(
            "expire_snapshots",
            "Expires old lake snapshots of a Lakestream table, keeping the one with the tiered offsets",
            List.of(
                    TABLE,
                    optional("older_than", DataTypes.TimestampType),
                    optional("retain_last", DataTypes.IntegerType)));

    private static final StructType OUTPUT = new StructType(new StructField[] {
        new StructField("expired_snapshots_count", DataTypes.IntegerType, false, Metadata.empty()),
        new StructField("deleted_files_count", DataTypes.IntegerType, false, Metadata.empty())
    });

    LakestreamExpireSnapshotsProcedure(Context context) {
        super(SIGNATURE, context);
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
        LakestreamTable table = table(args, 0);
        Instant olderThan = args.isNullAt(1)
                ? Instant.now().minus(DEFAULT_AGE)
                : Instant.EPOCH.plus(Duration.ofNanos(Math.multiplyExact(args.getLong(1), 1000L)));
        int retainLast = args.isNullAt(2) ? 1 : args.getInt(2);
        TableSnapshotExpiry.Result result = TableSnapshotExpiry.expire(table, olderThan, retainLast);
        return result(OUTPUT, new GenericInternalRow(new Object[] {result.expiredSnapshots(), result.deletedFiles()}));
    }
}
