package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_BAD_DATA;
import static java.util.Objects.requireNonNull;

import io.lakestream.merge.ChangedEncodedKeys;
import io.lakestream.merge.ChangedKeys;
import io.lakestream.merge.ChangedLongKeys;
import io.lakestream.merge.KeyBuffer;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * The lake half of a merge by key on Trino pages: drops the lake rows whose primary key the split's
 * log tail changes (a newer version or a delete hides them). The tail's winning rows are returned
 * after the lake rows, see {@link LakeParquetMergePageSource}. The same matching drops the rows an
 * Iceberg equality delete file removes ({@link LakeFileDeletes}): its rows are the keys.
 */
final class HiddenLakeKeys {
    private final ChangedKeys changedKeys;
    private final int[] keyReadColumns;
    private final List<Type> keyTypes;
    private final TrinoKeyEncoder encoder;
    private final KeyBuffer key = new KeyBuffer();
    private long[] longKeys = new long[0];
    private long hiddenRows;

    /**
     * @param keyReadColumns the read columns of the primary key columns in the lake files, in key order
     * @param icebergKeyTypes the key columns' Iceberg types
     * @param keyTypes their Trino types
     */
    HiddenLakeKeys(
            ChangedKeys changedKeys,
            int[] keyReadColumns,
            List<org.apache.iceberg.types.Type> icebergKeyTypes,
            List<Type> keyTypes) {
        this.changedKeys = requireNonNull(changedKeys, "changedKeys is null");
        this.keyReadColumns = keyReadColumns.clone();
        this.keyTypes = List.copyOf(keyTypes);
        this.encoder = new TrinoKeyEncoder(icebergKeyTypes, keyTypes);
    }

    /**
     * Narrows {@code positions[0, size)} in place to the rows whose key the tail does not change; the page
     * itself is not changed (the caller selects the positions left).
     *
     * @param channelOf the page channel of a read column
     * @return the rows left
     */
    int retain(SourcePage page, IntUnaryOperator channelOf, int[] positions, int size) {
        if (size == 0 || changedKeys.size() == 0) {
            return size;
        }
        Block[] keyBlocks = new Block[keyReadColumns.length];
        for (int i = 0; i < keyBlocks.length; i++) {
            keyBlocks[i] = page.getBlock(channelOf.applyAsInt(keyReadColumns[i]));
        }
        int kept = switch (changedKeys) {
            case ChangedLongKeys longs -> retainLongs(longs, keyBlocks[0], positions, size);
            case ChangedEncodedKeys encoded -> retainEncoded(encoded, keyBlocks, positions, size);
        };
        hiddenRows += size - kept;
        return kept;
    }

    /**
     * {@link #retain} with the keys of the page's rows taken from the keys of its whole file (a
     * {@link ChangedLongKeys} key): position {@code p} of the page is row {@code firstRow + p} of the file.
     *
     * @param fileKeys the key of each row of the file ({@link LakeKeyCache})
     * @param fileKeysAscend whether {@code fileKeys} ascend along the file's rows
     * @param positionCount the page's rows
     */
    int retainByFileRow(
            long[] fileKeys, boolean fileKeysAscend, long firstRow, int positionCount, int[] positions, int size) {
        if (size == 0 || changedKeys.size() == 0) {
            return size;
        }
        if (firstRow < 0 || firstRow + positionCount > fileKeys.length) {
            throw new TrinoException(
                    LAKESTREAM_BAD_DATA,
                    "A lake file has more rows than the %d of its cached keys (a page of rows %d to %d): it was changed after its commit"
                            .formatted(fileKeys.length, firstRow, firstRow + positionCount));
        }
        ChangedLongKeys longs = (ChangedLongKeys) changedKeys;
        if (fileKeysAscend && size == positionCount) {
            // every row of the page, in key order: find the changed keys among the file's rows, no copy
            int from = (int) firstRow;
            int kept = longs.retainUnchangedInAscendingRange(fileKeys, from, from + positionCount, positions);
            hiddenRows += size - kept;
            return kept;
        }
        if (longKeys.length < positionCount) {
            longKeys = new long[positionCount];
        }
        System.arraycopy(fileKeys, (int) firstRow, longKeys, 0, positionCount);
        int kept = longs.retainUnchanged(longKeys, positions, size);
        hiddenRows += size - kept;
        return kept;
    }

    private int retainLongs(ChangedLongKeys longs, Block block, int[] positions, int size) {
        if (block instanceof LongArrayBlock longBlock && longBlock.getRawValuesOffset() == 0) {
            // bigint keys straight from the block's array (a lake row always has its key: no null check)
            return longs.retainUnchanged(longBlock.getRawValues(), positions, size);
        }
        int positionCount = block.getPositionCount();
        if (longKeys.length < positionCount) {
            longKeys = new long[positionCount];
        }
        Type type = keyTypes.getFirst();
        for (int i = 0; i < size; i++) {
            int position = positions[i];
            // a lake row always has its primary key: tiering writes no row without one
            longKeys[position] = type.getLong(block, position);
        }
        return longs.retainUnchanged(longKeys, positions, size);
    }

    private int retainEncoded(ChangedEncodedKeys encoded, Block[] keyBlocks, int[] positions, int size) {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            int position = positions[i];
            encoder.encode(keyBlocks, position, key);
            if (!encoded.contains(key)) {
                positions[kept++] = position;
            }
        }
        return kept;
    }

    /** True if the keys are primitive longs (a primary key of one long-like column): {@link #retainByFileRow} applies. */
    boolean matchesLongs() {
        return changedKeys instanceof ChangedLongKeys;
    }

    /** Lake rows whose keys were matched against the changed keys in key order ({@link ChangedLongKeys}). */
    long rowsInKeyOrder() {
        return changedKeys instanceof ChangedLongKeys longs ? longs.rowsInKeyOrder() : 0;
    }

    /** Lake rows dropped so far because the tail changes their key. */
    long hiddenRows() {
        return hiddenRows;
    }
}
