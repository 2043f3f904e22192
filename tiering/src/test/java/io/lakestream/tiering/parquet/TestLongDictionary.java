package io.lakestream.tiering.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LongDictionary} against a map: the same ids in order of first appearance, whether a value is found
 * through the window around the chunk's first value or through the hash table, across chunks (cleared and
 * reused) and at the ends of the long range, where the distance to the window wraps around.
 */
@ExtendWith(Seeds.class)
class TestLongDictionary {
    @Test
    void idsAreThoseOfFirstAppearanceInsideAndOutsideTheWindow() {
        Random random = Seeds.random(11);
        LongDictionary dictionary = new LongDictionary(8);
        for (int chunk = 0; chunk < 40; chunk++) {
            dictionary.clear();
            Map<Long, Integer> expected = new LinkedHashMap<>();
            long first = randomValue(random, 0, random.nextInt(6));
            int values = 1 + random.nextInt(20_000);
            for (int i = 0; i < values; i++) {
                long value = i == 0 ? first : randomValue(random, first, random.nextInt(6));
                int id = dictionary.id(value);
                Integer known = expected.putIfAbsent(value, expected.size());
                assertThat(id)
                        .as("chunk %s value %s", chunk, value)
                        .isEqualTo(known == null ? expected.size() - 1 : known);
            }
            assertThat(dictionary.size()).isEqualTo(expected.size());
            assertThat(dictionary.byteSize()).isEqualTo(8L * expected.size());
            GrowableBytes page = new GrowableBytes(16);
            dictionary.writePage(page);
            int id = 0;
            for (long value : expected.keySet()) {
                assertThat(GrowableBytes.readLong(page.array(), 8 * id++)).isEqualTo(value);
            }
        }
    }

    @Test
    void intPagesHoldTheLowFourBytes() {
        LongDictionary dictionary = new LongDictionary(4);
        long[] values = {7, -3, 7, Integer.MIN_VALUE, Integer.MAX_VALUE, -3, 5000, 7};
        for (long value : values) {
            dictionary.id(value);
        }
        GrowableBytes page = new GrowableBytes(16);
        dictionary.writePage(page);
        assertThat(page.size()).isEqualTo(4 * 5);
        int[] expected = {7, -3, Integer.MIN_VALUE, Integer.MAX_VALUE, 5000};
        for (int i = 0; i < expected.length; i++) {
            assertThat(GrowableBytes.readInt(page.array(), 4 * i)).isEqualTo(expected[i]);
        }
    }

    /** Values of one of several kinds: near {@code first} (in the window or just outside), extremes, any. */
    private static long randomValue(Random random, long first, int kind) {
        return switch (kind) {
            case 0 -> first + random.nextInt(LongDictionary.WINDOW) - LongDictionary.WINDOW / 2;
            case 1 -> first + random.nextInt(4 * LongDictionary.WINDOW) - 2 * LongDictionary.WINDOW;
            case 2 -> Long.MIN_VALUE + random.nextInt(3 * LongDictionary.WINDOW);
            case 3 -> Long.MAX_VALUE - random.nextInt(3 * LongDictionary.WINDOW);
            case 4 -> random.nextLong();
            default -> random.nextInt(200);
        };
    }
}
