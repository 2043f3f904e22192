package io.lakestream.trino;

import static java.util.Objects.requireNonNull;

import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlock;
import io.trino.spi.block.Block;
import io.trino.spi.block.MapBlock;
import io.trino.spi.block.RowBlock;
import io.trino.spi.block.ValueBlock;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.connector.SourcePage;
import java.util.function.ObjLongConsumer;

/**
 * A page of lake rows: the output channels of a reader's page, narrowed to the rows the merge, Iceberg's
 * deletes and the filter keep. Blocks stay lazy until the engine asks for them, and each is narrowed when
 * loaded: a fixed-width block is copied (the operators above then read flat arrays, as on the fast path),
 * a variable-width one or an array, map or row is seen through a dictionary of its positions (copying its
 * bytes costs more than the indirection).
 */
final class SelectedLakePage implements SourcePage {
    /** Makes an output channel's block from the reader's page, every row of it. */
    @FunctionalInterface
    interface Channel {
        Block block(int channel);
    }

    private final SourcePage page;
    private final Channel channels;
    private final Block[] loaded;
    /** The selected rows of the reader's page, or {@code null} for its first {@link #size} rows. */
    private int[] positions;

    private int size;

    /** Every row of {@code page}. */
    SelectedLakePage(SourcePage page, int channelCount, Channel channels) {
        this(page, channelCount, channels, null, page.getPositionCount());
    }

    /**
     * @param positions the rows of {@code page} to keep, ascending, in {@code positions[0, size)}; {@code null}
     *     for the first {@code size} rows. Kept until every block is loaded: not to be changed by the caller.
     */
    SelectedLakePage(SourcePage page, int channelCount, Channel channels, int[] positions, int size) {
        this.page = requireNonNull(page, "page is null");
        this.channels = requireNonNull(channels, "channels is null");
        this.loaded = new Block[channelCount];
        this.positions = positions;
        this.size = size;
    }

    @Override
    public int getPositionCount() {
        return size;
    }

    @Override
    public long getSizeInBytes() {
        return page.getSizeInBytes();
    }

    @Override
    public long getRetainedSizeInBytes() {
        return page.getRetainedSizeInBytes();
    }

    @Override
    public void retainedBytesForEachPart(ObjLongConsumer<Object> consumer) {
        page.retainedBytesForEachPart(consumer);
    }

    @Override
    public int getChannelCount() {
        return loaded.length;
    }

    @Override
    public Block getBlock(int channel) {
        Block block = loaded[channel];
        if (block == null) {
            block = select(channels.block(channel));
            loaded[channel] = block;
        }
        return block;
    }

    private Block select(Block block) {
        if (positions == null) {
            return size == block.getPositionCount() ? block : block.getRegion(0, size);
        }
        if (block instanceof ValueBlock && !(block instanceof VariableWidthBlock) && !isNested(block)) {
            return block.copyPositions(positions, 0, size);
        }
        return block.getPositions(positions, 0, size);
    }

    /** An array, map or row block: copying one copies every value under it, a dictionary only its positions. */
    private static boolean isNested(Block block) {
        return block instanceof RowBlock || block instanceof ArrayBlock || block instanceof MapBlock;
    }

    @Override
    public Page getPage() {
        Block[] blocks = new Block[loaded.length];
        for (int channel = 0; channel < blocks.length; channel++) {
            blocks[channel] = getBlock(channel);
        }
        return new Page(size, blocks);
    }

    /** Narrows the page further: the blocks loaded so far at once, the others when they are loaded. */
    @Override
    public void selectPositions(int[] selected, int offset, int count) {
        for (int channel = 0; channel < loaded.length; channel++) {
            if (loaded[channel] != null) {
                loaded[channel] = loaded[channel].getPositions(selected, offset, count);
            }
        }
        int[] rows = new int[count];
        for (int i = 0; i < count; i++) {
            int position = selected[offset + i];
            rows[i] = positions == null ? position : positions[position];
        }
        positions = rows;
        size = count;
    }
}
