package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class TestKeyIndex {
    @Test
    void behavesLikeAHashMapOverManyKeys() {
        Random random = Seeds.random(7);
        KeyIndex index = new KeyIndex();
        Map<String, Long> oracle = new HashMap<>();
        KeyBuffer key = new KeyBuffer();
        for (int i = 0; i < 200_000; i++) {
            String text = "k" + random.nextInt(50_000) + "-".repeat(random.nextInt(3));
            encode(text, key);
            long value = random.nextLong() & Long.MAX_VALUE;
            Long previous = oracle.put(text, value);
            assertThat(index.put(key, value)).isEqualTo(previous == null ? -1 : previous);
        }
        assertThat(index.size()).isEqualTo(oracle.size());
        for (Map.Entry<String, Long> entry : oracle.entrySet()) {
            encode(entry.getKey(), key);
            assertThat(index.get(key)).isEqualTo(entry.getValue());
        }
        encode("absent", key);
        assertThat(index.contains(key)).isFalse();
        assertThat(index.get(key)).isEqualTo(-1);
    }

    @Test
    void keysDifferingOnlyInLengthAreDistinct() {
        KeyIndex index = new KeyIndex();
        KeyBuffer key = new KeyBuffer();
        key.reset();
        key.putVariable(new byte[] {0}, 0, 1);
        index.put(key, 1);
        key.reset();
        key.putVariable(new byte[] {0, 0}, 0, 2);
        assertThat(index.contains(key)).isFalse();
        key.reset();
        key.putLong(0);
        assertThat(index.contains(key)).isFalse();
    }

    private static void encode(String text, KeyBuffer key) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        key.reset();
        key.putVariable(bytes, 0, bytes.length);
    }
}
