package io.lakestream.tiering.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(Seeds.class)
class TestGrowableBytes {
    @Test
    void growsToBelowHumongousFirstAndPastItOnlyWhenNeeded() {
        GrowableBytes bytes = new GrowableBytes(1024);
        byte[] expected = new byte[GrowableBytes.BELOW_HUMONGOUS + 4096];
        Seeds.random(3).nextBytes(expected);
        // a page of strings of about 300 KB: doubling from 256 KB would have allocated 512 KB, a humongous array
        for (int at = 0; at < 300 << 10; at += 100) {
            bytes.write(expected, at, 100);
        }
        assertThat(bytes.array().length).isEqualTo(GrowableBytes.BELOW_HUMONGOUS);
        bytes.write(expected, 300 << 10, GrowableBytes.BELOW_HUMONGOUS - (300 << 10));
        assertThat(bytes.array().length).isEqualTo(GrowableBytes.BELOW_HUMONGOUS);
        bytes.write(expected, GrowableBytes.BELOW_HUMONGOUS, 4096);
        assertThat(bytes.array().length).isGreaterThanOrEqualTo(expected.length);
        assertThat(bytes.size()).isEqualTo(expected.length);
        assertThat(java.util.Arrays.copyOf(bytes.array(), bytes.size())).isEqualTo(expected);
    }
}
