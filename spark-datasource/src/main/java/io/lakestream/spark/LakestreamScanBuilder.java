package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Builds a scan: resolves the read settings, takes the predicates it can evaluate exactly (the rest
 * go back to Spark), the columns Spark needs, and, where a row count is known without merging
 * (append-only tables, the changelog), a limit hint.
 */
final class LakestreamScanBuilder
        implements SupportsPushDownV2Filters, SupportsPushDownRequiredColumns, SupportsPushDownLimit {
    private final LakestreamTable table;
    private final LakestreamReadConf conf;
    private final ReadMode mode;
    private final Schema schema;
    private final List<Predicate> pushed = new ArrayList<>();
    private Expression filter = Expressions.alwaysTrue();
    /** Predicates on fields of struct columns that Spark still applies, as an expression that prunes the lake. */
    private Expression lakePruning = Expressions.alwaysTrue();
    /** The columns to read, in table order; a struct possibly narrowed to the fields Spark needs. */
    private List<Types.NestedField> columns;

    private OptionalInt limit = OptionalInt.empty();
    private final Consumer<LakestreamScan> onBuild;
    private final CaseInsensitiveStringMap options;

    LakestreamScanBuilder(LakestreamTable table, CaseInsensitiveStringMap options) {
        this(table, options, scan -> {});
    }

    /** @param onBuild told of every scan built (a row-level operation learns what its rows were read from) */
    LakestreamScanBuilder(LakestreamTable table, CaseInsensitiveStringMap options, Consumer<LakestreamScan> onBuild) {
        this.table = table;
        this.onBuild = onBuild;
        this.options = options;
        this.schema = table.table().definition().schema();
        this.conf = LakestreamReadConf.resolve(
                options,
                LakestreamScanBuilder::sessionConf,
                table.table().lake().properties());
        this.mode = switch (table.view()) {
            case LAKE -> ReadMode.LAKE;
            case CHANGES -> ReadMode.CHANGES;
            case OFFSETS -> throw new IllegalStateException("the offsets table has its own scan");
            case DATA -> {
                if (conf.mode() == ReadMode.CHANGES) {
                    throw new LakestreamException(
                            INVALID_READ_OPTIONS,
                            ("The changelog has its own columns: read the table `%1$s$changes` (e.g. SELECT * FROM %1$s$changes), "
                                            + "or spark.read.format(\"lakestream\").option(\"read-mode\", \"changes\")")
                                    .formatted(table.name()));
                }
                yield conf.mode();
            }
        };
        this.columns = schema.columns();
    }

    static Optional<String> sessionConf(String key) {
        return SparkSession.getActiveSession().isDefined()
                ? Optional.ofNullable(SparkSession.active().conf().get(key, null))
                : Optional.empty();
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates) {
        List<Predicate> remaining = new ArrayList<>();
        for (Predicate predicate : predicates) {
            Optional<Expression> translated = LakestreamFilters.translate(predicate, schema);
            if (translated.isPresent()) {
                pushed.add(predicate);
                filter = Expressions.and(filter, translated.get());
                continue;
            }
            // r.a = 5: Spark applies it (the union read's row filter works on whole columns), the lake is pruned by it
            LakestreamFilters.translateForPruning(predicate, schema)
                    .ifPresent(pruning -> lakePruning = Expressions.and(lakePruning, pruning));
            remaining.add(predicate);
        }
        return remaining.toArray(Predicate[]::new);
    }

    @Override
    public Predicate[] pushedPredicates() {
        return pushed.toArray(Predicate[]::new);
    }

    @Override
    public void pruneColumns(StructType required) {
        Map<String, DataType> requested = List.of(required.fields()).stream()
                .collect(Collectors.toMap(StructField::name, StructField::dataType, (first, second) -> first));
        // table order, so the read schema does not depend on the order Spark lists them in; a struct narrowed
        // to the fields Spark's nested schema pruning asks for
        this.columns = schema.columns().stream()
                .filter(column -> requested.containsKey(column.name()))
                .map(column -> SparkNestedPruning.narrow(column, requested.get(column.name())))
                .toList();
    }

    @Override
    public boolean pushLimit(int rows) {
        // each split stops after the limit (a primary-key split counts the rows it returns after the merge), and
        // the scan plans only the splits that surely hold that many rows (SplitsForLimit)
        limit = OptionalInt.of(rows);
        return true;
    }

    @Override
    public boolean isPartiallyPushed() {
        // the limit is a hint: Spark still applies it
        return true;
    }

    @Override
    public Scan build() {
        ReadOptions options = ReadOptions.of(mode).withFilter(filter);
        if (table.logVersion().isPresent()) {
            options = options.atLogVersion(table.logVersion().getAsLong());
        }
        if (table.asOfTimestampMillis().isPresent()) {
            options = options.asOfTimestamp(table.asOfTimestampMillis().getAsLong());
        }
        if (conf.changesAfterVersion().isPresent()) {
            options = options.changesAfter(conf.changesAfterVersion().getAsLong());
        }
        LakestreamScan scan = new LakestreamScan(
                table, options, lakePruning, columns, conf.merge(), limit, List.copyOf(pushed), this.options);
        onBuild.accept(scan);
        return scan;
    }
}
