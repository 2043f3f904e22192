package io.lakestream.merge;

import static io.lakestream.common.LakestreamError.LAKE_FILE_UNREADABLE;

import io.lakestream.common.LakestreamException;

/**
 * The long keys of a batch taken from the keys of its whole lake file, kept by an engine (Trino's lake key
 * cache): position {@code p} of the batch is row {@code firstRow + p} of the file. When the file's keys
 * ascend and a batch keeps every row, {@link LakeRowSelector} finds the changed keys among the file's rows
 * by galloping searches instead of comparing every row.
 *
 * @param fileKeys the key of each row of the file
 * @param ascending whether {@code fileKeys} ascend along the file's rows (checked once, when they were read)
 * @param firstRow the file row of the batch's first position
 * @param rowCount the batch's rows
 */
public record FileRowKeys(long[] fileKeys, boolean ascending, long firstRow, int rowCount) implements LakeKeyAccessor {
    public FileRowKeys {
        if (firstRow < 0 || firstRow + rowCount > fileKeys.length) {
            throw new LakestreamException(
                    LAKE_FILE_UNREADABLE,
                    "A lake file has more rows than the %d of its cached keys (a batch of rows %d to %d): it was changed after its commit; restore the file or roll the lake back to a snapshot without it"
                            .formatted(fileKeys.length, firstRow, firstRow + rowCount));
        }
    }

    @Override
    public long[] longKeys(int[] positions, int size) {
        long[] keys = new long[rowCount];
        System.arraycopy(fileKeys, (int) firstRow, keys, 0, rowCount);
        return keys;
    }

    @Override
    public void encode(int position, KeyBuffer key) {
        throw new UnsupportedOperationException("cached file keys are long keys");
    }
}
