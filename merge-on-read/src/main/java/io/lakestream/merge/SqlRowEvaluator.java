package io.lakestream.merge;

import java.util.Comparator;
import java.util.Set;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Bound;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Types;

/**
 * Evaluates a filter on a row with SQL's three-valued logic: a comparison with a null is unknown,
 * and a row is kept only when the filter is true. Iceberg's own {@code Evaluator} orders nulls first
 * ({@code null < 5} is true), which is right for pruning but not for returning rows to a SQL engine.
 */
public final class SqlRowEvaluator extends ExpressionVisitors.BoundVisitor<Boolean> {
    private final Expression bound;
    private StructLike row;

    public SqlRowEvaluator(Types.StructType struct, Expression filter) {
        this.bound = Binder.bind(struct, filter, false);
    }

    public boolean test(StructLike value) {
        this.row = value;
        return Boolean.TRUE.equals(ExpressionVisitors.visit(bound, this));
    }

    /** True unless the filter is false on the row: an unknown result counts (for checks that must not miss a row). */
    public boolean mayBeTrue(StructLike value) {
        this.row = value;
        return !Boolean.FALSE.equals(ExpressionVisitors.visit(bound, this));
    }

    @Override
    public Boolean alwaysTrue() {
        return true;
    }

    @Override
    public Boolean alwaysFalse() {
        return false;
    }

    @Override
    public Boolean not(Boolean result) {
        return result == null ? null : !result;
    }

    @Override
    public Boolean and(Boolean left, Boolean right) {
        if (Boolean.FALSE.equals(left) || Boolean.FALSE.equals(right)) {
            return false;
        }
        return left == null || right == null ? null : true;
    }

    @Override
    public Boolean or(Boolean left, Boolean right) {
        if (Boolean.TRUE.equals(left) || Boolean.TRUE.equals(right)) {
            return true;
        }
        return left == null || right == null ? null : false;
    }

    @Override
    public <T> Boolean isNull(Bound<T> term) {
        return term.eval(row) == null;
    }

    @Override
    public <T> Boolean notNull(Bound<T> term) {
        return term.eval(row) != null;
    }

    @Override
    public <T> Boolean isNaN(Bound<T> term) {
        T value = term.eval(row);
        return value == null ? null : isNaNValue(value);
    }

    @Override
    public <T> Boolean notNaN(Bound<T> term) {
        T value = term.eval(row);
        return value == null ? null : !isNaNValue(value);
    }

    @Override
    public <T> Boolean lt(Bound<T> term, Literal<T> literal) {
        Integer comparison = compare(term, literal);
        return comparison == null ? null : comparison < 0;
    }

    @Override
    public <T> Boolean ltEq(Bound<T> term, Literal<T> literal) {
        Integer comparison = compare(term, literal);
        return comparison == null ? null : comparison <= 0;
    }

    @Override
    public <T> Boolean gt(Bound<T> term, Literal<T> literal) {
        Integer comparison = compare(term, literal);
        return comparison == null ? null : comparison > 0;
    }

    @Override
    public <T> Boolean gtEq(Bound<T> term, Literal<T> literal) {
        Integer comparison = compare(term, literal);
        return comparison == null ? null : comparison >= 0;
    }

    @Override
    public <T> Boolean eq(Bound<T> term, Literal<T> literal) {
        Integer comparison = compare(term, literal);
        return comparison == null ? null : comparison == 0;
    }

    @Override
    public <T> Boolean notEq(Bound<T> term, Literal<T> literal) {
        Integer comparison = compare(term, literal);
        return comparison == null ? null : comparison != 0;
    }

    @Override
    public <T> Boolean in(Bound<T> term, Set<T> values) {
        T value = term.eval(row);
        return value == null ? null : values.contains(value);
    }

    @Override
    public <T> Boolean notIn(Bound<T> term, Set<T> values) {
        T value = term.eval(row);
        return value == null ? null : !values.contains(value);
    }

    @Override
    public <T> Boolean startsWith(Bound<T> term, Literal<T> literal) {
        T value = term.eval(row);
        return value == null
                ? null
                : value.toString().startsWith(literal.value().toString());
    }

    @Override
    public <T> Boolean notStartsWith(Bound<T> term, Literal<T> literal) {
        Boolean startsWith = startsWith(term, literal);
        return startsWith == null ? null : !startsWith;
    }

    private <T> Integer compare(Bound<T> term, Literal<T> literal) {
        T value = term.eval(row);
        if (value == null) {
            return null;
        }
        Comparator<T> comparator = literal.comparator();
        return comparator.compare(value, literal.value());
    }

    private static boolean isNaNValue(Object value) {
        return value instanceof Double d ? d.isNaN() : value instanceof Float f && f.isNaN();
    }
}
