package io.lakestream.plan;

import io.lakestream.bucket.BucketFunction;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;

/**
 * The buckets a filter can match. Within a conjunction, equality and IN predicates on every bucket
 * key column pin the rows to the buckets of those key values; an OR pins buckets when both sides
 * do. Anything else means all buckets.
 */
public final class BucketPruner {
    /** More key combinations than this are not worth enumerating: read all buckets. */
    private static final int MAX_COMBINATIONS = 4096;

    private final LakestreamTable table;
    private final List<String> bucketKey;

    private BucketPruner(LakestreamTable table) {
        this.table = table;
        this.bucketKey = table.definition().bucketKey();
    }

    /** The matching buckets, or empty when the filter does not restrict buckets. */
    public static Optional<Set<Integer>> buckets(LakestreamTable table, Expression filter) {
        if (table.bucketFunction().isEmpty()) {
            return Optional.empty();
        }
        return new BucketPruner(table).bucketsOf(filter);
    }

    private Optional<Set<Integer>> bucketsOf(Expression filter) {
        List<Expression> conjuncts = new ArrayList<>();
        collectConjuncts(filter, conjuncts);
        Map<String, Set<Object>> columnValues = new HashMap<>();
        Optional<Set<Integer>> result = Optional.empty();
        for (Expression conjunct : conjuncts) {
            if (conjunct.op() == Expression.Operation.OR) {
                Or or = (Or) conjunct;
                Optional<Set<Integer>> left = bucketsOf(or.left());
                Optional<Set<Integer>> right = bucketsOf(or.right());
                if (left.isPresent() && right.isPresent()) {
                    Set<Integer> union = new TreeSet<>(left.get());
                    union.addAll(right.get());
                    result = intersect(result, union);
                }
            } else {
                keyColumnValues(conjunct)
                        .ifPresent(values ->
                                values.forEach((column, set) -> columnValues.merge(column, set, BucketPruner::retain)));
            }
        }
        if (columnValues.keySet().containsAll(bucketKey)) {
            Optional<Set<Integer>> fromKeys = enumerate(columnValues);
            if (fromKeys.isPresent()) {
                result = intersect(result, fromKeys.get());
            }
        }
        return result;
    }

    private static void collectConjuncts(Expression filter, List<Expression> conjuncts) {
        if (filter.op() == Expression.Operation.AND) {
            collectConjuncts(((And) filter).left(), conjuncts);
            collectConjuncts(((And) filter).right(), conjuncts);
        } else {
            conjuncts.add(filter);
        }
    }

    private Optional<Map<String, Set<Object>>> keyColumnValues(Expression predicate) {
        if ((predicate.op() != Expression.Operation.EQ && predicate.op() != Expression.Operation.IN)
                || !(predicate instanceof UnboundPredicate<?> unbound)
                || !bucketKey.contains(unbound.ref().name())) {
            return Optional.empty();
        }
        String column = unbound.ref().name();
        Type type = table.definition().schema().findType(column);
        List<? extends Literal<?>> literals =
                unbound.op() == Expression.Operation.EQ ? List.of(unbound.literal()) : unbound.literals();
        Set<Object> values = new HashSet<>();
        for (Literal<?> literal : literals) {
            Literal<?> converted = literal.to(type);
            if (converted == null) {
                // a literal that cannot be a value of the column matches nothing in it
                continue;
            }
            values.add(converted.value());
        }
        return Optional.of(Map.of(column, values));
    }

    private Optional<Set<Integer>> enumerate(Map<String, Set<Object>> columnValues) {
        long combinations = 1;
        for (String column : bucketKey) {
            combinations *= columnValues.get(column).size();
        }
        if (combinations > MAX_COMBINATIONS) {
            return Optional.empty();
        }
        Set<Integer> buckets = new TreeSet<>();
        enumerate(
                columnValues,
                0,
                new Object[bucketKey.size()],
                table.bucketFunction().orElseThrow(),
                buckets);
        return Optional.of(buckets);
    }

    private void enumerate(
            Map<String, Set<Object>> values, int index, Object[] key, BucketFunction function, Set<Integer> buckets) {
        if (index == bucketKey.size()) {
            buckets.add(function.bucket(key.clone()));
            return;
        }
        for (Object value : values.get(bucketKey.get(index))) {
            key[index] = value;
            enumerate(values, index + 1, key, function, buckets);
        }
    }

    private static Optional<Set<Integer>> intersect(Optional<Set<Integer>> current, Set<Integer> buckets) {
        if (current.isEmpty()) {
            return Optional.of(buckets);
        }
        Set<Integer> both = new TreeSet<>(current.get());
        both.retainAll(buckets);
        return Optional.of(both);
    }

    private static Set<Object> retain(Set<Object> left, Set<Object> right) {
        Set<Object> both = new HashSet<>(left);
        both.retainAll(right);
        return both;
    }
}
