package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

import io.airlift.slice.Slice;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;

/**
 * Turns Trino's filter into an Iceberg expression. The union read prunes buckets, files and row
 * groups with it and applies it to every output row with SQL semantics, so a translated domain is
 * enforced exactly. Only types whose values and ordering are the same in both are translated
 * (floating point is not: {@code -0.0} and NaN compare differently); the rest is handed back.
 *
 * <p>A domain on a field of a row column ({@code r.a}, a dereference handle) is handed back too, since the union
 * read's row filter works on whole columns, but of the same types it also prunes: its Iceberg expression on the
 * nested field ({@code r.a}, whose column metrics Iceberg keeps by field id) leaves out lake files and row groups
 * in which no row can match. Pruning a lake row that fails the filter is safe for a primary-key merge too: such a
 * row is never returned, and a lake row never hides a log change; the log is read whole and Trino filters it.
 */
public final class LakestreamFilterTranslator {
    /** More ranges than this are not worth a long expression: the domain is handed back to the engine. */
    private static final int MAX_RANGES = 256;

    private LakestreamFilterTranslator() {}

    /**
     * @param enforced the part the connector enforces
     * @param pruning domains on fields of row columns that prune lake files and row groups; they are in {@code
     *     remaining} too, since the connector does not apply them to rows
     * @param remaining the part the engine must still apply
     */
    public record Split(
            TupleDomain<LakestreamColumnHandle> enforced,
            TupleDomain<LakestreamColumnHandle> pruning,
            TupleDomain<ColumnHandle> remaining) {
        public Split {
            requireNonNull(enforced, "enforced is null");
            requireNonNull(pruning, "pruning is null");
            requireNonNull(remaining, "remaining is null");
        }
    }

    public static Split split(TupleDomain<ColumnHandle> summary) {
        if (summary.isNone()) {
            return new Split(TupleDomain.none(), TupleDomain.all(), TupleDomain.all());
        }
        Map<LakestreamColumnHandle, Domain> enforced = new HashMap<>();
        Map<LakestreamColumnHandle, Domain> pruning = new HashMap<>();
        Map<ColumnHandle, Domain> remaining = new HashMap<>();
        summary.getDomains().orElseThrow().forEach((column, domain) -> {
            LakestreamColumnHandle handle = (LakestreamColumnHandle) column;
            if (isTranslatable(handle, domain)) {
                enforced.put(handle, domain);
                return;
            }
            if (isPrunable(handle, domain)) {
                pruning.put(handle, domain);
            }
            remaining.put(column, domain);
        });
        return new Split(
                TupleDomain.withColumnDomains(enforced),
                TupleDomain.withColumnDomains(pruning),
                TupleDomain.withColumnDomains(remaining));
    }

    static boolean isTranslatable(LakestreamColumnHandle column, Domain domain) {
        if (column.kind() == LakestreamColumnHandle.Kind.BUCKET) {
            // enforced by the split manager: every split holds one bucket's rows (or rows of no bucket)
            return true;
        }
        // a field of a row column (r.a) is only pruned with (isPrunable): the union read's row filter works on whole
        // columns
        return column.isUserColumn() && !column.isDereference() && hasExactValues(column, domain);
    }

    /** A domain on a field of a row column that lake files and row groups can be pruned with, by its field id. */
    static boolean isPrunable(LakestreamColumnHandle column, Domain domain) {
        return column.isUserColumn() && column.isDereference() && hasExactValues(column, domain);
    }

    private static boolean hasExactValues(LakestreamColumnHandle column, Domain domain) {
        if (!isExactType(column.type())) {
            return false;
        }
        ValueSet values = domain.getValues();
        return values.isNone() || values.isAll() || values.getRanges().getRangeCount() <= MAX_RANGES;
    }

    private static boolean isExactType(Type type) {
        return type.equals(BOOLEAN)
                || type.equals(INTEGER)
                || type.equals(BIGINT)
                || type.equals(DATE)
                || type instanceof DecimalType
                || (type instanceof VarcharType varchar && varchar.isUnbounded())
                || type.equals(TIMESTAMP_MICROS)
                || type.equals(TIMESTAMP_TZ_MICROS);
    }

    /**
     * The Iceberg expression of an enforced constraint (only translatable domains, see {@link #split}),
     * without the {@code $bucket} domain, which is enforced by choosing splits ({@link #bucketDomain}).
     */
    public static Expression toExpression(TupleDomain<LakestreamColumnHandle> constraint) {
        if (constraint.isNone()) {
            return Expressions.alwaysFalse();
        }
        Expression result = Expressions.alwaysTrue();
        for (Map.Entry<LakestreamColumnHandle, Domain> entry :
                constraint.getDomains().orElseThrow().entrySet()) {
            if (entry.getKey().isUserColumn()) {
                result = Expressions.and(result, toExpression(entry.getKey(), entry.getValue()));
            }
        }
        return result;
    }

    /** The enforced domain of {@code $bucket}, if the constraint restricts it. */
    public static Optional<Domain> bucketDomain(TupleDomain<LakestreamColumnHandle> constraint) {
        return constraint.getDomains().map(domains -> domains.get(LakestreamColumns.BUCKET));
    }

    private static Expression toExpression(LakestreamColumnHandle column, Domain domain) {
        // a field of a row column by its Iceberg name (r.a.b), which binds to the field id of the pinned schema
        String name = column.qualifiedName();
        if (domain.isAll()) {
            return Expressions.alwaysTrue();
        }
        if (domain.isNone()) {
            return Expressions.alwaysFalse();
        }
        if (domain.isOnlyNull()) {
            return Expressions.isNull(name);
        }
        Expression values;
        if (domain.getValues().isAll()) {
            values = Expressions.notNull(name);
        } else {
            values = rangesExpression(
                    name, column.type(), domain.getValues().getRanges().getOrderedRanges());
        }
        return domain.isNullAllowed() ? Expressions.or(Expressions.isNull(name), values) : values;
    }

    private static Expression rangesExpression(String name, Type type, List<Range> ranges) {
        List<Object> singleValues = new ArrayList<>();
        Expression result = Expressions.alwaysFalse();
        for (Range range : ranges) {
            if (range.isSingleValue()) {
                singleValues.add(icebergValue(type, range.getSingleValue()));
                continue;
            }
            Expression bounds = Expressions.notNull(name);
            if (!range.isLowUnbounded()) {
                Object low = icebergValue(type, range.getLowBoundedValue());
                bounds = Expressions.and(
                        bounds,
                        range.isLowInclusive()
                                ? Expressions.greaterThanOrEqual(name, low)
                                : Expressions.greaterThan(name, low));
            }
            if (!range.isHighUnbounded()) {
                Object high = icebergValue(type, range.getHighBoundedValue());
                bounds = Expressions.and(
                        bounds,
                        range.isHighInclusive()
                                ? Expressions.lessThanOrEqual(name, high)
                                : Expressions.lessThan(name, high));
            }
            result = Expressions.or(result, bounds);
        }
        if (singleValues.size() == 1) {
            result = Expressions.or(result, Expressions.equal(name, singleValues.getFirst()));
        } else if (!singleValues.isEmpty()) {
            result = Expressions.or(result, Expressions.in(name, singleValues));
        }
        return result;
    }

    /** A Trino native value as the Java value Iceberg literals take for the column's type. */
    static Object icebergValue(Type type, Object value) {
        if (type.equals(BOOLEAN) || type.equals(BIGINT)) {
            return value;
        }
        if (type.equals(INTEGER) || type.equals(DATE)) {
            return toIntExact((Long) value);
        }
        if (type instanceof DecimalType decimal) {
            return decimal.isShort()
                    ? BigDecimal.valueOf((Long) value, decimal.getScale())
                    : new BigDecimal(((Int128) value).toBigInteger(), decimal.getScale());
        }
        if (type instanceof VarcharType) {
            return ((Slice) value).toStringUtf8();
        }
        if (type.equals(TIMESTAMP_MICROS)) {
            // epoch microseconds: Iceberg reads a long literal of a timestamp column as micros
            return value;
        }
        if (type.equals(TIMESTAMP_TZ_MICROS)) {
            LongTimestampWithTimeZone timestamp = (LongTimestampWithTimeZone) value;
            return timestamp.getEpochMillis() * 1000 + timestamp.getPicosOfMilli() / 1_000_000;
        }
        throw new IllegalArgumentException("not a translatable type: " + type);
    }
}
