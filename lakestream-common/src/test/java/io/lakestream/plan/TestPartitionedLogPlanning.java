package io.lakestream.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.PartitionLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.Partitioning;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Union-read planning over a partitioned table's per-(partition, bucket) logs: splits per (partition, bucket) whose
 * ranges hold exactly the rows written into them (an oracle of the rows the test wrote), and whole log partitions
 * pruned by a filter on partition source columns before any segment is opened (the planned splits carry no segment
 * of a pruned partition).
 */
class TestPartitionedLogPlanning {
    private static final long SEED = Long.getLong("lakestream.test.seed", 2112L);
    private static final String[] REGIONS = {"eu", "us", "ap"};
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()));

    @TempDir
    Path directory;

    /** A written row: its partition values as the filter sees them. */
    private record Row(long id, String region, LocalDateTime ts) {}

    @Test
    void splitsPerPartitionBucketHoldExactlyTheRowsWrittenAndFiltersPruneWholePartitions() {
        Random random = new Random(SEED);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "events",
                    TableSpec.builder(SCHEMA)
                            .bucketKey("id")
                            .bucketCount(2)
                            .partitioning(List.of("day(ts)", "region"))
                            .partitionedLog(true)
                            .build());
            List<Row> written = new java.util.ArrayList<>();
            for (int commit = 0; commit < 4; commit++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                    for (int i = 0; i < 200 + random.nextInt(300); i++) {
                        Row row = new Row(
                                random.nextInt(1000),
                                REGIONS[random.nextInt(REGIONS.length)],
                                LocalDateTime.of(2026, 11, 28 + random.nextInt(3), random.nextInt(24), 0));
                        Map<String, Object> values = new HashMap<>();
                        values.put("id", row.id());
                        values.put("region", row.region());
                        values.put("ts", row.ts());
                        writer.append(values);
                        written.add(row);
                    }
                    writer.commit();
                }
            }
            checkFreshness(table, written);
            LocalDateTime december = LocalDateTime.of(2026, 11, 30, 0, 0);
            long decemberMicros = december.toEpochSecond(ZoneOffset.UTC) * 1_000_000;
            check(table, written, Expressions.alwaysTrue(), row -> true, ReadMode.UNION);
            check(table, written, Expressions.alwaysTrue(), row -> true, ReadMode.CHANGES);
            check(
                    table,
                    written,
                    Expressions.equal("region", "eu"),
                    row -> row.region().equals("eu"),
                    ReadMode.UNION);
            check(
                    table,
                    written,
                    Expressions.greaterThanOrEqual("ts", decemberMicros),
                    row -> !row.ts().isBefore(december),
                    ReadMode.CHANGES);
            check(
                    table,
                    written,
                    Expressions.and(Expressions.equal("region", "us"), Expressions.lessThan("ts", decemberMicros)),
                    row -> row.region().equals("us") && row.ts().isBefore(december),
                    ReadMode.UNION);
        }
    }

    /**
     * The freshness ($offsets) of a partitioned log: one row per (partition, bucket) with the partition path, whose
     * log ends add up to the rows written into that partition (nothing tiered yet).
     */
    private static void checkFreshness(LakestreamTable table, List<Row> written) {
        Map<String, Long> expected = new java.util.TreeMap<>();
        for (Row row : written) {
            expected.merge("ts_day=%s/region=%s".formatted(row.ts().toLocalDate(), row.region()), 1L, Long::sum);
        }
        List<BucketFreshness> freshness = UnionReadPlanner.freshness(table, ReadOptions.UNION);
        assertThat(freshness).hasSize(expected.size() * 2);
        Map<String, Long> ends = new java.util.TreeMap<>();
        for (BucketFreshness bucket : freshness) {
            assertThat(bucket.lakeOffset()).isZero();
            assertThat(bucket.recordsBehind()).isEqualTo(bucket.logEndOffset());
            ends.merge(bucket.partition().orElseThrow(), bucket.logEndOffset(), Long::sum);
        }
        assertThat(ends).as("seed %s", SEED).isEqualTo(expected);
    }

    @Test
    void partitionPathsReadBackAsTheTransformsValues() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "ts", Types.TimestampType.withoutZone()),
                Types.NestedField.optional(2, "name", Types.StringType.get()),
                Types.NestedField.optional(3, "n", Types.IntegerType.get()));
        Random random = new Random(SEED);
        for (List<String> terms : List.of(
                List.of("year(ts)", "name"),
                List.of("month(ts)", "truncate(name, 2)"),
                List.of("day(ts)", "bucket(n, 5)"),
                List.of("hour(ts)", "n"))) {
            io.lakestream.table.TableDefinition definition = io.lakestream.table.TableLayout.of(
                            TableSpec.builder(schema)
                                    .partitioning(terms)
                                    .partitionedLog(true)
                                    .bucketCount(1)
                                    .build())
                    .definition();
            PartitionSpec spec = Partitioning.userSpec(definition);
            LogPartitionPruner pruner = new LogPartitionPruner(definition, Expressions.alwaysTrue());
            Schema userSchema = definition.schema();
            PartitionKey key = new PartitionKey(spec, userSchema);
            InternalRecordWrapper wrapper = new InternalRecordWrapper(userSchema.asStruct());
            for (int i = 0; i < 200; i++) {
                GenericRecord row = GenericRecord.create(userSchema);
                row.set(
                        0,
                        LocalDateTime.of(
                                1950 + random.nextInt(100),
                                1 + random.nextInt(12),
                                1 + random.nextInt(28),
                                random.nextInt(24),
                                0));
                row.set(1, random.nextInt(5) == 0 ? null : "n/a=" + random.nextInt(100) + " x");
                row.set(2, random.nextInt(5) == 0 ? null : random.nextInt());
                key.partition(wrapper.wrap(row));
                String path = spec.partitionToPath(key);
                var values = pruner.values(path);
                for (int field = 0; field < spec.fields().size(); field++) {
                    assertThat(values.get(field, Object.class))
                            .as("%s of %s", path, terms)
                            .isEqualTo(key.get(field, Object.class));
                }
            }
        }
    }

    /**
     * An identity partition on a timestamp column, with and without zone: its path (Iceberg's ISO-8601 human string,
     * seconds and fractions left out when zero) reads back to the microseconds, so a filter on the column prunes it.
     */
    @Test
    void timestampIdentityPathsReadBackAndPrune() {
        Random random = new Random(SEED);
        for (Types.TimestampType type : List.of(Types.TimestampType.withoutZone(), Types.TimestampType.withZone())) {
            Schema schema = new Schema(
                    Types.NestedField.required(1, "ts", type),
                    Types.NestedField.optional(2, "n", Types.IntegerType.get()));
            io.lakestream.table.TableDefinition definition = io.lakestream.table.TableLayout.of(
                            TableSpec.builder(schema)
                                    .partitioning(List.of("ts"))
                                    .partitionedLog(true)
                                    .bucketCount(1)
                                    .build())
                    .definition();
            PartitionSpec spec = Partitioning.userSpec(definition);
            PartitionKey key = new PartitionKey(spec, definition.schema());
            InternalRecordWrapper wrapper =
                    new InternalRecordWrapper(definition.schema().asStruct());
            for (int i = 0; i < 200; i++) {
                // whole minutes, whole seconds, milliseconds and microseconds: each prints differently
                LocalDateTime time = LocalDateTime.of(1950 + random.nextInt(100), 1 + random.nextInt(12), 1, 0, 0)
                        .plusMinutes(random.nextInt(100_000))
                        .plusSeconds(random.nextInt(3) == 0 ? 0 : random.nextInt(60))
                        .plusNanos(
                                switch (random.nextInt(3)) {
                                    case 0 -> 0;
                                    case 1 -> random.nextInt(1000) * 1_000_000L;
                                    default -> random.nextInt(1_000_000) * 1_000L;
                                });
                GenericRecord row = GenericRecord.create(definition.schema());
                row.set(0, type.shouldAdjustToUTC() ? time.atOffset(java.time.ZoneOffset.UTC) : time);
                key.partition(wrapper.wrap(row));
                String path = spec.partitionToPath(key);
                long micros = key.get(0, Long.class);
                LogPartitionPruner same = new LogPartitionPruner(definition, Expressions.equal("ts", micros));
                LogPartitionPruner other = new LogPartitionPruner(definition, Expressions.equal("ts", micros + 1));
                io.lakestream.log.PartitionLog partition = new io.lakestream.log.PartitionLog(0, path, List.of());
                assertThat(same.values(path).get(0, Long.class)).as(path).isEqualTo(micros);
                assertThat(same.mayMatch(partition)).as(path).isTrue();
                assertThat(other.mayMatch(partition)).as("%s pruned", path).isFalse();
            }
        }
    }

    private static void check(
            LakestreamTable table, List<Row> written, Expression filter, Predicate<Row> matches, ReadMode mode) {
        // the oracle: rows per partition path, of the partitions a matching row was written to
        Map<String, Long> expected = new TreeMap<>();
        Map<String, Long> all = new TreeMap<>();
        for (Row row : written) {
            String path = "ts_day=%s/region=%s".formatted(row.ts().toLocalDate(), row.region());
            all.merge(path, 1L, Long::sum);
        }
        for (Row row : written) {
            if (matches.test(row)) {
                String path = "ts_day=%s/region=%s".formatted(row.ts().toLocalDate(), row.region());
                expected.put(path, all.get(path));
            }
        }
        ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.of(mode).withFilter(filter));
        Map<Integer, String> paths = new HashMap<>();
        table.log().latestSnapshot().partitions().forEach(p -> paths.put(p.id(), p.path()));
        Map<String, Long> planned = new TreeMap<>();
        for (UnionSplit split : plan.splits()) {
            LogRange range = split.logRange().orElseThrow();
            String path = paths.get(range.partitionId().orElseThrow());
            planned.merge(path, range.rowCount(), Long::sum);
            // a union split carries its (partition, bucket)'s segments, none of another partition
            split.logSegments()
                    .orElse(List.of())
                    .forEach(segment -> assertThat(segment.partitionId()).isEqualTo(range.partitionId()));
            assertThat(split.logSegments().isPresent()).isEqualTo(mode == ReadMode.UNION);
        }
        assertThat(planned)
                .as("%s %s, seed %s (-Dlakestream.test.seed)", mode, filter, SEED)
                .isEqualTo(expected);
        assertThat(table.log().latestSnapshot().partitions().stream().map(PartitionLog::path))
                .containsExactlyInAnyOrderElementsOf(all.keySet());
    }
}
