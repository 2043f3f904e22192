package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.PARTITIONING_NOT_ALLOWED;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.TableDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;

/**
 * {@code PARTITIONED BY} in Spark's transforms ({@code days(ts)}, {@code region}, {@code bucket(8, id)},
 * {@code truncate(name, 3)}) to the engine-neutral partitioning terms of {@code TableSpec} (Trino's spelling), and
 * a table's partition fields back to Spark transforms for {@code DESCRIBE} and {@code SHOW CREATE TABLE}.
 */
final class LakestreamPartitioning {
    private LakestreamPartitioning() {}

    static List<String> terms(Transform[] partitions) {
        List<String> terms = new ArrayList<>(partitions.length);
        for (Transform transform : partitions) {
            terms.add(term(transform));
        }
        return terms;
    }

    private static String term(Transform transform) {
        String column = null;
        Integer parameter = null;
        for (Expression argument : transform.arguments()) {
            if (argument instanceof NamedReference reference && column == null) {
                column = String.join(".", reference.fieldNames());
            } else if (argument instanceof Literal<?> literal
                    && literal.value() instanceof Integer value
                    && parameter == null) {
                parameter = value;
            } else {
                throw unsupported(transform);
            }
        }
        if (column == null) {
            throw unsupported(transform);
        }
        String name = transform.name().toLowerCase(Locale.ROOT);
        String term = switch (name) {
            case "identity" -> parameter == null ? column : null;
            case "years", "year" -> parameter == null ? "year(%s)".formatted(column) : null;
            case "months", "month" -> parameter == null ? "month(%s)".formatted(column) : null;
            case "days", "day", "date" -> parameter == null ? "day(%s)".formatted(column) : null;
            case "hours", "hour", "date_hour" -> parameter == null ? "hour(%s)".formatted(column) : null;
            case "bucket", "truncate" -> parameter == null ? null : "%s(%s, %s)".formatted(name, column, parameter);
            default -> null;
        };
        if (term == null) {
            throw unsupported(transform);
        }
        return term;
    }

    /** The table's partitioning as Spark transforms (without the bucket field, which is the table's bucketing). */
    static Transform[] transforms(TableDefinition definition) {
        Schema schema = definition.schema();
        return definition.partitionFields().stream()
                .map(field -> transform(field, schema))
                .toArray(Transform[]::new);
    }

    private static Transform transform(PartitionField field, Schema schema) {
        String column = schema.findColumnName(field.sourceId());
        String transform = field.transform().toString();
        if (transform.startsWith("bucket[")) {
            return Expressions.bucket(parameter(transform), column);
        }
        if (transform.startsWith("truncate[")) {
            return Expressions.apply("truncate", Expressions.column(column), Expressions.literal(parameter(transform)));
        }
        return switch (transform) {
            case "identity" -> Expressions.identity(column);
            case "year" -> Expressions.years(column);
            case "month" -> Expressions.months(column);
            case "day" -> Expressions.days(column);
            case "hour" -> Expressions.hours(column);
            default -> Expressions.apply(transform, Expressions.column(column));
        };
    }

    private static int parameter(String transform) {
        return Integer.parseInt(transform.substring(transform.indexOf('[') + 1, transform.indexOf(']')));
    }

    private static LakestreamException unsupported(Transform transform) {
        return new LakestreamException(
                PARTITIONING_NOT_ALLOWED,
                "Partitioning not allowed: PARTITIONED BY %s is not supported; the supported transforms are col, years(col), months(col), days(col), hours(col), bucket(n, col), truncate(col, w)"
                        .formatted(transform.describe()));
    }
}
