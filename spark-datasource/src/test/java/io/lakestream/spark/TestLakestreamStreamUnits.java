package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.plan.LogRange;
import io.lakestream.spark.LakestreamStreamConf.StartMode;
import io.lakestream.spark.LakestreamStreamOffset.Phase;
import io.lakestream.spark.LakestreamStreamOffset.Position;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import org.junit.jupiter.api.Test;

/** The stream's offsets (readable JSON in the checkpoint), options and admission limits, without Spark. */
class TestLakestreamStreamUnits {
    private static final UUID TABLE = UUID.fromString("6f1c1d40-0000-4000-8000-000000000022");

    @Test
    void offsetIsReadableJsonAndRoundTrips() {
        LakestreamStreamOffset offset = new LakestreamStreamOffset(new Position(
                LakestreamStreamOffset.FORMAT,
                TABLE,
                Phase.CHANGES,
                42,
                OptionalLong.of(7),
                new OffsetMap(Map.of(0, 120L, 1, 97L))));
        assertThat(offset.json())
                .isEqualTo(
                        "{\"format\":1,\"tableUuid\":\"6f1c1d40-0000-4000-8000-000000000022\",\"phase\":\"CHANGES\",\"logVersion\":42,\"lakeSnapshotId\":7,\"offsets\":{\"0\":120,\"1\":97}}");
        assertThat(LakestreamStreamOffset.fromJson(offset.json()).position()).isEqualTo(offset.position());
        // Spark compares offsets by their JSON
        assertThat(LakestreamStreamOffset.fromJson(offset.json())).isEqualTo(offset);

        LakestreamStreamOffset snapshot = new LakestreamStreamOffset(new Position(
                LakestreamStreamOffset.FORMAT, TABLE, Phase.SNAPSHOT, 3, OptionalLong.empty(), OffsetMap.EMPTY));
        assertThat(snapshot.json()).contains("\"phase\":\"SNAPSHOT\"", "\"lakeSnapshotId\":null");
        assertThat(LakestreamStreamOffset.fromJson(snapshot.json()).isSnapshot())
                .isTrue();
    }

    /**
     * A log kept per (partition, bucket): the offsets hold {@code "<partitionId>/<bucket>"} keys in format 1, and a
     * batch's ranges cover every (partition, bucket) of its end, a partition new since its start from offset 0.
     */
    @Test
    void offsetsOfAPartitionedLogAndTheRangesBetweenThem() {
        OffsetMap start = new OffsetMap(
                Map.of(0, 0L, 1, 0L), Map.of(new PartitionBucket(0, 0), 5L, new PartitionBucket(0, 1), 3L));
        LakestreamStreamOffset offset = new LakestreamStreamOffset(
                new Position(LakestreamStreamOffset.FORMAT, TABLE, Phase.CHANGES, 9, OptionalLong.empty(), start));
        assertThat(offset.json())
                .isEqualTo(
                        "{\"format\":1,\"tableUuid\":\"6f1c1d40-0000-4000-8000-000000000022\",\"phase\":\"CHANGES\",\"logVersion\":9,\"lakeSnapshotId\":null,\"offsets\":{\"0\":0,\"1\":0,\"0/0\":5,\"0/1\":3}}");
        assertThat(LakestreamStreamOffset.fromJson(offset.json())).isEqualTo(offset);

        OffsetMap end = new OffsetMap(
                Map.of(0, 0L, 1, 0L),
                Map.of(
                        new PartitionBucket(0, 0), 8L,
                        new PartitionBucket(0, 1), 3L,
                        new PartitionBucket(1, 1), 4L));
        assertThat(StreamRanges.between(start, end))
                .containsExactly(
                        new LogRange(new PartitionBucket(0, 0), 5, 8), new LogRange(new PartitionBucket(1, 1), 0, 4));
        assertThat(StreamRanges.rows(start, end)).isEqualTo(7);
        assertThat(StreamRanges.between(end, end)).isEmpty();
    }

    @Test
    void foreignOrNewerOffsetsAreRefused() {
        assertThatThrownBy(() -> LakestreamStreamOffset.fromJson("{\"partitionOffsets\":{}}"))
                .hasMessageContaining("[INVALID_READ_OPTIONS]")
                .hasMessageContaining("new checkpoint location");
        assertThatThrownBy(
                        () -> LakestreamStreamOffset.fromJson(
                                "{\"format\":2,\"tableUuid\":\"6f1c1d40-0000-4000-8000-000000000022\",\"phase\":\"CHANGES\",\"logVersion\":1,\"lakeSnapshotId\":null,\"offsets\":{}}"))
                .hasMessageContaining("format 2");
    }

    @Test
    void streamOptions() {
        LakestreamStreamConf defaults = LakestreamStreamConf.resolve(new CaseInsensitiveStringMap(Map.of()));
        assertThat(defaults.mode()).isEqualTo(StartMode.FULL);
        assertThat(defaults.hasLimits()).isFalse();

        LakestreamStreamConf conf = LakestreamStreamConf.resolve(new CaseInsensitiveStringMap(Map.of(
                "Startup.Mode", "Timestamp",
                "startup.timestamp", "2026-12-01T12:00:00Z",
                "max-rows-per-trigger", "500",
                "max-commits-per-trigger", "3")));
        assertThat(conf.mode()).isEqualTo(StartMode.TIMESTAMP);
        assertThat(conf.startTimestampMillis()).hasValue(1_796_126_400_000L);
        assertThat(conf.maxRowsPerTrigger()).hasValue(500);
        assertThat(conf.maxCommitsPerTrigger()).hasValue(3);

        assertThatThrownBy(() ->
                        LakestreamStreamConf.resolve(new CaseInsensitiveStringMap(Map.of("startup.mode", "version"))))
                .hasMessageContaining("needs the option 'startup.version'");
        assertThatThrownBy(() ->
                        LakestreamStreamConf.resolve(new CaseInsensitiveStringMap(Map.of("max-rows-per-trigger", "0"))))
                .hasMessageContaining("'max-rows-per-trigger' must be a whole number of at least 1, but was '0'");
        assertThatThrownBy(() -> LakestreamStreamConf.resolve(
                        new CaseInsensitiveStringMap(Map.of("startup.mode", "timestamp", "startup.timestamp", "noon"))))
                .hasMessageContaining("ISO instant");
    }

    @Test
    void admissionLimitsComeBackFromSpark() {
        assertThat(StreamAdmission.of(ReadLimit.allAvailable()))
                .isEqualTo(new StreamAdmission(OptionalLong.empty(), OptionalLong.empty()));
        assertThat(StreamAdmission.of(
                        ReadLimit.compositeLimit(new ReadLimit[] {ReadLimit.maxRows(10), ReadLimit.maxFiles(2)})))
                .isEqualTo(new StreamAdmission(OptionalLong.of(10), OptionalLong.of(2)));
        assertThat(StreamAdmission.of(ReadLimit.maxFiles(4)))
                .isEqualTo(new StreamAdmission(OptionalLong.empty(), OptionalLong.of(4)));
    }
}
