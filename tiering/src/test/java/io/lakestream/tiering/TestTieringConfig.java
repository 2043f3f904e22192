package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TestTieringConfig {
    @Test
    void defaults() {
        TieringConfig config = TieringConfig.defaults();
        assertThat(config.interval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxRecordsPerBucket()).isEqualTo(1_000_000);
        assertThat(config.targetFileSizeBytes()).isEqualTo(128L << 20);
        assertThat(config.retention()).isEqualTo(Duration.ofHours(24));
        assertThat(config.compactionDeleteFiles()).isEqualTo(20);
        assertThat(config.compactionSmallFiles()).isEqualTo(20);
        assertThat(config.compactionSmallFileBytes()).isEqualTo(16L << 20);
        assertThat(config.maxConsecutiveFailures()).isEqualTo(5);
        assertThat(config.toBuilder().build()).isEqualTo(config);
    }

    @Test
    void everyPropertyMaps() {
        TieringConfig config = TieringConfig.fromProperties(Map.of(
                "tiering.interval", "500ms",
                "tiering.max-records-per-bucket", "1234",
                "tiering.target-file-size", "64MB",
                "tiering.writer-threads", "3",
                "tiering.log-retention", "2h",
                "tiering.compaction.delete-files", "7",
                "tiering.compaction.small-files", "9",
                "tiering.compaction.small-file-size", "512KB",
                "tiering.max-consecutive-failures", "11",
                "unrelated.key", "ignored"));
        assertThat(config)
                .isEqualTo(new TieringConfig(
                        Duration.ofMillis(500), 1234, 64L << 20, 3, Duration.ofHours(2), 7, 9, 512L << 10, 11));
    }

    @Test
    void badValuesAreRejectedWithTheKey() {
        assertThatThrownBy(() -> TieringConfig.fromProperties(Map.of("tiering.intervall", "5s")))
                .isInstanceOf(LakestreamException.class)
                .hasMessageContaining("Unknown tiering property 'tiering.intervall'");
        assertThatThrownBy(() -> TieringConfig.fromProperties(Map.of("tiering.interval", "soon")))
                .hasMessageContaining("Invalid value 'soon' for tiering property 'tiering.interval'");
        assertThatThrownBy(() -> TieringConfig.fromProperties(Map.of("tiering.max-records-per-bucket", "0")))
                .hasMessageContaining("tiering.max-records-per-bucket must be at least 1");
    }
}
