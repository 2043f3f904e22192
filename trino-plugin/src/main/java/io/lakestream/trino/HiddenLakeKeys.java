package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.lakestream.merge.ChangedLongKeys;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import java.util.function.IntUnaryOperator;

/**
 * The lake half of a merge by key on Trino pages: drops the lake rows whose primary key the split's
 * log tail changes (a newer version or a delete hides them). The tail's winning rows are returned
 * after the lake rows, see {@link LakeParquetMergePageSource}.
 */
final class HiddenLakeKeys {
    private final ChangedLongKeys changedKeys;
    private final int keyReadColumn;
    private final Type keyType;
    private long[] keys = new long[0];
    private long hiddenRows;

    /**
     * @param keyReadColumn the read column of the primary key in the lake files
     * @param keyType its Trino type (integer, bigint or date: a value held as a long)
     */
    HiddenLakeKeys(ChangedLongKeys changedKeys, int keyReadColumn, Type keyType) {
        this.changedKeys = requireNonNull(changedKeys, "changedKeys is null");
        this.keyReadColumn = keyReadColumn;
        this.keyType = requireNonNull(keyType, "keyType is null");
    }

    int keyReadColumn() {
        return keyReadColumn;
    }

    /**
     * Keeps only the rows whose key the tail does not change ({@link SourcePage#selectPositions}).
     *
     * @param channelOf the page channel of a read column
     * @return the rows left
     */
    int apply(SourcePage page, IntUnaryOperator channelOf) {
        int positionCount = page.getPositionCount();
        if (positionCount == 0 || changedKeys.size() == 0) {
            return positionCount;
        }
        Block block = page.getBlock(channelOf.applyAsInt(keyReadColumn));
        if (keys.length < positionCount) {
            keys = new long[positionCount];
        }
        // a new array per page: the page may keep the selected positions until its blocks are loaded
        int[] positions = new int[positionCount];
        for (int position = 0; position < positionCount; position++) {
            // a lake row always has its primary key: tiering writes no row without one
            keys[position] = keyType.getLong(block, position);
            positions[position] = position;
        }
        int kept = changedKeys.retainUnchanged(keys, positions, positionCount);
        hiddenRows += positionCount - kept;
        if (kept < positionCount && kept > 0) {
            page.selectPositions(positions, 0, kept);
        }
        return kept;
    }

    /** Lake rows dropped so far because the tail changes their key. */
    long hiddenRows() {
        return hiddenRows;
    }
}
