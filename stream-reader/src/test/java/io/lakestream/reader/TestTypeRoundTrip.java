package io.lakestream.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSnapshot;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every supported column type survives the log: written through the writer API, read back as Iceberg generic values. */
class TestTypeRoundTrip {
    private static final Schema ALL_TYPES = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "c_boolean", Types.BooleanType.get()),
            Types.NestedField.optional(3, "c_int", Types.IntegerType.get()),
            Types.NestedField.optional(4, "c_long", Types.LongType.get()),
            Types.NestedField.optional(5, "c_float", Types.FloatType.get()),
            Types.NestedField.optional(6, "c_double", Types.DoubleType.get()),
            Types.NestedField.optional(7, "c_decimal_small", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(8, "c_decimal_large", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(9, "c_date", Types.DateType.get()),
            Types.NestedField.optional(10, "c_time", Types.TimeType.get()),
            Types.NestedField.optional(11, "c_timestamp", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(12, "c_timestamptz", Types.TimestampType.withZone()),
            Types.NestedField.optional(13, "c_string", Types.StringType.get()),
            Types.NestedField.optional(14, "c_uuid", Types.UUIDType.get()),
            Types.NestedField.optional(15, "c_fixed", Types.FixedType.ofLength(3)),
            Types.NestedField.optional(16, "c_binary", Types.BinaryType.get()));

    @TempDir
    java.nio.file.Path directory;

    @Test
    void everyTypeRoundTrips() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "all_types",
                    TableSpec.builder(ALL_TYPES).primaryKey("id").bucketCount(1).build());
            Map<String, Object> full = new HashMap<>();
            full.put("id", 1L);
            full.put("c_boolean", true);
            full.put("c_int", Integer.MIN_VALUE);
            full.put("c_long", Long.MAX_VALUE);
            full.put("c_float", 1.5f);
            full.put("c_double", -0.0d);
            full.put("c_decimal_small", new BigDecimal("-1234567.89"));
            full.put("c_decimal_large", new BigDecimal("1234567890123456789012345678.0123456789"));
            full.put("c_date", LocalDate.of(1969, 12, 31));
            full.put("c_time", LocalTime.of(23, 59, 59, 999_999_000));
            full.put("c_timestamp", LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123_456_000));
            full.put("c_timestamptz", OffsetDateTime.of(2024, 2, 29, 12, 30, 15, 123_456_000, ZoneOffset.ofHours(-8)));
            full.put("c_string", "Grüße, 世界 🌍");
            full.put("c_uuid", UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"));
            full.put("c_fixed", new byte[] {1, 2, 3});
            full.put("c_binary", ByteBuffer.wrap(new byte[] {0, (byte) 0xff, 7}));

            Map<String, Object> nulls = new HashMap<>();
            nulls.put("id", 2L);

            Map<String, Object> widened = new HashMap<>();
            widened.put("id", 3);
            widened.put("c_long", 7);
            widened.put("c_double", 2.5f);
            widened.put("c_decimal_small", new BigDecimal("3.1"));
            widened.put("c_timestamptz", Instant.parse("2020-01-01T00:00:00.000000001Z"));
            widened.put("c_string", new StringBuilder("built"));
            widened.put("c_binary", new byte[0]);

            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                writer.upsert(full);
                writer.upsert(nulls);
                writer.upsert(widened);
                writer.delete(Map.of("id", 1L, "c_string", "ignored for deletes"));
                writer.commit();
            }

            List<ChangeRecord> changes = readAll(table, warehouse);
            assertThat(changes)
                    .extracting(ChangeRecord::changeType)
                    .containsExactly(ChangeType.UPSERT, ChangeType.UPSERT, ChangeType.UPSERT, ChangeType.DELETE);
            assertThat(changes).extracting(ChangeRecord::offset).containsExactly(0L, 1L, 2L, 3L);

            Record first = changes.get(0).row();
            assertThat(first.getField("id")).isEqualTo(1L);
            assertThat(first.getField("c_boolean")).isEqualTo(true);
            assertThat(first.getField("c_int")).isEqualTo(Integer.MIN_VALUE);
            assertThat(first.getField("c_long")).isEqualTo(Long.MAX_VALUE);
            assertThat(first.getField("c_float")).isEqualTo(1.5f);
            assertThat(first.getField("c_double")).isEqualTo(-0.0d);
            assertThat(first.getField("c_decimal_small")).isEqualTo(new BigDecimal("-1234567.89"));
            assertThat(first.getField("c_decimal_large"))
                    .isEqualTo(new BigDecimal("1234567890123456789012345678.0123456789"));
            assertThat(first.getField("c_date")).isEqualTo(LocalDate.of(1969, 12, 31));
            assertThat(first.getField("c_time")).isEqualTo(LocalTime.of(23, 59, 59, 999_999_000));
            assertThat(first.getField("c_timestamp")).isEqualTo(LocalDateTime.of(2024, 2, 29, 12, 30, 15, 123_456_000));
            assertThat(first.getField("c_timestamptz"))
                    .isEqualTo(OffsetDateTime.of(2024, 2, 29, 20, 30, 15, 123_456_000, ZoneOffset.UTC));
            assertThat(first.getField("c_string")).isEqualTo("Grüße, 世界 🌍");
            assertThat(((String) first.getField("c_string")).getBytes(StandardCharsets.UTF_8))
                    .hasSize("Grüße, 世界 🌍".getBytes(StandardCharsets.UTF_8).length);
            assertThat(first.getField("c_uuid")).isEqualTo(UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"));
            assertThat((byte[]) first.getField("c_fixed")).containsExactly(1, 2, 3);
            assertThat(first.getField("c_binary")).isEqualTo(ByteBuffer.wrap(new byte[] {0, (byte) 0xff, 7}));

            Record allNull = changes.get(1).row();
            assertThat(allNull.getField("id")).isEqualTo(2L);
            for (int i = 1; i < ALL_TYPES.columns().size(); i++) {
                assertThat(allNull.get(i)).as(ALL_TYPES.columns().get(i).name()).isNull();
            }

            Record converted = changes.get(2).row();
            assertThat(converted.getField("id")).isEqualTo(3L);
            assertThat(converted.getField("c_long")).isEqualTo(7L);
            assertThat(converted.getField("c_double")).isEqualTo(2.5d);
            assertThat(converted.getField("c_decimal_small")).isEqualTo(new BigDecimal("3.10"));
            // nanoseconds are truncated to the table's microsecond precision
            assertThat(converted.getField("c_timestamptz")).isEqualTo(OffsetDateTime.parse("2020-01-01T00:00:00Z"));
            assertThat(converted.getField("c_string")).isEqualTo("built");
            assertThat(converted.getField("c_binary")).isEqualTo(ByteBuffer.wrap(new byte[0]));

            Record delete = changes.get(3).row();
            assertThat(delete.getField("id")).isEqualTo(1L);
            assertThat(delete.getField("c_string")).isNull();
        }
    }

    /**
     * A date is an int of days since 1970-01-01 (Iceberg's and Arrow's): the first and last such dates
     * round-trip, and a LocalDate beyond them is refused with INVALID_ROW, boxed or through the row buffer,
     * instead of being wrapped into another date.
     */
    @Test
    void datesBeyondTheIntDayRangeAreRefusedNotWrapped() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "dates",
                    TableSpec.builder(ALL_TYPES).primaryKey("id").bucketCount(1).build());
            LocalDate first = LocalDate.ofEpochDay(Integer.MIN_VALUE);
            LocalDate last = LocalDate.ofEpochDay(Integer.MAX_VALUE);
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                writer.upsert(Map.of("id", 1L, "c_date", first));
                writer.upsert(Map.of("id", 2L, "c_date", last));
                writer.commit();
            }
            assertThat(readAll(table, warehouse))
                    .extracting(change -> change.row().getField("c_date"))
                    .containsExactly(first, last);

            String expected =
                    "column 'c_date' of type date cannot hold LocalDate '+5881580-07-12'; expected Java type: "
                            + "LocalDate from -5877641-06-23 to +5881580-07-11 (days since 1970-01-01 as an int)";
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                assertThatThrownBy(() -> writer.upsert(Map.of("id", 3L, "c_date", last.plusDays(1))))
                        .isInstanceOfSatisfying(
                                LakestreamException.class,
                                e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_ROW))
                        .hasMessageContaining(expected);
            }
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                int idColumn = 0;
                int dateColumn = 8;
                writer.row().setLong(idColumn, 4L);
                writer.row().setValue(dateColumn, LocalDate.of(-6_000_000, 1, 1));
                assertThatThrownBy(writer::upsertRow)
                        .isInstanceOfSatisfying(
                                LakestreamException.class,
                                e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_ROW))
                        .hasMessageContaining("column 'c_date' of type date cannot hold LocalDate '-6000000-01-01'");
            }
            assertThat(table.log().latestSnapshot().version()).isEqualTo(1);
        }
    }

    static List<ChangeRecord> readAll(LakestreamTable table, TestingWarehouse warehouse) {
        LogSnapshot snapshot = table.log().latestSnapshot();
        List<ChangeRecord> changes = new ArrayList<>();
        for (int bucket = 0; bucket < snapshot.bucketCount(); bucket++) {
            try (ChangelogReader reader = new ChangelogReader(
                    table.log(),
                    snapshot,
                    bucket,
                    snapshot.bucket(bucket).startOffset(),
                    snapshot.bucket(bucket).endOffset(),
                    table.definition().schema(),
                    warehouse.allocator())) {
                reader.forEachRemaining(changes::add);
            }
        }
        return changes;
    }
}
