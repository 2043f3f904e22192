package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.expiry.PartitionExpiry;
import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code CALL <catalog>.system.expire_partitions(table => 'db.t' [, retention => '30d'])}: the tiering service's
 * partition expiry once, on the driver ({@link PartitionExpiry#expireNow}: tiered partitions whose time range ended
 * longer ago than the retention, or the table's {@code lakestream.partition.expiration} without it, leave the log,
 * then the lake), as Trino's {@code EXECUTE expire_partitions}. Returns one row of counts.
 */
final class LakestreamExpirePartitionsProcedure extends LakestreamProcedure {
    static final Signature SIGNATURE = new Signature(
            "expire_partitions",
            "Expires the tiered partitions of a Lakestream table older than the retention (default: the table property)",
            List.of(TABLE, optional("retention", DataTypes.StringType)));

    private static final StructType OUTPUT = new StructType(new StructField[] {
        new StructField("expired_from_log_count", DataTypes.IntegerType, false, Metadata.empty()),
        new StructField("deleted_from_lake_count", DataTypes.IntegerType, false, Metadata.empty()),
        new StructField("waiting_count", DataTypes.IntegerType, false, Metadata.empty())
    });

    LakestreamExpirePartitionsProcedure(Context context) {
        super(SIGNATURE, context);
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
        LakestreamTable table = table(args, 0);
        Optional<Duration> retention = args.isNullAt(1)
                ? Optional.empty()
                : Optional.of(PartitionExpiration.parseRetention(
                        table.identifier().toString(),
                        "retention",
                        args.getUTF8String(1).toString()));
        PartitionExpiry.Result result =
                new PartitionExpiry(TieringHooks.NONE, Clock.systemUTC()).expireNow(table, retention);
        return result(OUTPUT, new GenericInternalRow(new Object[] {
            result.expiredFromLog().size(),
            result.lake().deleted().size(),
            result.lake().waiting().size()
        }));
    }
}
