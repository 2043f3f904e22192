package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.SplitsForLimit;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A planned read of a Lakestream table: one Spark partition per union split. The plan (pinned lake
 * snapshot and log version) is made once, on first use, so statistics and partitions agree.
 */
final class LakestreamScan implements SupportsReportStatistics, Batch {
    private final LakestreamTable table;
    private final ReadOptions options;
    /** Prunes lake files and row groups, never rows: predicates Spark applies itself ({@link LakestreamFilters}). */
    private final org.apache.iceberg.expressions.Expression lakePruning;

    private final List<String> columns;
    /** The user columns the scan returns, each a struct possibly narrowed by Spark's nested schema pruning. */
    private final List<Types.NestedField> readFields;

    private final MergeConfig merge;
    private final OptionalInt limit;
    private final List<Predicate> pushed;
    private final StructType readSchema;
    private final CaseInsensitiveStringMap readOptions;
    private ReadPlan plan;

    LakestreamScan(
            LakestreamTable table,
            ReadOptions options,
            org.apache.iceberg.expressions.Expression lakePruning,
            List<Types.NestedField> columns,
            MergeConfig merge,
            OptionalInt limit,
            List<Predicate> pushed,
            CaseInsensitiveStringMap readOptions) {
        this.table = requireNonNull(table, "table is null");
        this.options = requireNonNull(options, "options is null");
        this.lakePruning = requireNonNull(lakePruning, "lakePruning is null");
        this.columns = columns.stream().map(Types.NestedField::name).toList();
        this.readFields = List.copyOf(columns);
        this.merge = requireNonNull(merge, "merge is null");
        this.limit = requireNonNull(limit, "limit is null");
        this.pushed = List.copyOf(pushed);
        this.readOptions = requireNonNull(readOptions, "readOptions is null");
        List<StructField> fields = new ArrayList<>();
        if (options.mode() == ReadMode.CHANGES) {
            fields.addAll(LakestreamTypes.changeFields(table.table().definition()));
        }
        // a struct narrowed by Spark's nested schema pruning is read (and reported) with only its fields
        for (Types.NestedField column : columns) {
            fields.add(LakestreamTypes.sparkField(column));
        }
        this.readSchema = new StructType(fields.toArray(StructField[]::new));
    }

    private synchronized ReadPlan plan() {
        if (plan == null) {
            // the planner only prunes with its filter (buckets, lake files): the pruning predicates may join it
            plan = UnionReadPlanner.plan(
                    table.table(), options.withFilter(Expressions.and(options.filter(), lakePruning)));
        }
        return plan;
    }

    /** The plan the scan read (its lake snapshot and log version), or empty if it was never planned. */
    synchronized Optional<ReadPlan> plannedRead() {
        return Optional.ofNullable(plan);
    }

    /** The user columns the scan returns, in table order. */
    List<String> columns() {
        return columns;
    }

    /** The user columns the scan returns, in table order, each a struct narrowed to the fields it reads. */
    List<Types.NestedField> readFields() {
        return readFields;
    }

    /** The filter the scan applies exactly: the predicates Spark pushed that could be translated. */
    org.apache.iceberg.expressions.Expression filter() {
        return options.filter();
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    /** {@code spark.readStream}: see {@link LakestreamStreams}. */
    @Override
    public MicroBatchStream toMicroBatchStream(String checkpointLocation) {
        return LakestreamStreams.open(table, options, readFields, merge, readOptions, checkpointLocation);
    }

    @Override
    public InputPartition[] planInputPartitions() {
        return splitsToRead().stream().map(LakestreamInputPartition::of).toArray(InputPartition[]::new);
    }

    /** The plan's splits; with a limit and no filter, only as many as surely hold that many rows. */
    List<UnionSplit> splitsToRead() {
        List<UnionSplit> splits = plan().splits();
        if (limit.isEmpty() || !options.filter().equals(Expressions.alwaysTrue())) {
            return splits;
        }
        return SplitsForLimit.enoughFor(splits, limit.getAsInt());
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new LakestreamReaderFactory(
                table.ref(),
                columns,
                readSchema,
                // bound, so literals are written with their column types (a date as a date, not as its day number)
                boundJson(options.filter()),
                merge.maxIndexRows(),
                limit.isPresent() ? limit.getAsInt() : -1,
                boundJson(lakePruning));
    }

    private String boundJson(org.apache.iceberg.expressions.Expression expression) {
        return ExpressionParser.toJson(
                Binder.bind(table.table().definition().schema().asStruct(), expression, false));
    }

    @Override
    public Statistics estimateStatistics() {
        long rows = 0;
        long lakeBytes = 0;
        long logRows = 0;
        for (UnionSplit split : splitsToRead()) {
            rows += split.estimatedRows();
            logRows += split.logRange().map(LogRange::rowCount).orElse(0L);
            for (LakeFile file : split.lakeFiles()) {
                lakeBytes += file.length();
            }
        }
        // log rows are Arrow, roughly the in-memory row size; an upper bound is safer than a guess low
        long bytes = lakeBytes + logRows * Math.max(1, readSchema.defaultSize());
        long estimatedRows = rows;
        long estimatedBytes = bytes;
        return new Statistics() {
            @Override
            public OptionalLong sizeInBytes() {
                return OptionalLong.of(estimatedBytes);
            }

            @Override
            public OptionalLong numRows() {
                return OptionalLong.of(estimatedRows);
            }
        };
    }

    @Override
    public CustomMetric[] supportedCustomMetrics() {
        return LakestreamMetrics.supported();
    }

    @Override
    public String description() {
        return "%s [mode=%s, filters=%s, columns=%s%s]"
                .formatted(
                        table.name(),
                        options.mode().name().toLowerCase(Locale.ROOT),
                        pushed.stream().map(Predicate::toString).collect(Collectors.joining(", ", "[", "]")),
                        columns,
                        limit.isPresent() ? ", limit=" + limit.getAsInt() : "");
    }
}
