package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.TableDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.EventTimeWatermark;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.datasources.v2.StreamingDataSourceV2ScanRelation;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Function1;
import scala.PartialFunction;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Projection and filter pushdown into a Lakestream stream. Spark builds a streaming scan without pushdown (its
 * micro-batch execution calls {@code newScanBuilder(options).build()} and never offers the builder columns or
 * filters), so this optimizer rule does it on each micro-batch's plan: where a {@code Project} and/or {@code
 * Filter} sits on a Lakestream stream's scan (a projection also through the filters and watermarks below it), the columns the plan needs and the filters the stream evaluates
 * exactly go through the table's own {@link LakestreamScanBuilder} (the batch scan's rules), and the scan is
 * replaced by one reading only those ({@link PushedDownStream}); the filters it took leave the plan.
 *
 * <p>Nested schema pruning (with Spark's {@code nestedSchemaPruning} on): below a {@code Project}, a struct column is
 * read with only the fields the plan uses (Spark's own {@code SchemaPruning}, as its batch pushdown does), so the scan's
 * output attributes get the narrowed types, and the expressions of every node from the scan up to the {@code Project}
 * are rewritten to them (Spark's {@code ProjectionOverSchema}); the {@code Project}'s output keeps its types.
 *
 * <p>Which filters a stream may take depends on its output (docs/decisions.md, "pushdown into a stream"): rows of
 * an append-only table and the {@code log} output are independent rows, so any filter the scan evaluates exactly is
 * exact on them, the {@code full} state included (a union read with the filter is the filtered state). The {@code
 * changelog} and {@code upsert} outputs are derived per key from all of a key's changes in a batch (the last one,
 * the replaced row), so only filters on key columns, which every change of a key shares, may be applied before
 * that; a filter on another column stays in Spark, after the derivation.
 *
 * <p>Plan shapes: the rule runs after Spark's own operator optimizations (extra optimizations are the optimizer's
 * last batch). Those already move deterministic filters below projections (substituting aliases), below watermarks
 * (except filters on the event-time column, which would change the watermark) and into one another, and put a
 * pruning projection right above the scan under watermarks, deduplications and aggregations. So what the plan needs
 * from the scan up to its first node that changes which rows exist (a deduplication, an aggregation, a
 * nondeterministic projection or filter) arrives as a {@code Project} and/or {@code Filter} on the scan, and a filter
 * above such a node never reaches it. Like Spark, no conjunct after a nondeterministic one is pushed.
 *
 * <p>The few Spark internals the rule must construct or call are looked up once ({@link StreamPlanInternals}); on a
 * Spark without them, and on any linkage error while planning, streams run without pushdown and a warning says so.
 */
final class LakestreamStreamPushdown extends Rule<LogicalPlan> {
    private static final Logger LOG = LoggerFactory.getLogger(LakestreamStreamPushdown.class);
    /**
     * The rule on this Spark; empty (a warning logged once) when this Spark lacks an internal the rule needs.
     * Replaced only by tests ({@link #lookUpWith}), to run streams as on a Spark without those internals.
     */
    private static final AtomicReference<Optional<LakestreamStreamPushdown>> RULE =
            new AtomicReference<>(create(StreamPlanInternals::find));

    private final StreamPlanInternals internals;
    private final AtomicBoolean disabled = new AtomicBoolean();

    private LakestreamStreamPushdown(StreamPlanInternals internals) {
        this.internals = requireNonNull(internals, "internals is null");
    }

    /** Finds what the rule needs from Spark. */
    @FunctionalInterface
    interface InternalsLookup {
        StreamPlanInternals find() throws StreamPlanInternals.Unavailable;
    }

    /** The rule with the internals {@code lookup} finds; empty, with the lookup's reason logged, without them. */
    static Optional<LakestreamStreamPushdown> create(InternalsLookup lookup) {
        try {
            return Optional.of(new LakestreamStreamPushdown(lookup.find()));
        } catch (StreamPlanInternals.Unavailable e) {
            LOG.warn(e.getMessage(), e);
            return Optional.empty();
        } catch (LinkageError e) {
            // a class the lookup names (e.g. the streaming scan node) is not in this Spark at all
            LOG.warn(offMessage(e), e);
            return Optional.empty();
        }
    }

    /**
     * Adds the rule to the optimizer of {@code session} (the session a streaming query plans its batches in), once;
     * nothing where this Spark lacks what the rule needs. Returns whether the session has the rule.
     */
    static boolean install(SparkSession session) {
        return install(RULE.get(), session);
    }

    /**
     * For tests: streams opened until the returned handle is closed install the rule {@code lookup} gives, none if
     * it fails (a Spark lacking an internal the rule needs); closing it restores this Spark's rule. Sessions that
     * already have the rule keep it.
     */
    static AutoCloseable lookUpWith(InternalsLookup lookup) {
        Optional<LakestreamStreamPushdown> previous = RULE.getAndSet(create(lookup));
        return () -> RULE.set(previous);
    }

    static boolean install(Optional<LakestreamStreamPushdown> rule, SparkSession session) {
        rule.ifPresent(present -> present.addTo(session));
        return rule.isPresent();
    }

    private void addTo(SparkSession session) {
        synchronized (internals.experimental(session)) {
            List<Rule<LogicalPlan>> rules = new ArrayList<>(internals.extraOptimizations(session));
            if (!rules.contains(this)) {
                rules.add(this);
                internals.setExtraOptimizations(session, rules);
            }
        }
    }

    @Override
    public LogicalPlan apply(LogicalPlan plan) {
        if (disabled.get()) {
            return plan;
        }
        try {
            return pushDownAll(plan);
        } catch (LinkageError e) {
            // a plan API this build was compiled against is not in this Spark: no pushdown beats a failed query
            if (!disabled.getAndSet(true)) {
                LOG.warn(offMessage(e), e);
            }
            return plan;
        }
    }

    static String offMessage(LinkageError e) {
        return ("Projection and filter pushdown into Lakestream streams is off in this JVM: Spark %s differs from the "
                        + "Spark %s it was checked against (%s). Streams read every column and row; Spark applies the "
                        + "projections and filters")
                .formatted(StreamPlanInternals.sparkVersion(), StreamPlanInternals.CHECKED_SPARK, e);
    }

    private LogicalPlan pushDownAll(LogicalPlan plan) {
        Optional<LogicalPlan> pushed = pushDown(plan);
        if (pushed.isPresent()) {
            return pushed.get();
        }
        Function1<LogicalPlan, LogicalPlan> children = this::pushDownAll;
        return (LogicalPlan) plan.mapChildren((Function1) children);
    }

    private Optional<LogicalPlan> pushDown(LogicalPlan node) {
        if (node instanceof Project project) {
            return through(project.child(), ScanUsage.projecting(project.projectList()))
                    .map(pushed -> pushed.above(project));
        }
        if (node instanceof Filter || node instanceof EventTimeWatermark) {
            // nothing above prunes columns: every column the scan returns is needed, whole
            return through(node, ScanUsage.projecting(node.output())).map(Pushed::plan);
        }
        return Optional.empty();
    }

    /**
     * What the plan above a stream's scan uses of the scan's output: the expressions a projection returns and the
     * conditions of the nodes between it and the scan (Spark's nested schema pruning reads the fields they use).
     */
    private record ScanUsage(List<NamedExpression> projects, List<Expression> conditions, Set<String> selected) {
        ScanUsage {
            projects = List.copyOf(projects);
            conditions = List.copyOf(conditions);
            selected = Set.copyOf(selected);
        }

        static ScanUsage projecting(Seq<? extends NamedExpression> projects) {
            return new ScanUsage(List.copyOf(CollectionConverters.asJava(projects)), List.of(), Set.of());
        }

        ScanUsage with(List<Expression> more) {
            List<Expression> all = new ArrayList<>(conditions);
            all.addAll(more);
            return new ScanUsage(projects, all, selected);
        }

        /** Also reads {@code columns}, which a selection on the way passes on: narrowed by what the rest uses. */
        ScanUsage selecting(Set<String> columns) {
            Set<String> all = new HashSet<>(selected);
            all.addAll(columns);
            return new ScanUsage(projects, conditions, all);
        }

        /** The columns the expressions refer to. */
        Set<String> columnNames() {
            Set<String> names = new HashSet<>(selected);
            projects.forEach(project -> names.addAll(names(((Expression) project).references())));
            conditions.forEach(condition -> names.addAll(names(condition.references())));
            return names;
        }
    }

    /**
     * A plan whose stream scan reads what was pushed into it, and how the expressions of the nodes above the scan
     * are rewritten to its output, whose structs may be narrowed (empty: the output has the scan's types).
     */
    private record Pushed(LogicalPlan plan, Optional<PartialFunction<Expression, Expression>> narrowing) {
        /** {@code node}, over this plan, its expressions reading the narrowed structs. */
        Pushed under(LogicalPlan node) {
            return new Pushed(above(node), narrowing);
        }

        LogicalPlan above(LogicalPlan node) {
            LogicalPlan rewritten = narrowing.map(node::transformExpressions).orElse(node);
            return withChild(rewritten, plan);
        }
    }

    /**
     * Pushes into the stream's scan under {@code node}, reached through filters, watermarks and projections that only
     * select columns (nodes that pass rows on unchanged or drop them): the scan keeps what {@code usage} needs and what the nodes on the way use; only
     * the filter right on the scan offers its conjuncts (Spark's optimizer already moved every conjunct that may go
     * lower into it, so the others, e.g. on a watermark's event time or above a nondeterministic filter, stay).
     */
    private Optional<Pushed> through(LogicalPlan node, ScanUsage usage) {
        Optional<StreamingDataSourceV2ScanRelation> scan = stream(node);
        if (scan.isPresent()) {
            return pushDown(scan.get(), usage, Optional.empty());
        }
        if (node instanceof Filter filter && stream(filter.child()).isPresent()) {
            return pushDown(stream(filter.child()).orElseThrow(), usage, Optional.of(filter));
        }
        if (node instanceof Filter filter) {
            return through(filter.child(), usage.with(List.of(filter.condition())))
                    .map(pushed -> pushed.under(node));
        }
        if (node instanceof EventTimeWatermark watermark) {
            // the event time is read whole (Spark computes the watermark from it)
            return through(watermark.child(), usage.with(List.of(watermark.eventTime())))
                    .map(pushed -> pushed.under(node));
        }
        if (node instanceof Project selection
                && CollectionConverters.asJava(selection.projectList()).stream()
                        .allMatch(Attribute.class::isInstance)) {
            // Spark's column pruning puts a projection of the columns used above under a watermark; it only passes
            // columns on, so what the plan above uses of them decides how narrow their structs are read
            return through(selection.child(), usage.selecting(names(selection.references())))
                    .map(pushed -> pushed.under(node));
        }
        return Optional.empty();
    }

    private static LogicalPlan withChild(LogicalPlan node, LogicalPlan child) {
        return node.withNewChildren(CollectionConverters.asScala(List.of(child)).toSeq());
    }

    /** The scan of a Lakestream stream that nothing was pushed into yet. */
    private static Optional<StreamingDataSourceV2ScanRelation> stream(LogicalPlan plan) {
        return plan instanceof StreamingDataSourceV2ScanRelation scan
                        && scan.stream() instanceof LakestreamMicroBatchStream
                ? Optional.of(scan)
                : Optional.empty();
    }

    /**
     * The scan reading only what {@code usage} needs (with Spark's nested schema pruning, a struct narrowed to the
     * fields used) and the rows the pushable conjuncts of {@code filter} keep, under a filter of the other conjuncts;
     * empty if that reads what the scan reads.
     */
    private Optional<Pushed> pushDown(
            StreamingDataSourceV2ScanRelation scan, ScanUsage usage, Optional<Filter> filter) {
        LakestreamMicroBatchStream stream = (LakestreamMicroBatchStream) scan.stream();
        StreamBatches batches = stream.batches();
        TableDefinition definition = batches.table().table().definition();
        boolean byKey = batches.output().byKey();
        LakestreamScanBuilder builder =
                new LakestreamScanBuilder(batches.table(), scan.relation().options());
        List<Expression> remaining = new ArrayList<>();
        boolean anyPushed = false;
        // as Spark's own predicate pushdown: no conjunct after a nondeterministic one moves below it (its values
        // depend on the rows it sees)
        boolean deterministicSoFar = true;
        List<Expression> conjuncts =
                filter.map(present -> conjuncts(present.condition())).orElse(List.of());
        for (Expression conjunct : conjuncts) {
            deterministicSoFar &= conjunct.deterministic();
            boolean pushable =
                    deterministicSoFar && (!byKey || definition.primaryKey().containsAll(names(conjunct.references())));
            if (pushable && pushed(builder, conjunct)) {
                anyPushed = true;
            } else {
                remaining.add(conjunct);
            }
        }
        Set<String> needed = usage.columnNames();
        remaining.forEach(conjunct -> needed.addAll(names(conjunct.references())));
        if (byKey) {
            // the outputs per key find each change's key in the rows they read
            needed.addAll(definition.primaryKey());
        }
        Map<String, DataType> narrowed = narrowedTypes(scan, usage.with(remaining));
        List<StructField> fields = new ArrayList<>();
        for (Types.NestedField column : definition.schema().columns()) {
            if (needed.contains(column.name())) {
                StructField field = LakestreamTypes.sparkField(column);
                fields.add(new StructField(
                        field.name(),
                        narrowed.getOrDefault(field.name(), field.dataType()),
                        field.nullable(),
                        field.metadata()));
            }
        }
        builder.pruneColumns(new StructType(fields.toArray(StructField[]::new)));
        LakestreamScan pushedScan = (LakestreamScan) builder.build();
        if (!anyPushed && pushedScan.readFields().equals(batches.columns())) {
            return Optional.empty();
        }
        // the scan's output: the attributes it keeps, each of the type the scan reads (a struct maybe narrowed)
        StructType read = pushedScan.readSchema();
        List<AttributeReference> output = new ArrayList<>();
        boolean anyNarrowed = false;
        for (AttributeReference attribute : CollectionConverters.asJava(scan.output())) {
            if (read.getFieldIndex(attribute.name()).isEmpty()) {
                continue;
            }
            DataType type = read.apply(attribute.name()).dataType();
            if (type.equals(attribute.dataType())) {
                output.add(attribute);
            } else {
                output.add(attribute.withDataType(type));
                anyNarrowed = true;
            }
        }
        Optional<PartialFunction<Expression, Expression>> narrowing =
                anyNarrowed ? Optional.of(internals.projectionOverSchema(output)) : Optional.empty();
        LogicalPlan relation = internals.scanRelation(
                scan,
                new PushedDownStreamScan(pushedScan),
                output,
                stream.pushedDown(batches.pushedDown(pushedScan.readFields(), pushedScan.filter())));
        if (remaining.isEmpty()) {
            return Optional.of(new Pushed(relation, narrowing));
        }
        if (remaining.size() == conjuncts.size()) {
            return Optional.of(new Pushed(relation, narrowing).under(filter.orElseThrow()));
        }
        List<Expression> rewritten = remaining.stream()
                .map(conjunct -> narrowing.map(conjunct::transformDown).orElse(conjunct))
                .toList();
        return Optional.of(new Pushed(
                internals.filter(rewritten.stream().reduce(internals::and).orElseThrow(), relation), narrowing));
    }

    /**
     * The types Spark's nested schema pruning reads the struct columns {@code usage} uses as (only the fields used),
     * by column name; empty where the session has nested schema pruning off.
     */
    private Map<String, DataType> narrowedTypes(StreamingDataSourceV2ScanRelation scan, ScanUsage usage) {
        if (!internals.nestedSchemaPruningEnabled()) {
            return Map.of();
        }
        Map<String, DataType> types = new HashMap<>();
        for (StructField field : internals
                .prunedSchema(scan.schema(), usage.projects(), usage.conditions())
                .fields()) {
            types.put(field.name(), field.dataType());
        }
        return types;
    }

    /** Whether the scan takes the conjunct as an exact filter. */
    private boolean pushed(LakestreamScanBuilder builder, Expression conjunct) {
        scala.Option<Predicate> predicate = internals.translateFilter(conjunct);
        return predicate.isDefined() && builder.pushPredicates(new Predicate[] {predicate.get()}).length == 0;
    }

    private static List<Expression> conjuncts(Expression condition) {
        List<Expression> result = new ArrayList<>();
        if (condition instanceof And and) {
            result.addAll(conjuncts(and.left()));
            result.addAll(conjuncts(and.right()));
        } else if (condition != null) {
            result.add(condition);
        }
        return result;
    }

    private static Set<String> names(org.apache.spark.sql.catalyst.expressions.AttributeSet attributes) {
        Set<String> names = new HashSet<>();
        for (Attribute attribute : CollectionConverters.asJava(attributes.toSeq())) {
            names.add(attribute.name());
        }
        return names;
    }
}
