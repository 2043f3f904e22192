package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableMaintenance;
import io.lakestream.tiering.TieringConfig;
import java.time.Clock;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The tiering service's housekeeping as Spark procedures, on the driver, with the service's own code
 * ({@link TableMaintenance}) and the catalog's {@code tiering.*} options:
 *
 * <ul>
 *   <li>{@code CALL <catalog>.system.expire_log(table => 'db.t' [, retention => '24h'])}: removes log segments the
 *       lake holds completely and that were committed longer ago than the retention ({@code tiering.log-retention});
 *   <li>{@code CALL <catalog>.system.remove_orphans(table => 'db.t')}: one orphan sweep of the log and the lake,
 *       older than {@code tiering.orphan-age} and {@code tiering.lake-orphan-age}, honouring live writer leases.
 * </ul>
 *
 * Each returns one row: {@code removed}, the segments or files removed.
 */
final class LakestreamMaintenanceProcedure extends LakestreamProcedure {
    enum Kind {
        EXPIRE_LOG(new Signature(
                "expire_log",
                "Removes log segments of a Lakestream table that its lake holds and that are older than the retention",
                List.of(TABLE, optional("retention", DataTypes.StringType)))),
        REMOVE_ORPHANS(new Signature(
                "remove_orphans",
                "Removes orphaned log and lake files of a Lakestream table, honouring live writers",
                List.of(TABLE)));

        private final Signature signature;

        Kind(Signature signature) {
            this.signature = signature;
        }

        Signature signature() {
            return signature;
        }
    }

    private static final StructType OUTPUT = new StructType().add("removed", DataTypes.IntegerType, false);

    private final Kind kind;

    LakestreamMaintenanceProcedure(Kind kind, Context context) {
        super(kind.signature(), context);
        this.kind = kind;
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
        LakestreamTable table = table(args, 0);
        Map<String, String> tiering = SparkTiering.tieringOptions(catalogOptions());
        if (kind == Kind.EXPIRE_LOG && !args.isNullAt(1)) {
            tiering.put(
                    TieringConfig.PREFIX + "log-retention",
                    args.getUTF8String(1).toString());
        }
        TieringConfig config = TieringConfig.fromProperties(tiering);
        Clock clock = Clock.systemUTC();
        int removed = kind == Kind.EXPIRE_LOG
                ? TableMaintenance.expireLog(table, config.retention(), clock.millis())
                : TableMaintenance.removeOrphans(table, config, clock);
        return result(OUTPUT, new GenericInternalRow(new Object[] {removed}));
    }
}
