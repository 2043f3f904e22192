package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.sql.ExperimentalMethods;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.ProjectionOverSchema;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.streaming.SparkDataStream;
import org.apache.spark.sql.execution.datasources.v2.StreamingDataSourceV2Relation;
import org.apache.spark.sql.execution.datasources.v2.StreamingDataSourceV2ScanRelation;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.PartialFunction;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The Spark internals that {@link LakestreamStreamPushdown} cannot do without: constructors and methods of catalyst
 * and execution classes that carry no compatibility promise between Spark releases (the streaming scan node, for one,
 * took a {@code DataSourceV2Relation} before Spark 4.1 and a {@code StreamingDataSourceV2Relation} since). They are
 * looked up once, by exact signature, when the first stream opens, and the rule calls them only through these
 * handles. If this Spark lacks one, {@link #find()} says which and names the Spark version; streams then run without
 * pushdown (correct, reading every column and row) and a warning says so, instead of a query failing inside Spark's
 * optimizer. The rest of the rule uses stable plan APIs (accessors, {@code withNewChildren}). Checked against Spark
 * {@value #CHECKED_SPARK}.
 */
final class StreamPlanInternals {
    static final String CHECKED_SPARK = "4.1.3";

    private final MethodHandle scanRelation;
    private final MethodHandle filter;
    private final MethodHandle and;
    private final MethodHandle translateFilter;
    private final MethodHandle experimental;
    private final MethodHandle extraOptimizations;
    private final MethodHandle setExtraOptimizations;
    private final MethodHandle nestedSchemaPruningEnabled;
    private final MethodHandle identifyRootFields;
    private final MethodHandle pruneSchema;
    private final MethodHandle attributeSet;
    private final MethodHandle projectionOverSchema;
    private final MethodHandle projectionUnapply;

    private StreamPlanInternals(
            MethodHandle scanRelation,
            MethodHandle filter,
            MethodHandle and,
            MethodHandle translateFilter,
            MethodHandle experimental,
            MethodHandle extraOptimizations,
            MethodHandle setExtraOptimizations,
            MethodHandle nestedSchemaPruningEnabled,
            MethodHandle identifyRootFields,
            MethodHandle pruneSchema,
            MethodHandle attributeSet,
            MethodHandle projectionOverSchema,
            MethodHandle projectionUnapply) {
        this.scanRelation = requireNonNull(scanRelation, "scanRelation is null");
        this.filter = requireNonNull(filter, "filter is null");
        this.and = requireNonNull(and, "and is null");
        this.translateFilter = requireNonNull(translateFilter, "translateFilter is null");
        this.experimental = requireNonNull(experimental, "experimental is null");
        this.extraOptimizations = requireNonNull(extraOptimizations, "extraOptimizations is null");
        this.setExtraOptimizations = requireNonNull(setExtraOptimizations, "setExtraOptimizations is null");
        this.nestedSchemaPruningEnabled =
                requireNonNull(nestedSchemaPruningEnabled, "nestedSchemaPruningEnabled is null");
        this.identifyRootFields = requireNonNull(identifyRootFields, "identifyRootFields is null");
        this.pruneSchema = requireNonNull(pruneSchema, "pruneSchema is null");
        this.attributeSet = requireNonNull(attributeSet, "attributeSet is null");
        this.projectionOverSchema = requireNonNull(projectionOverSchema, "projectionOverSchema is null");
        this.projectionUnapply = requireNonNull(projectionUnapply, "projectionUnapply is null");
    }

    /** This Spark lacks an internal the rule needs (the message names it and the Spark version). */
    static final class Unavailable extends Exception {
        Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The internals of the running Spark, or why pushdown into streams cannot work with it. */
    static StreamPlanInternals find() throws Unavailable {
        Object strategy = module("org.apache.spark.sql.execution.datasources.v2.DataSourceV2Strategy$");
        Object schemaPruning = module("org.apache.spark.sql.catalyst.expressions.SchemaPruning$");
        Object attributeSets = module("org.apache.spark.sql.catalyst.expressions.AttributeSet$");
        Class<?> classicSession = type("org.apache.spark.sql.classic.SparkSession");
        return new StreamPlanInternals(
                constructor(
                        StreamingDataSourceV2ScanRelation.class,
                        StreamingDataSourceV2Relation.class,
                        Scan.class,
                        Seq.class,
                        SparkDataStream.class,
                        Option.class,
                        Option.class),
                constructor(Filter.class, Expression.class, LogicalPlan.class),
                constructor(And.class, Expression.class, Expression.class),
                method(strategy.getClass(), "translateFilterV2", Option.class, Expression.class)
                        .bindTo(strategy),
                method(classicSession, "experimental", ExperimentalMethods.class),
                method(ExperimentalMethods.class, "extraOptimizations", Seq.class),
                method(ExperimentalMethods.class, "extraOptimizations_$eq", void.class, Seq.class),
                MethodHandles.filterReturnValue(
                        staticMethod(SQLConf.class, "get", SQLConf.class),
                        method(SQLConf.class, "nestedSchemaPruningEnabled", boolean.class)),
                method(schemaPruning.getClass(), "identifyRootFields", Seq.class, Seq.class, Seq.class)
                        .bindTo(schemaPruning),
                method(schemaPruning.getClass(), "pruneSchema", StructType.class, StructType.class, Seq.class)
                        .bindTo(schemaPruning),
                method(attributeSets.getClass(), "apply", AttributeSet.class, scala.collection.Iterable.class)
                        .bindTo(attributeSets),
                staticMethod(
                        ProjectionOverSchema.class,
                        "apply",
                        ProjectionOverSchema.class,
                        StructType.class,
                        AttributeSet.class),
                method(ProjectionOverSchema.class, "unapply", Option.class, Expression.class));
    }

    /** The public constructor of {@code owner} with exactly these parameters. */
    static MethodHandle constructor(Class<?> owner, Class<?>... parameters) throws Unavailable {
        try {
            return MethodHandles.publicLookup().findConstructor(owner, MethodType.methodType(void.class, parameters));
        } catch (ReflectiveOperationException e) {
            throw unavailable("the constructor %s(%s)".formatted(owner.getName(), names(parameters)), e);
        }
    }

    /** The public instance method of {@code owner} with exactly this name, return type and parameters. */
    static MethodHandle method(Class<?> owner, String name, Class<?> returns, Class<?>... parameters)
            throws Unavailable {
        try {
            return MethodHandles.publicLookup().findVirtual(owner, name, MethodType.methodType(returns, parameters));
        } catch (ReflectiveOperationException e) {
            throw unavailable(
                    "the method %s %s.%s(%s)".formatted(returns.getName(), owner.getName(), name, names(parameters)),
                    e);
        }
    }

    /** The public static method of {@code owner} with exactly this name, return type and parameters. */
    static MethodHandle staticMethod(Class<?> owner, String name, Class<?> returns, Class<?>... parameters)
            throws Unavailable {
        try {
            return MethodHandles.publicLookup().findStatic(owner, name, MethodType.methodType(returns, parameters));
        } catch (ReflectiveOperationException e) {
            throw unavailable(
                    "the static method %s %s.%s(%s)"
                            .formatted(returns.getName(), owner.getName(), name, names(parameters)),
                    e);
        }
    }

    private static Class<?> type(String name) throws Unavailable {
        try {
            return Class.forName(name, false, StreamPlanInternals.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw unavailable("the class " + name, e);
        }
    }

    /** The instance of a Scala object. */
    private static Object module(String name) throws Unavailable {
        try {
            return type(name).getField("MODULE$").get(null);
        } catch (ReflectiveOperationException e) {
            throw unavailable("the object " + name, e);
        }
    }

    private static Unavailable unavailable(String missing, Throwable cause) {
        return new Unavailable(
                ("Spark %s lacks %s, which Lakestream's projection and filter pushdown into streams relies on (checked "
                                + "against Spark %s): streams on this Spark read every column and row, and Spark "
                                + "applies the projections and filters itself. Use a Spark version this Lakestream "
                                + "release supports to get the pushdown back")
                        .formatted(sparkVersion(), missing, CHECKED_SPARK),
                cause);
    }

    static String sparkVersion() {
        try {
            return org.apache.spark.package$.MODULE$.SPARK_VERSION();
        } catch (LinkageError e) {
            return "(version unknown)";
        }
    }

    private static String names(Class<?>... types) {
        return Arrays.stream(types).map(Class::getName).collect(Collectors.joining(", "));
    }

    LogicalPlan scanRelation(
            StreamingDataSourceV2ScanRelation scan,
            Scan pushedScan,
            List<AttributeReference> output,
            SparkDataStream stream) {
        return invoke(
                scanRelation,
                scan.relation(),
                pushedScan,
                CollectionConverters.asScala(output).toList(),
                stream,
                scan.startOffset(),
                scan.endOffset());
    }

    LogicalPlan filter(Expression condition, LogicalPlan child) {
        return invoke(filter, condition, child);
    }

    Expression and(Expression left, Expression right) {
        return invoke(and, left, right);
    }

    @SuppressWarnings("unchecked")
    Option<Predicate> translateFilter(Expression expression) {
        return invoke(translateFilter, expression);
    }

    /** Whether the session that plans now prunes nested columns ({@code spark.sql.optimizer.nestedSchemaPruning.enabled}). */
    boolean nestedSchemaPruningEnabled() {
        return invoke(nestedSchemaPruningEnabled);
    }

    /**
     * {@code schema} (a relation's output) with only the columns {@code projects} and {@code filters} use, each struct
     * narrowed to the fields they use (Spark's {@code SchemaPruning}, what its batch scans hand {@code pruneColumns}).
     */
    StructType prunedSchema(StructType schema, List<NamedExpression> projects, List<Expression> filters) {
        Seq<?> rootFields = invoke(
                identifyRootFields,
                CollectionConverters.asScala(projects).toList(),
                CollectionConverters.asScala(filters).toList());
        return rootFields.isEmpty() ? new StructType() : invoke(pruneSchema, schema, rootFields);
    }

    /**
     * Rewrites an expression over a relation's attributes to {@code output}, the same attributes (by expression id)
     * with narrowed struct types: field accesses by ordinal are moved to the narrowed structs' ordinals (Spark's
     * {@code ProjectionOverSchema}, as its batch scans rewrite the plan above a pruned scan). For {@code
     * transformExpressions}, which applies it top down.
     */
    PartialFunction<Expression, Expression> projectionOverSchema(List<AttributeReference> output) {
        StructType schema = new StructType(output.stream()
                .map(attribute -> new StructField(
                        attribute.name(), attribute.dataType(), attribute.nullable(), attribute.metadata()))
                .toArray(StructField[]::new));
        AttributeSet attributes = invoke(attributeSet, CollectionConverters.asScala(output));
        Object projection = invoke(projectionOverSchema, schema, attributes);
        return new PartialFunction<>() {
            @Override
            public boolean isDefinedAt(Expression expression) {
                return projected(expression).isDefined();
            }

            @Override
            public Expression apply(Expression expression) {
                return projected(expression).get();
            }

            private Option<Expression> projected(Expression expression) {
                return invoke(projectionUnapply, projection, expression);
            }
        };
    }

    /** The optimizer rules {@code session} adds to Spark's (its {@code spark.experimental.extraOptimizations}). */
    List<Rule<LogicalPlan>> extraOptimizations(SparkSession session) {
        Seq<Rule<LogicalPlan>> rules = invoke(extraOptimizations, experimental(session));
        return CollectionConverters.asJava(rules);
    }

    void setExtraOptimizations(SparkSession session, List<Rule<LogicalPlan>> rules) {
        invoke(
                setExtraOptimizations,
                experimental(session),
                CollectionConverters.asScala(rules).toList());
    }

    /** The object a session's extra optimizations live in (also the lock Spark takes nowhere, so ours). */
    ExperimentalMethods experimental(SparkSession session) {
        return invoke(experimental, session);
    }

    @SuppressWarnings("unchecked")
    private static <T> T invoke(MethodHandle handle, Object... arguments) {
        try {
            return (T) handle.invokeWithArguments(arguments);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
