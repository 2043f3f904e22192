package io.lakestream.spark;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.expressions.Literal;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Translates Spark V2 predicates into Iceberg expressions that the union read evaluates exactly as
 * Spark would (SQL three-valued logic). A predicate is translated only when that holds, so Spark
 * need not re-check it; anything else (casts, functions, floating point columns whose NaN and
 * {@code -0.0} rules differ, uuid and binary columns, null literals) is left to Spark.
 */
final class LakestreamFilters {
    private LakestreamFilters() {}

    /** The equivalent Iceberg expression over {@code schema}, or empty if there is none we can vouch for. */
    static Optional<Expression> translate(Predicate predicate, Schema schema) {
        return translate(predicate, schema, false);
    }

    /**
     * The equivalent Iceberg expression of a predicate that may also name fields of struct columns ({@code r.a},
     * reached through structs only), or empty. The union read does not evaluate such a reference on rows (its row
     * filter works on whole columns), so Spark keeps the predicate; the expression only prunes lake files and row
     * groups by the field's column metrics, which Iceberg keeps by field id. The same rules as {@link #translate}
     * make it equivalent to the predicate, a null struct giving a null field in both.
     */
    static Optional<Expression> translateForPruning(Predicate predicate, Schema schema) {
        return translate(predicate, schema, true);
    }

    private static Optional<Expression> translate(Predicate predicate, Schema schema, boolean nested) {
        try {
            return Optional.ofNullable(convert(predicate, schema, nested));
        } catch (ArithmeticException | IllegalArgumentException | ClassCastException e) {
            // a literal that does not fit the column exactly: Spark evaluates the predicate itself
            return Optional.empty();
        }
    }

    private static Expression convert(Predicate predicate, Schema schema, boolean nested) {
        org.apache.spark.sql.connector.expressions.Expression[] children = predicate.children();
        return switch (predicate.name()) {
            case "ALWAYS_TRUE" -> Expressions.alwaysTrue();
            case "ALWAYS_FALSE" -> Expressions.alwaysFalse();
            case "AND" -> {
                Expression left = child(children[0], schema, nested);
                Expression right = child(children[1], schema, nested);
                yield left == null || right == null ? null : Expressions.and(left, right);
            }
            case "OR" -> {
                Expression left = child(children[0], schema, nested);
                Expression right = child(children[1], schema, nested);
                yield left == null || right == null ? null : Expressions.or(left, right);
            }
            case "NOT" -> {
                Expression inner = child(children[0], schema, nested);
                yield inner == null ? null : Expressions.not(inner);
            }
            case "IS_NULL", "IS_NOT_NULL" -> {
                Types.NestedField column = column(children[0], schema, nested);
                if (column == null) {
                    yield null;
                }
                yield predicate.name().equals("IS_NULL")
                        ? Expressions.isNull(name(column, schema))
                        : Expressions.notNull(name(column, schema));
            }
            case "=", "<>", "<", "<=", ">", ">=", "<=>" -> comparison(predicate.name(), children, schema, nested);
            case "IN" -> in(children, schema, nested);
            case "STARTS_WITH" -> {
                Types.NestedField column = column(children[0], schema, nested);
                Object prefix = value(children[1], column);
                yield column != null && column.type().typeId() == Type.TypeID.STRING && prefix instanceof String text
                        ? Expressions.startsWith(name(column, schema), text)
                        : null;
            }
            default -> null;
        };
    }

    private static Expression child(
            org.apache.spark.sql.connector.expressions.Expression child, Schema schema, boolean nested) {
        return child instanceof Predicate predicate ? convert(predicate, schema, nested) : null;
    }

    private static Expression comparison(
            String operator,
            org.apache.spark.sql.connector.expressions.Expression[] children,
            Schema schema,
            boolean nested) {
        boolean flipped = !(children[0] instanceof NamedReference);
        org.apache.spark.sql.connector.expressions.Expression reference = flipped ? children[1] : children[0];
        org.apache.spark.sql.connector.expressions.Expression literal = flipped ? children[0] : children[1];
        Types.NestedField column = column(reference, schema, nested);
        if (column == null || !(literal instanceof Literal<?>)) {
            return null;
        }
        Object value = value(literal, column);
        String name = name(column, schema);
        if (value == null) {
            // a comparison with NULL is unknown, except the null-safe equality
            return operator.equals("<=>") ? Expressions.isNull(name) : null;
        }
        String effective = flipped ? flip(operator) : operator;
        return switch (effective) {
            case "=" -> Expressions.equal(name, value);
            // NOT(col = v) keeps SQL semantics for a null col: unknown, like col <> v
            case "<>" -> Expressions.not(Expressions.equal(name, value));
            case "<" -> Expressions.lessThan(name, value);
            case "<=" -> Expressions.lessThanOrEqual(name, value);
            case ">" -> Expressions.greaterThan(name, value);
            case ">=" -> Expressions.greaterThanOrEqual(name, value);
            // null-safe: never unknown, so it stays right under NOT
            case "<=>" -> Expressions.and(Expressions.notNull(name), Expressions.equal(name, value));
            default -> null;
        };
    }

    private static Expression in(
            org.apache.spark.sql.connector.expressions.Expression[] children, Schema schema, boolean nested) {
        Types.NestedField column = column(children[0], schema, nested);
        if (column == null) {
            return null;
        }
        List<Object> values = new ArrayList<>(children.length - 1);
        for (int i = 1; i < children.length; i++) {
            Object value = value(children[i], column);
            if (value == null) {
                // x IN (1, NULL) is unknown, not false, for x = 2: Iceberg's IN cannot say that
                return null;
            }
            values.add(value);
        }
        return values.isEmpty() ? null : Expressions.in(name(column, schema), values);
    }

    private static String flip(String operator) {
        return switch (operator) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            case ">=" -> "<=";
            default -> operator;
        };
    }

    /**
     * The top-level column a reference names (with {@code nested}, also a field of a struct column, through structs
     * only), if its type is one whose comparisons match Spark's.
     */
    private static Types.NestedField column(
            org.apache.spark.sql.connector.expressions.Expression expression, Schema schema, boolean nested) {
        if (!(expression instanceof NamedReference reference) || (reference.fieldNames().length != 1 && !nested)) {
            return null;
        }
        String[] names = reference.fieldNames();
        Types.NestedField column = schema.caseInsensitiveFindField(names[0]);
        if (column == null || schema.findField(column.fieldId()) != column) {
            return null;
        }
        for (int i = 1; i < names.length && column != null; i++) {
            column = column.type().isStructType() ? column.type().asStructType().caseInsensitiveField(names[i]) : null;
        }
        if (column == null) {
            return null;
        }
        return switch (column.type().typeId()) {
            case BOOLEAN, INTEGER, LONG, DECIMAL, DATE, TIMESTAMP, STRING -> column;
            default -> null;
        };
    }

    /** The Iceberg name of a column or a field of a struct column ({@code r.a}), which binds to its field id. */
    private static String name(Types.NestedField column, Schema schema) {
        return schema.findColumnName(column.fieldId());
    }

    /**
     * The Iceberg value of a Spark literal for a column, or null for a SQL NULL. The literal must have
     * exactly the column's Spark type (otherwise Spark compares through a cast, which is not ours to
     * reproduce).
     */
    private static Object value(
            org.apache.spark.sql.connector.expressions.Expression expression, Types.NestedField column) {
        if (column == null || !(expression instanceof Literal<?> literal)) {
            throw new IllegalArgumentException("not a literal");
        }
        if (literal.value() == null) {
            return null;
        }
        DataType expected = LakestreamTypes.sparkType(column.name(), column.type());
        if (!literal.dataType().sameType(expected)) {
            throw new IllegalArgumentException("literal type differs");
        }
        Object value = literal.value();
        return switch (column.type().typeId()) {
            case STRING -> ((UTF8String) value).toString();
            case DECIMAL -> {
                BigDecimal decimal = ((org.apache.spark.sql.types.Decimal) value).toJavaBigDecimal();
                yield decimal.setScale(((Types.DecimalType) column.type()).scale(), RoundingMode.UNNECESSARY);
            }
            // dates are days (Integer) and timestamps microseconds (Long), as Iceberg literals take them
            default -> value;
        };
    }
}
