package io.lakestream.spark;

import io.lakestream.table.TableDefinition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.ExperimentalMethods;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy$;
import org.apache.spark.sql.execution.datasources.v2.StreamingDataSourceV2ScanRelation;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Projection and filter pushdown into a Lakestream stream. Spark builds a streaming scan without pushdown (its
 * micro-batch execution calls {@code newScanBuilder(options).build()} and never offers the builder columns or
 * filters), so this optimizer rule does it on each micro-batch's plan: where a {@code Project} and/or {@code
 * Filter} sits on a Lakestream stream's scan, the columns the plan needs and the filters the stream evaluates
 * exactly go through the table's own {@link LakestreamScanBuilder} (the batch scan's rules), and the scan is
 * replaced by one reading only those ({@link PushedDownStream}); the filters it took leave the plan.
 *
 * <p>Which filters a stream may take depends on its output (docs/decisions.md, "pushdown into a stream"): rows of
 * an append-only table and the {@code log} output are independent rows, so any filter the scan evaluates exactly is
 * exact on them, the {@code full} state included (a union read with the filter is the filtered state). The {@code
 * changelog} and {@code upsert} outputs are derived per key from all of a key's changes in a batch (the last one,
 * the replaced row), so only filters on key columns, which every change of a key shares, may be applied before
 * that; a filter on another column stays in Spark, after the derivation.
 */
final class LakestreamStreamPushdown extends Rule<LogicalPlan> {
    static final LakestreamStreamPushdown INSTANCE = new LakestreamStreamPushdown();

    private LakestreamStreamPushdown() {}

    /** Adds the rule to the optimizer of {@code session} (the session a streaming query plans its batches in). */
    static void install(SparkSession session) {
        ExperimentalMethods experimental = ((org.apache.spark.sql.classic.SparkSession) session).experimental();
        synchronized (experimental) {
            List<Rule<LogicalPlan>> rules =
                    new ArrayList<>(CollectionConverters.asJava(experimental.extraOptimizations()));
            if (!rules.contains(INSTANCE)) {
                rules.add(INSTANCE);
                experimental.extraOptimizations_$eq(
                        CollectionConverters.asScala(rules).toList());
            }
        }
    }

    @Override
    public LogicalPlan apply(LogicalPlan plan) {
        Optional<LogicalPlan> pushed = pushDown(plan);
        if (pushed.isPresent()) {
            return pushed.get();
        }
        Function1<LogicalPlan, LogicalPlan> children = this::apply;
        return (LogicalPlan) plan.mapChildren((Function1) children);
    }

    private static Optional<LogicalPlan> pushDown(LogicalPlan node) {
        if (node instanceof Project project) {
            if (project.child() instanceof Filter filter) {
                return stream(filter.child())
                        .flatMap(scan -> pushDown(scan, names(project.references()), filter.condition())
                                .map(pushed -> new Project(project.projectList(), pushed)));
            }
            return stream(project.child())
                    .flatMap(scan -> pushDown(scan, names(project.references()), null)
                            .map(pushed -> new Project(project.projectList(), pushed)));
        }
        if (node instanceof Filter filter) {
            return stream(filter.child()).flatMap(scan -> pushDown(scan, names(scan.outputSet()), filter.condition()));
        }
        return Optional.empty();
    }

    /** The scan of a Lakestream stream that nothing was pushed into yet. */
    private static Optional<StreamingDataSourceV2ScanRelation> stream(LogicalPlan plan) {
        return plan instanceof StreamingDataSourceV2ScanRelation scan
                        && scan.stream() instanceof LakestreamMicroBatchStream
                ? Optional.of(scan)
                : Optional.empty();
    }

    /**
     * The scan reading only the {@code required} columns and the rows the pushable conjuncts of {@code condition}
     * (may be null) keep, under a filter of the other conjuncts; empty if that reads what the scan reads.
     */
    private static Optional<LogicalPlan> pushDown(
            StreamingDataSourceV2ScanRelation scan, Set<String> required, Expression condition) {
        LakestreamMicroBatchStream stream = (LakestreamMicroBatchStream) scan.stream();
        StreamBatches batches = stream.batches();
        TableDefinition definition = batches.table().table().definition();
        boolean byKey = batches.output().byKey();
        LakestreamScanBuilder builder =
                new LakestreamScanBuilder(batches.table(), scan.relation().options());
        List<Expression> remaining = new ArrayList<>();
        boolean anyPushed = false;
        for (Expression conjunct : conjuncts(condition)) {
            boolean pushable = conjunct.deterministic()
                    && (!byKey || definition.primaryKey().containsAll(names(conjunct.references())));
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
        LakestreamTypes.changeFields().forEach(field -> kept.add(field.name()));
        List<AttributeReference> output = new ArrayList<>();
        for (AttributeReference attribute : CollectionConverters.asJava(scan.output())) {
            if (kept.contains(attribute.name())) {
                output.add(attribute);
            }
        }
        LogicalPlan relation = new StreamingDataSourceV2ScanRelation(
                scan.relation(),
                new PushedDownStreamScan(pushedScan),
                CollectionConverters.asScala(output).toList(),
                stream.pushedDown(batches.pushedDown(pushedScan.columns(), pushedScan.filter())),
                scan.startOffset(),
                scan.endOffset());
        return Optional.of(remaining.stream()
                .reduce(And::new)
                .<LogicalPlan>map(rest -> new Filter(rest, relation))
                .orElse(relation));
    }

    /** Whether the scan takes the conjunct as an exact filter. */
    private static boolean pushed(LakestreamScanBuilder builder, Expression conjunct) {
        scala.Option<Predicate> predicate = DataSourceV2Strategy$.MODULE$.translateFilterV2(conjunct);
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
