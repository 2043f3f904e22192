package io.lakestream.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The expiry rule of {@code lakestream.partition.expiration}: the accepted values and each time field's upper bound. */
class TestPartitionExpiration {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(3, "tz", Types.TimestampType.withZone()),
            Types.NestedField.optional(4, "d", Types.DateType.get()),
            Types.NestedField.optional(5, "region", Types.StringType.get()));

    @Test
    void upperBoundIsTheEndOfEachTransformsRange() {
        assertBound(PartitionSpec.builderFor(SCHEMA).year("ts").build(), "ts_year=2026", "2027-01-01T00:00:00Z");
        assertBound(PartitionSpec.builderFor(SCHEMA).month("ts").build(), "ts_month=2026-12", "2027-01-01T00:00:00Z");
        assertBound(PartitionSpec.builderFor(SCHEMA).day("tz").build(), "tz_day=2026-11-30", "2026-12-01T00:00:00Z");
        assertBound(
                PartitionSpec.builderFor(SCHEMA).hour("ts").build(), "ts_hour=2026-11-30-23", "2026-12-01T00:00:00Z");
        assertBound(PartitionSpec.builderFor(SCHEMA).identity("d").build(), "d=2026-02-28", "2026-03-01T00:00:00Z");
        // the other fields do not matter; with two time fields the later end counts
        assertBound(
                PartitionSpec.builderFor(SCHEMA).identity("region").day("ts").build(),
                "region=eu/ts_day=2026-11-01",
                "2026-11-02T00:00:00Z");
        assertBound(
                PartitionSpec.builderFor(SCHEMA).day("ts").month("tz").build(),
                "ts_day=2026-11-01/tz_month=2026-11",
                "2026-12-01T00:00:00Z");
    }

    @Test
    void partitionExpiresOnceItsEndIsRetentionOld() {
        PartitionSpec spec =
                PartitionSpec.builderFor(SCHEMA).day("ts").identity("region").build();
        PartitionExpiration expiration = of(spec, "2d").orElseThrow();
        String path = "ts_day=2026-11-01/region=eu";
        assertThat(expiration.expired(spec, path, Instant.parse("2026-11-03T23:59:59Z")))
                .isFalse();
        assertThat(expiration.expired(spec, path, Instant.parse("2026-11-04T00:00:00Z")))
                .isTrue();
        // a null time value is never dated, so never expired
        assertThat(expiration.expired(spec, "ts_day=null/region=eu", Instant.parse("2030-01-01T00:00:00Z")))
                .isFalse();
    }

    @Test
    void acceptedValuesAndRefusals() {
        PartitionSpec byDay = PartitionSpec.builderFor(SCHEMA).day("ts").build();
        assertThat(of(byDay, "30d").orElseThrow().retention()).isEqualTo(Duration.ofDays(30));
        assertThat(of(byDay, "P30D").orElseThrow().retention()).isEqualTo(Duration.ofDays(30));
        assertThat(of(byDay, "PT12H").orElseThrow().retention()).isEqualTo(Duration.ofHours(12));
        assertThat(of(byDay, "90m").orElseThrow().retention()).isEqualTo(Duration.ofMinutes(90));
        assertThat(PartitionExpiration.of("t", byDay.fields(), SCHEMA, Map.of()))
                .isEmpty();
        for (String bad : List.of("30", "30x", "0s", "-1d", "P", "PT-1H", "")) {
            assertThatThrownBy(() -> of(byDay, bad))
                    .as(bad)
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.PARTITION_EXPIRATION_INVALID))
                    .hasMessageContaining("'P30D'");
        }
        for (PartitionSpec untimed : List.of(
                PartitionSpec.builderFor(SCHEMA).identity("region").build(),
                PartitionSpec.builderFor(SCHEMA).identity("ts").build(),
                PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build())) {
            assertThatThrownBy(() -> of(untimed, "30d"))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.PARTITION_EXPIRATION_INVALID))
                    .hasMessageContaining("not partitioned by time");
        }
    }

    private static void assertBound(PartitionSpec spec, String path, String end) {
        PartitionExpiration expiration = of(spec, "1d").orElseThrow();
        assertThat(expiration.upperBound(spec, PartitionPathValues.values(spec, path)))
                .as(path)
                .contains(Instant.parse(end));
        assertThat(spec.partitionToPath(PartitionPathValues.values(spec, path))).isEqualTo(path);
    }

    private static Optional<PartitionExpiration> of(PartitionSpec spec, String value) {
        return PartitionExpiration.of("t", spec.fields(), SCHEMA, Map.of(PartitionExpiration.PROPERTY, value));
    }
}
