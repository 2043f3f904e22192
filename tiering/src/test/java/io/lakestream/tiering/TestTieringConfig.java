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
        assertThat(config.compactionSortMaxRecords()).isEqualTo(1_000_000);
        assertThat(config.maxConsecutiveFailures()).isEqualTo(5);
        assertThat(config.orphanAge()).isEqualTo(Duration.ofHours(1));
        assertThat(config.orphanSweepInterval()).isEqualTo(Duration.ofHours(1));
        assertThat(config.lakeOrphanAge()).isEqualTo(Duration.ofDays(3));
        assertThat(config.toBuilder().build()).isEqualTo(config);
    }

    @Test
    void everyPropertyMaps() {
        TieringConfig config = TieringConfig.fromProperties(Map.ofEntries(
                Map.entry("tiering.interval", "500ms"),
                Map.entry("tiering.max-records-per-bucket", "1234"),
                Map.entry("tiering.target-file-size", "64MB"),
                Map.entry("tiering.writer-threads", "3"),
                Map.entry("tiering.log-retention", "2h"),
                Map.entry("tiering.compaction.delete-files", "7"),
                Map.entry("tiering.compaction.small-files", "9"),
                Map.entry("tiering.compaction.small-file-size", "512KB"),
                Map.entry("tiering.compaction.sort-max-records", "4321"),
                Map.entry("tiering.max-consecutive-failures", "11"),
                Map.entry("tiering.orphan-age", "2h"),
                Map.entry("tiering.orphan-sweep-interval", "15m"),
                Map.entry("tiering.lake-orphan-age", "7d"),
                Map.entry("unrelated.key", "ignored")));
        assertThat(config)
                .isEqualTo(new TieringConfig(
                        Duration.ofMillis(500),
                        1234,
                        64L << 20,
                        3,
                        Duration.ofHours(2),
                        7,
                        9,
                        512L << 10,
                        4321,
                        11,
                        Duration.ofHours(2),
                        Duration.ofMinutes(15),
                        Duration.ofDays(7)));
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
        assertThatThrownBy(() -> TieringConfig.fromProperties(Map.of("tiering.compaction.sort-max-records", "-1")))
                .hasMessageContaining("tiering.compaction.sort-max-records must not be negative");
        assertThatThrownBy(() -> TieringConfig.fromProperties(Map.of("tiering.orphan-age", "1m")))
                .hasMessageContaining("tiering.orphan-age must be at least 10m");
        assertThatThrownBy(() -> TieringConfig.fromProperties(Map.of("tiering.lake-orphan-age", "12h")))
                .hasMessageContaining("tiering.lake-orphan-age must be at least 1d");
    }
}
