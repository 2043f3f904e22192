package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;

import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.plans.logical.Filter;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2ScanRelation;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A procedure's {@code where} argument (Spark SQL over a table's columns) as the Iceberg expression the
 * Lakestream scan pushes for it: Spark resolves and optimizes {@code SELECT * FROM <table>$lake WHERE ...}, and
 * the filter is what our scan builder accepted ({@link LakestreamScan#filter}). A condition Spark had to keep
 * above the scan (a function, a cast, a float column: see docs/spark.md, "Filters") is refused, so a procedure
 * never acts on more or other rows than the user named without saying so.
 */
final class SparkWhereFilter {
    private SparkWhereFilter() {}

    static Expression toLakeFilter(SparkSession spark, String catalogName, TableIdentifier table, String where) {
        String name = "%s.%s.`%s$lake`".formatted(catalogName, table.namespace(), table.name());
        LogicalPlan plan;
        try {
            plan = spark.table(name).where(where).queryExecution().optimizedPlan();
        } catch (RuntimeException e) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "The filter '%s' is not a valid condition on table %s: %s".formatted(where, table, e.getMessage()),
                    e);
        }
        List<LogicalPlan> nodes = new ArrayList<>();
        collect(plan, nodes);
        Expression filter = Expressions.alwaysFalse(); // no scan left: the optimizer proved the filter false
        for (LogicalPlan node : nodes) {
            if (node instanceof Filter) {
                throw new LakestreamException(
                        INVALID_READ_OPTIONS,
                        "The filter '%s' on table %s cannot be evaluated by the Lakestream scan (only comparisons, IN, IS [NOT] NULL, STARTS_WITH and AND/OR/NOT of those on boolean, integer, decimal, date, timestamp and string columns can); use such a condition"
                                .formatted(where, table));
            }
            if (node instanceof DataSourceV2ScanRelation relation && relation.scan() instanceof LakestreamScan scan) {
                filter = scan.filter();
            }
        }
        return filter;
    }

    private static void collect(LogicalPlan node, List<LogicalPlan> nodes) {
        nodes.add(node);
        for (LogicalPlan child : CollectionConverters.asJava(node.children())) {
            collect(child, nodes);
        }
    }
}
