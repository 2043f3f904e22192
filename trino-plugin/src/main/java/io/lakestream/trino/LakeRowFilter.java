package io.lakestream.trino;

import static io.trino.spi.type.TypeUtils.readNativeValue;

import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
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
    record ColumnDomain(int readColumn, Type type, Domain domain) {}

    private final List<ColumnDomain> domains;

    LakeRowFilter(List<ColumnDomain> domains) {
        this.domains = List.copyOf(domains);
    }

    boolean isEmpty() {
        return domains.isEmpty();
    }

    /**
     * Keeps only the rows that pass the filter ({@link SourcePage#selectPositions}).
     *
     * @param channelOf the page channel of a read column, -1 if the file does not have it (NULL)
     * @return the rows left
     */
    int apply(SourcePage page, IntUnaryOperator channelOf) {
        int positionCount = page.getPositionCount();
        int[] positions = null;
        int size = positionCount;
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
            if (positions == null) {
                positions = new int[positionCount];
                for (int i = 0; i < positionCount; i++) {
                    positions[i] = i;
                }
            }
            int kept = 0;
            for (int i = 0; i < size; i++) {
                int position = positions[i];
                boolean matches = block.isNull(position)
                        ? nullAllowed
                        : values.containsValue(readNativeValue(column.type(), block, position));
                if (matches) {
                    positions[kept++] = position;
                }
            }
            size = kept;
        }
        if (size < positionCount && size > 0) {
            page.selectPositions(positions, 0, size);
        }
        return size;
    }
}
