package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;
import static io.lakestream.common.LakestreamError.INVALID_NAME;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamProperties;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringRound;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
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
final class LakestreamTierProcedure implements UnboundProcedure, BoundProcedure {
    static final String NAME = "tier";

    private static final ProcedureParameter[] PARAMETERS = {
        ProcedureParameter.in("table", DataTypes.StringType).build(),
        ProcedureParameter.in("max_records_per_bucket", DataTypes.LongType)
                .defaultValue("NULL")
                .build()
    };

    static final StructType OUTPUT = new StructType(new StructField[] {
        new StructField("outcome", DataTypes.StringType, false, Metadata.empty()),
        new StructField("changes", DataTypes.LongType, false, Metadata.empty()),
        new StructField("snapshot_id", DataTypes.LongType, true, Metadata.empty()),
        new StructField("lake_offsets", DataTypes.StringType, false, Metadata.empty()),
        new StructField("log_version", DataTypes.LongType, false, Metadata.empty()),
        new StructField("data_files", DataTypes.IntegerType, false, Metadata.empty()),
        new StructField("delete_files", DataTypes.IntegerType, false, Metadata.empty())
    });

    private final String catalogName;
    private final Map<String, String> catalogOptions;
    private final io.lakestream.catalog.LakestreamCatalog catalog;

    LakestreamTierProcedure(
            String catalogName, Map<String, String> catalogOptions, io.lakestream.catalog.LakestreamCatalog catalog) {
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "Tiers a Lakestream table's log into its lake as a Spark job (one round, exactly once)";
    }

    @Override
    public BoundProcedure bind(StructType inputType) {
        return this;
    }

    @Override
    public ProcedureParameter[] parameters() {
        return PARAMETERS.clone();
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
                    "system.tier needs the table to tier: CALL %s.system.tier(table => 'db.t')".formatted(catalogName));
        }
        TableIdentifier identifier =
                identifier(catalogName, args.getUTF8String(0).toString());
        SparkTiering tiering = new SparkTiering(SparkSession.active(), catalogName, catalogOptions);
        long maxRecords = args.isNullAt(1) ? tiering.config().maxRecordsPerBucket() : args.getLong(1);
        if (maxRecords <= 0) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "max_records_per_bucket must be positive, not %s (it caps the records of one bucket a round tiers)"
                            .formatted(maxRecords));
        }
        LakestreamTable table = catalog.loadTable(identifier);
        TieringRound.Result result = tiering.tier(table, maxRecords);
        return Collections.<Scan>singletonList(new Rows(new InternalRow[] {row(result)}))
                .iterator();
    }

    /** A procedure's {@code table} argument, {@code namespace.table}, as a table of the catalog. */
    static TableIdentifier identifier(String catalogName, String name) {
        List<String> parts = Arrays.asList(name.trim().split("\\."));
        if (parts.size() < 2 || parts.stream().anyMatch(String::isBlank)) {
            throw new LakestreamException(
                    INVALID_NAME,
                    "system.tier takes a table as 'namespace.table' in catalog %s, not '%s'"
                            .formatted(catalogName, name));
        }
        return TableIdentifier.of(
                Namespace.of(parts.subList(0, parts.size() - 1).toArray(String[]::new)), parts.getLast());
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

    /** The procedure's result rows. */
    private record Rows(InternalRow[] rows) implements LocalScan {
        @Override
        public StructType readSchema() {
            return OUTPUT;
        }
    }
}
