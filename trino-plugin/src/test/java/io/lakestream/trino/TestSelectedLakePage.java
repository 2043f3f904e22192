package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

import io.airlift.slice.Slices;
import io.lakestream.testing.Seeds;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link SelectedLakePage} against the rows it must keep, over random pages and selections. */
@ExtendWith(Seeds.class)
final class TestSelectedLakePage {
    private static final List<Type> TYPES = List.of(BIGINT, VARCHAR, INTEGER);

    @Test
    void keepsExactlyTheSelectedRows() {
        long seed = Seeds.seed(20261202);
        Random random = new Random(seed);
        for (int round = 0; round < 300; round++) {
            String context = "seed %d, round %d".formatted(seed, round);
            int rows = 1 + random.nextInt(300);
            Page page = randomPage(random, rows);
            // the connector's selection: ascending positions, or the first rows (a limit)
            int[] positions = null;
            int size;
            if (random.nextInt(4) == 0) {
                size = 1 + random.nextInt(rows);
            } else {
                positions = new int[rows];
                size = 0;
                for (int position = 0; position < rows; position++) {
                    if (random.nextInt(5) > 0) {
                        positions[size++] = position;
                    }
                }
            }
            int[] expected = positions == null ? firstRows(size) : Arrays.copyOf(positions, size);
            SourcePage reader = SourcePage.create(page);
            // a constant channel after the page's own, made for every row of the reader's page
            SelectedLakePage.Channel channels = channel -> channel < TYPES.size()
                    ? reader.getBlock(channel)
                    : RunLengthEncodedBlock.create(BIGINT, 7L, reader.getPositionCount());
            SelectedLakePage selected = size == rows && positions == null
                    ? new SelectedLakePage(reader, TYPES.size() + 1, channels)
                    : new SelectedLakePage(reader, TYPES.size() + 1, channels, positions, size);
            // the engine may load some blocks, then narrow the page further (a filter it evaluates itself)
            int loadedFirst = random.nextInt(TYPES.size() + 1);
            for (int channel = 0; channel < loadedFirst; channel++) {
                selected.getBlock(channel);
            }
            if (random.nextBoolean() && size > 0) {
                int[] further = new int[size + 3];
                int count = 0;
                for (int i = 0; i < size; i++) {
                    if (random.nextBoolean()) {
                        further[3 + count++] = i;
                    }
                }
                selected.selectPositions(further, 3, count);
                int[] narrowed = new int[count];
                for (int i = 0; i < count; i++) {
                    narrowed[i] = expected[further[3 + i]];
                }
                expected = narrowed;
            }
            assertThat(selected.getPositionCount()).as(context).isEqualTo(expected.length);
            for (int channel = 0; channel < TYPES.size(); channel++) {
                Block block = selected.getBlock(channel);
                assertThat(block.getPositionCount()).as(context).isEqualTo(expected.length);
                for (int i = 0; i < expected.length; i++) {
                    assertThat(TYPES.get(channel).getObjectValue(block, i))
                            .as("%s, channel %d, row %d", context, channel, i)
                            .isEqualTo(TYPES.get(channel).getObjectValue(page.getBlock(channel), expected[i]));
                }
            }
            Block constant = selected.getBlock(TYPES.size());
            assertThat(constant.getPositionCount()).as(context).isEqualTo(expected.length);
            assertThat(selected.getPage().getPositionCount()).as(context).isEqualTo(expected.length);
        }
    }

    @Test
    void copiesFixedWidthBlocksAndSeesVariableWidthThroughADictionary() {
        Page page = randomPage(Seeds.random(1), 100);
        SourcePage reader = SourcePage.create(page);
        int[] positions = {1, 5, 9};
        SelectedLakePage selected = new SelectedLakePage(reader, TYPES.size(), reader::getBlock, positions, 3);
        assertThat(selected.getBlock(0)).isInstanceOf(LongArrayBlock.class);
        assertThat(selected.getBlock(1)).isInstanceOf(DictionaryBlock.class);
        // every row: the reader's blocks as they are
        SelectedLakePage all = new SelectedLakePage(reader, TYPES.size(), reader::getBlock);
        assertThat(all.getBlock(0)).isSameAs(page.getBlock(0));
    }

    private static Page randomPage(Random random, int rows) {
        List<Block> blocks = new ArrayList<>();
        for (Type type : TYPES) {
            BlockBuilder builder = type.createBlockBuilder(null, rows);
            for (int row = 0; row < rows; row++) {
                if (random.nextInt(10) == 0) {
                    builder.appendNull();
                } else if (type == VARCHAR) {
                    VARCHAR.writeSlice(builder, Slices.utf8Slice("v" + random.nextInt(1000)));
                } else {
                    type.writeLong(builder, random.nextInt());
                }
            }
            blocks.add(builder.build());
        }
        return new Page(rows, blocks.toArray(Block[]::new));
    }

    private static int[] firstRows(int size) {
        int[] rows = new int[size];
        Arrays.setAll(rows, i -> i);
        return rows;
    }
}
