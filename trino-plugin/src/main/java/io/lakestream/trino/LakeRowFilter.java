package io.lakestream.trino;

import static io.trino.spi.type.TypeUtils.readNativeValue;

import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.SortedRangeSet;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * Applies the filter the connector enforces (its domains, one per column) to the rows of a page
 * with SQL semantics: a NULL passes only a domain that allows NULL, a value only a domain that
 * contains it. The same result as the union split reader's filter, since both evaluate the same
 * domains.
 */
final class LakeRowFilter {
    /** A domain on one read column. */
    record ColumnDomain(int readColumn, Type type, Domain domain, LongRanges longRanges) {
        ColumnDomain(int readColumn, Type type, Domain domain) {
            this(readColumn, type, domain, LongRanges.of(type, domain.getValues()));
        }
    }

    /** The ranges of a domain over a type whose values are longs, as arrays (null for other types). */
    record LongRanges(long[] lows, long[] highs) {
        static LongRanges of(Type type, ValueSet values) {
            if (type.getJavaType() != long.class || !(values instanceof SortedRangeSet ranges) || values.isAll()) {
                return null;
            }
            List<Range> ordered = ranges.getOrderedRanges();
            long[] lows = new long[ordered.size()];
            long[] highs = new long[ordered.size()];
            for (int i = 0; i < ordered.size(); i++) {
                Range range = ordered.get(i);
                if (range.isLowUnbounded()) {
                    lows[i] = Long.MIN_VALUE;
                } else {
                    long low = (Long) range.getLowBoundedValue();
                    if (!range.isLowInclusive()) {
                        if (low == Long.MAX_VALUE) {
                            return null;
                        }
                        low++;
                    }
                    lows[i] = low;
                }
                if (range.isHighUnbounded()) {
                    highs[i] = Long.MAX_VALUE;
                } else {
                    long high = (Long) range.getHighBoundedValue();
                    if (!range.isHighInclusive()) {
                        if (high == Long.MIN_VALUE) {
                            return null;
                        }
                        high--;
                    }
                    highs[i] = high;
                }
            }
            return new LongRanges(lows, highs);
        }

        boolean contains(long value) {
            for (int i = 0; i < lows.length; i++) {
                if (value < lows[i]) {
                    return false; // ranges are ordered and disjoint
                }
                if (value <= highs[i]) {
                    return true;
                }
            }
            return false;
        }
    }

    private final List<ColumnDomain> domains;

    LakeRowFilter(List<ColumnDomain> domains) {
        this.domains = List.copyOf(domains);
    }

    boolean isEmpty() {
        return domains.isEmpty();
    }

    /**
     * Narrows {@code positions[0, size)} in place to the rows that pass the filter; the page itself is not
     * changed (the caller selects the positions left once every filter ran).
     *
     * @param channelOf the page channel of a read column, -1 if the file does not have it (NULL)
     * @return the rows left
     */
    int retain(SourcePage page, IntUnaryOperator channelOf, int[] positions, int size) {
        for (ColumnDomain column : domains) {
            int channel = channelOf.applyAsInt(column.readColumn());
            Domain domain = column.domain();
            if (channel < 0) {
                if (!domain.isNullAllowed()) {
                    size = 0;
                }
                continue;
            }
            if (size == 0) {
                break;
            }
            Block block = page.getBlock(channel);
            ValueSet values = domain.getValues();
            boolean nullAllowed = domain.isNullAllowed();
            int kept = 0;
            LongRanges ranges = column.longRanges();
            if (ranges != null) {
                // values held as a long (integer, bigint, date, short decimal, timestamp): no boxing
                Type type = column.type();
                for (int i = 0; i < size; i++) {
                    int position = positions[i];
                    boolean matches =
                            block.isNull(position) ? nullAllowed : ranges.contains(type.getLong(block, position));
                    if (matches) {
                        positions[kept++] = position;
                    }
                }
            } else {
                for (int i = 0; i < size; i++) {
                    int position = positions[i];
                    boolean matches = block.isNull(position)
                            ? nullAllowed
                            : values.containsValue(readNativeValue(column.type(), block, position));
                    if (matches) {
                        positions[kept++] = position;
                    }
                }
            }
            size = kept;
        }
        return size;
    }
}
