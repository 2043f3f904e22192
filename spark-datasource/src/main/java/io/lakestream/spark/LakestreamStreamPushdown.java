package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.TableDefinition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
import org.apache.spark.sql.catalyst.plans.logical.EventTimeWatermark;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.datasources.v2.StreamingDataSourceV2ScanRelation;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Projection and filter pushdown into a Lakestream stream. Spark builds a streaming scan without pushdown (its
 * micro-batch execution calls {@code newScanBuilder(options).build()} and never offers the builder columns or
 * filters), so this optimizer rule does it on each micro-batch's plan: where a {@code Project} and/or {@code
 * Filter} sits on a Lakestream stream's scan (a projection also through the filters and watermarks below it), the columns the plan needs and the filters the stream evaluates
 * exactly go through the table's own {@link LakestreamScanBuilder} (the batch scan's rules), and the scan is
 * replaced by one reading only those ({@link PushedDownStream}); the filters it took leave the plan.
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
            return through(project.child(), names(project.references())).map(pushed -> withChild(project, pushed));
        }
        if (node instanceof Filter || node instanceof EventTimeWatermark) {
            // nothing above prunes columns: every column the scan returns is needed
            return through(node, names(node.outputSet()));
        }
        return Optional.empty();
    }

    /**
     * Pushes into the stream's scan under {@code node}, reached through filters and watermarks (nodes that pass rows
     * on unchanged or drop them): the scan keeps the {@code required} columns and those the nodes on the way use;
     * only the filter right on the scan offers its conjuncts (Spark's optimizer already moved every conjunct that may
     * go lower into it, so the others, e.g. on a watermark's event time or above a nondeterministic filter, stay).
     */
    private Optional<LogicalPlan> through(LogicalPlan node, Set<String> required) {
        Optional<StreamingDataSourceV2ScanRelation> scan = stream(node);
        if (scan.isPresent()) {
            return pushDown(scan.get(), required, Optional.empty());
        }
        if (node instanceof Filter filter && stream(filter.child()).isPresent()) {
            return pushDown(stream(filter.child()).orElseThrow(), required, Optional.of(filter));
        }
        if (node instanceof Filter || node instanceof EventTimeWatermark) {
            Set<String> needed = new HashSet<>(required);
            needed.addAll(names(node.references()));
            if (node instanceof EventTimeWatermark watermark) {
                needed.add(watermark.eventTime().name());
            }
            LogicalPlan child = ((org.apache.spark.sql.catalyst.plans.logical.UnaryNode) node).child();
            return through(child, needed).map(pushed -> withChild(node, pushed));
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
     * The scan reading only the {@code required} columns and the rows the pushable conjuncts of {@code filter} keep,
     * under a filter of the other conjuncts; empty if that reads what the scan reads.
     */
    private Optional<LogicalPlan> pushDown(
            StreamingDataSourceV2ScanRelation scan, Set<String> required, Optional<Filter> filter) {
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
        Set<String> needed = new HashSet<>(required);
        remaining.forEach(conjunct -> needed.addAll(names(conjunct.references())));
        if (byKey) {
            // the outputs per key find each change's key in the rows they read
            needed.addAll(definition.primaryKey());
        }
        List<StructField> fields = new ArrayList<>();
        for (Types.NestedField field : definition.schema().columns()) {
            if (needed.contains(field.name())) {
                fields.add(LakestreamTypes.sparkField(field));
            }
        }
        if (!anyPushed && fields.size() == batches.columns().size()) {
            return Optional.empty();
        }
        builder.pruneColumns(new StructType(fields.toArray(StructField[]::new)));
        LakestreamScan pushedScan = (LakestreamScan) builder.build();
        Set<String> kept = new HashSet<>(pushedScan.columns());
        LakestreamTypes.changeFields(definition).forEach(field -> kept.add(field.name()));
        List<AttributeReference> output = new ArrayList<>();
        for (AttributeReference attribute : CollectionConverters.asJava(scan.output())) {
            if (kept.contains(attribute.name())) {
                output.add(attribute);
            }
        }
        LogicalPlan relation = internals.scanRelation(
                scan,
                new PushedDownStreamScan(pushedScan),
                output,
                stream.pushedDown(batches.pushedDown(pushedScan.columns(), pushedScan.filter())));
        if (remaining.isEmpty()) {
            return Optional.of(relation);
        }
        if (remaining.size() == conjuncts.size()) {
            return Optional.of(withChild(filter.orElseThrow(), relation));
        }
        return Optional.of(
                internals.filter(remaining.stream().reduce(internals::and).orElseThrow(), relation));
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
