package io.lakestream.trino;

import io.lakestream.merge.KeyBuffer;
import io.lakestream.merge.KeyColumns;
import io.lakestream.merge.LakeKeyAccessor;
import io.trino.spi.block.Block;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import java.util.List;
import java.util.function.IntUnaryOperator;

/**
 * A key ({@link KeyColumns}: the primary key, or an equality delete file's columns) over the blocks of Trino's
 * lake pages: the {@link LakeKeyAccessor} that {@link io.lakestream.merge.LakeRowSelector} matches against
 * changed keys and equality deletes. Long keys come straight from a {@code bigint} block's array where they can;
 * other keys are encoded by {@link TrinoKeyEncoder}.
 */
final class LakeBlockKeys {
    private final int[] readColumns;
    private final Type longType;
    private final TrinoKeyEncoder encoder;
    private long[] longKeys = new long[0];

    /** @param readColumnOfField the read column (of the lake files) of each key column's field id */
    LakeBlockKeys(KeyColumns columns, IntUnaryOperator readColumnOfField) {
        this.readColumns = columns.fieldIds().stream()
                .mapToInt(readColumnOfField::applyAsInt)
                .toArray();
        List<Type> types =
                columns.types().stream().map(LakestreamTypes::toTrinoType).toList();
        this.longType = types.getFirst();
        this.encoder = new TrinoKeyEncoder(columns.types(), types);
    }

    /** The keys of {@code page}'s rows; {@code channelOf} gives the page channel of a read column. */
    LakeKeyAccessor over(SourcePage page, IntUnaryOperator channelOf) {
        Block[] blocks = new Block[readColumns.length];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = page.getBlock(channelOf.applyAsInt(readColumns[i]));
        }
        return new LakeKeyAccessor() {
            @Override
            public long[] longKeys(int[] positions, int size) {
                return LakeBlockKeys.this.longKeys(blocks[0], positions, size);
            }

            @Override
            public void encode(int position, KeyBuffer key) {
                encoder.encode(blocks, position, key);
            }
        };
    }

    private long[] longKeys(Block block, int[] positions, int size) {
        if (block instanceof LongArrayBlock longBlock && longBlock.getRawValuesOffset() == 0) {
            // bigint keys straight from the block's array (a lake row always has its key: no null check)
            return longBlock.getRawValues();
        }
        int positionCount = block.getPositionCount();
        if (longKeys.length < positionCount) {
            longKeys = new long[positionCount];
        }
        for (int i = 0; i < size; i++) {
            int position = positions[i];
            // a lake row always has its primary key: tiering writes no row without one
            longKeys[position] = longType.getLong(block, position);
        }
        return longKeys;
    }
}
