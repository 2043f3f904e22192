package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_NAME;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableMaintenance;
import io.lakestream.tiering.TieringConfig;
import java.time.Clock;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
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
final class LakestreamMaintenanceProcedure implements UnboundProcedure, BoundProcedure {
    enum Kind {
        EXPIRE_LOG("expire_log"),
        REMOVE_ORPHANS("remove_orphans");

        private final String procedureName;

        Kind(String procedureName) {
            this.procedureName = procedureName;
        }

        String procedureName() {
            return procedureName;
        }
    }

    private static final StructType OUTPUT = new StructType().add("removed", DataTypes.IntegerType, false);

    private final Kind kind;
    private final String catalogName;
    private final Map<String, String> catalogOptions;
    private final io.lakestream.catalog.LakestreamCatalog catalog;

    LakestreamMaintenanceProcedure(
            Kind kind,
            String catalogName,
            Map<String, String> catalogOptions,
            io.lakestream.catalog.LakestreamCatalog catalog) {
        this.kind = requireNonNull(kind, "kind is null");
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    @Override
    public String name() {
        return kind.procedureName();
    }

    @Override
    public String description() {
        return kind == Kind.EXPIRE_LOG
                ? "Removes log segments of a Lakestream table that its lake holds and that are older than the retention"
                : "Removes orphaned log and lake files of a Lakestream table, honouring live writers";
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
        return this;
    }

    @Override
    public ProcedureParameter[] parameters() {
        ProcedureParameter table =
                ProcedureParameter.in("table", DataTypes.StringType).build();
        if (kind == Kind.EXPIRE_LOG) {
            return new ProcedureParameter[] {
                table,
                ProcedureParameter.in("retention", DataTypes.StringType)
                        .defaultValue("NULL")
                        .build()
            };
        }
        return new ProcedureParameter[] {table};
    }

    @Override
    public boolean isDeterministic() {
        return false;
    }

    @Override
    public Iterator<Scan> call(InternalRow args) {
        if (args.isNullAt(0)) {
            throw new LakestreamException(
                    INVALID_NAME,
                    "system.%s needs the table: CALL %s.system.%s(table => 'db.t')"
                            .formatted(kind.procedureName(), catalogName, kind.procedureName()));
        }
        LakestreamTable table = catalog.loadTable(LakestreamTierProcedure.identifier(
                catalogName, args.getUTF8String(0).toString()));
        Map<String, String> tiering = SparkTiering.tieringOptions(catalogOptions);
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
        return Collections.<Scan>singletonList(
                        new Rows(new InternalRow[] {new GenericInternalRow(new Object[] {removed})}))
                .iterator();
    }

    private record Rows(InternalRow[] rows) implements LocalScan {
        @Override
        public StructType readSchema() {
            return OUTPUT;
        }
    }
}
