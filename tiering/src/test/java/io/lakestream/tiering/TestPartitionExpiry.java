package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.MutableClock;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.expiry.PartitionExpiry;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition expiry (docs/tiering.md "Partition expiry") on tables with a log per (partition, bucket), the service's
 * clock a {@link MutableClock}: writes over six days, tiering, the clock moved past the retention, then the log and the
 * lake equal an oracle of what was written minus the expired partitions; a partition not completely tiered stays; a
 * crash between the log step and the lake step is finished by the next round; late data written into an expired
 * partition's path (a new partition id) is never deleted with the expired rows.
 */
class TestPartitionExpiry {
    private static final long SEED = Long.getLong("lakestream.test.seed", 33L);
    private static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 1);
    private static final int DAYS = 6;
    private static final String[] REGIONS = {"eu", "us"};
    private static final Schema EVENTS = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "region", Types.StringType.get()),
            Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()));
    private static final Schema SCORES = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "d", Types.DateType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));

    @TempDir
    Path directory;

    private final MutableClock clock = new MutableClock(FIRST_DAY.atStartOfDay().toInstant(ZoneOffset.UTC));
    private final AtomicReference<TieringStep> failing = new AtomicReference<>();
    private final List<TieringService> services = new ArrayList<>();

    @Test
    void primaryKeyTableByDateExpiresOldDaysFromLogAndLake() {
        Random random = new Random(SEED);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "scores",
                    TableSpec.builder(SCORES)
                            .primaryKey("id", "d")
                            .bucketCount(2)
                            .partitioning(List.of("d"))
                            .partitionedLog(true)
                            .properties(Map.of(PartitionExpiration.PROPERTY, "3d"))
                            .build());
            Map<List<Object>, List<Object>> oracle = new HashMap<>();
            TieringService service = service(warehouse, 50);
            for (int step = 0; step < 4; step++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                    for (int i = 0; i < 60; i++) {
                        long id = random.nextInt(12);
                        LocalDate day = FIRST_DAY.plusDays(random.nextInt(DAYS));
                        Map<String, Object> row = new HashMap<>();
                        row.put("id", id);
                        row.put("d", day);
                        if (random.nextInt(4) == 0) {
                            writer.delete(row);
                            oracle.remove(List.of(id, day));
                        } else {
                            int score = random.nextInt(1000);
                            row.put("score", score);
                            writer.upsert(row);
                            oracle.put(List.of(id, day), List.of(id, day, score));
                        }
                    }
                    writer.commit();
                }
                if (random.nextBoolean()) {
                    tier(service, table, null);
                }
            }
            tierUntilUpToDate(service, table);
            // nothing is old enough yet: every day is in the log and the lake
            assertThat(pathsOf(table.log().latestSnapshot())).hasSize(DAYS);
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(new ArrayList<>(oracle.values())));

            // 2026-11-09 minus 3 days: the days that ended by 2026-11-06 (1st to 5th) expire
            clock.advance(Duration.ofDays(8));
            assertThat(tier(service, table, null).error()).isEmpty();
            Predicate<LocalDate> kept = day -> !day.isBefore(FIRST_DAY.plusDays(5));
            LogSnapshot log = table.log().latestSnapshot();
            assertThat(pathsOf(log)).isEqualTo(dayPaths(5, DAYS));
            List<List<Object>> expected = oracle.values().stream()
                    .filter(row -> kept.test((LocalDate) row.get(1)))
                    .toList();
            assertThat(lakeRows(table))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(LakeOracle.sorted(expected));
            assertLakeOffsetsAreTheLogEnds(table);
            assertThat(liveLakeFilePaths(table.lake())).doesNotContainAnyElementsOf(dayPaths(0, 5));
            assertThat(liveLakeFilePaths(table.lake())).isNotEmpty();

            // idempotent: another round finds nothing to expire and commits nothing
            long snapshot = table.lake().currentSnapshot().snapshotId();
            assertThat(tier(service, table, null).outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
            table.lake().refresh();
            assertThat(table.lake().currentSnapshot().snapshotId()).isEqualTo(snapshot);
        }
    }

    @Test
    void partitionNotCompletelyTieredIsNotExpired() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = createEvents(warehouse, "P2D");
            TieringService service = service(warehouse, 1000);
            List<List<Object>> written = new ArrayList<>();
            writeEvents(table, warehouse, new Random(SEED), 0, DAYS, 120, written);
            tierUntilUpToDate(service, table);
            // more rows into the oldest day, not tiered
            List<List<Object>> untiered = new ArrayList<>();
            writeEvents(table, warehouse, new Random(SEED + 1), 0, 1, 20, untiered);
            written.addAll(untiered);

            // 2026-11-06 minus 2 days: days 1st to 3rd are old enough; only the untiered first day's partitions wait
            clock.advance(Duration.ofDays(5));
            PartitionExpiry.Result result = new PartitionExpiry(TieringHooks.NONE, clock).expire(table);
            Set<String> untieredPaths = eventPaths(untiered);
            assertThat(result.expiredFromLog()).doesNotContainAnyElementsOf(untieredPaths);
            assertThat(pathsOf(table.log().latestSnapshot())).containsAll(untieredPaths);
            Set<String> expired = new TreeSet<>(eventPaths(daysOf(written, 0, 3)));
            expired.removeAll(untieredPaths);
            assertThat(Set.copyOf(result.expiredFromLog())).isEqualTo(expired);
            assertThat(Set.copyOf(result.lake().deleted())).isEqualTo(expired);
            // the lake: every tiered row except those of the expired partitions
            List<List<Object>> tiered = new ArrayList<>(written);
            tiered.removeAll(untiered);
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(without(tiered, expired)));

            // tiered by the next round, then expired by it
            assertThat(tier(service, table, null).error()).isEmpty();
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(daysOf(written, 3, DAYS)));
            assertThat(pathsOf(table.log().latestSnapshot())).isEqualTo(eventPaths(daysOf(written, 3, DAYS)));
            assertLakeOffsetsAreTheLogEnds(table);
        }
    }

    @Test
    void crashBetweenLogAndLakeStepsIsFinishedByTheNextRound() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = createEvents(warehouse, "2d");
            TieringService service = service(warehouse, 1000);
            List<List<Object>> written = new ArrayList<>();
            writeEvents(table, warehouse, new Random(SEED + 2), 0, DAYS, 150, written);
            tierUntilUpToDate(service, table);
            OffsetMap before = lakeOffsets(table);

            clock.advance(Duration.ofDays(5));
            TieringResult crashed = tier(service, table, TieringStep.PARTITIONS_EXPIRED_FROM_LOG);
            assertThat(crashed.error())
                    .hasValueSatisfying(error -> assertThat(error).contains("partition expiry"));
            Set<String> expired = eventPaths(daysOf(written, 0, 3));
            // the log step is done, the lake still holds every row and the expired partitions' offset keys
            assertThat(pathsOf(table.log().latestSnapshot())).doesNotContainAnyElementsOf(expired);
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(written));
            assertThat(lakeOffsets(table)).isEqualTo(before);

            // a round that tiers new rows and fails inside the expiry's lake commit: tiering keeps the keys
            writeEvents(table, warehouse, new Random(SEED + 3), 4, DAYS, 30, written);
            TieringResult failed = tier(service, table, TieringStep.EXPIRY_COMMITTING);
            assertThat(failed.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            assertThat(failed.error()).isPresent();
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(written));
            OffsetMap carried = lakeOffsets(table);
            LogSnapshot afterCrash = table.log().latestSnapshot();
            List<PartitionBucket> expiredKeys = before.partitionOffsets().keySet().stream()
                    .filter(key -> afterCrash.partition(key.partitionId()).isEmpty())
                    .toList();
            assertThat(expiredKeys).isNotEmpty();
            expiredKeys.forEach(key -> assertThat(carried.offset(key)).isEqualTo(before.offset(key)));

            assertThat(tier(service, table, null).error()).isEmpty();
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(without(written, expired)));
            assertLakeOffsetsAreTheLogEnds(table);
            assertThat(liveLakeFilePaths(table.lake())).doesNotContainAnyElementsOf(expired);
        }
    }

    @Test
    void lateDataIntoAnExpiredPartitionIsNeverDeletedWithIt() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = createEvents(warehouse, "2d");
            TieringService service = service(warehouse, 1000);
            List<List<Object>> written = new ArrayList<>();
            writeEvents(table, warehouse, new Random(SEED + 4), 0, DAYS, 150, written);
            tierUntilUpToDate(service, table);
            clock.advance(Duration.ofDays(5));
            tier(service, table, TieringStep.PARTITIONS_EXPIRED_FROM_LOG);
            Set<String> expired = eventPaths(daysOf(written, 0, 3));

            // late rows for an expired day, between the log step and the lake step: a new partition id, not in the lake
            List<List<Object>> late = new ArrayList<>();
            writeEvents(table, warehouse, new Random(SEED + 5), 0, 1, 10, late);
            Set<String> latePaths = eventPaths(late);
            PartitionExpiry.Result result = new PartitionExpiry(TieringHooks.NONE, clock).expire(table);
            assertThat(result.expiredFromLog()).isEmpty();
            assertThat(Set.copyOf(result.lake().deleted())).isEqualTo(expired);
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(without(written, expired)));
            assertThat(pathsOf(table.log().latestSnapshot())).containsAll(latePaths);

            // without the property the late rows are tiered and stay
            setExpiration(table, null);
            assertThat(tier(service, table, null).error()).isEmpty();
            written.addAll(late);
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(without(written, expired, late)));

            // the late partition expires too (log step only), and later rows of the same path arrive and are tiered
            // before the lake step runs: the lake files of the path now hold rows of a live partition, so the lake
            // step waits rather than delete them
            setExpiration(table, "2d");
            tier(service, table, TieringStep.PARTITIONS_EXPIRED_FROM_LOG);
            assertThat(pathsOf(table.log().latestSnapshot())).doesNotContainAnyElementsOf(latePaths);
            List<List<Object>> later = new ArrayList<>();
            writeEvents(table, warehouse, new Random(SEED + 6), 0, 1, 10, later);
            written.addAll(later);
            setExpiration(table, null);
            assertThat(tier(service, table, null).error()).isEmpty();
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(without(written, expired, late, later)));
            OffsetMap waiting = lakeOffsets(table);
            assertThat(waiting.partitionOffsets().keySet().stream()
                            .filter(key -> table.log()
                                    .latestSnapshot()
                                    .partition(key.partitionId())
                                    .isEmpty())
                            .toList())
                    .as("the expired late partition's keys wait with its rows")
                    .isNotEmpty();
            assertThat(table.log().latestSnapshot().endOffsets().partitionOffsets())
                    .allSatisfy((key, end) -> assertThat(waiting.offset(key)).isEqualTo(end));

            // once the later partition expires as well, the path goes from the lake in one commit
            setExpiration(table, "2d");
            assertThat(tier(service, table, null).error()).isEmpty();
            Set<String> allExpired = new TreeSet<>(expired);
            allExpired.addAll(eventPaths(later));
            assertThat(lakeRows(table)).isEqualTo(LakeOracle.sorted(without(written, allExpired)));
            assertLakeOffsetsAreTheLogEnds(table);
            assertThat(liveLakeFilePaths(table.lake())).doesNotContainAnyElementsOf(allExpired);
        }
    }

    @Test
    void expirationIsValidatedAtCreateTable() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            for (String bad : List.of("30x", "0d", "-1d", "P-1D", "", "thirty days")) {
                assertThatThrownBy(() -> createEvents(warehouse, bad))
                        .as(bad)
                        .isInstanceOfSatisfying(
                                LakestreamException.class,
                                e -> assertThat(e.error()).isEqualTo(LakestreamError.PARTITION_EXPIRATION_INVALID))
                        .hasMessageContaining("'30d'")
                        .hasMessageContaining("'P30D'");
            }
            TableSpec byRegion = TableSpec.builder(EVENTS)
                    .bucketKey("id")
                    .bucketCount(2)
                    .partitioning(List.of("region"))
                    .partitionedLog(true)
                    .properties(Map.of(PartitionExpiration.PROPERTY, "30d"))
                    .build();
            assertThatThrownBy(() -> warehouse.create("by_region", byRegion))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.PARTITION_EXPIRATION_INVALID))
                    .hasMessageContaining("not partitioned by time");
            assertThat(createEvents(warehouse, "P30D", "iso")).isNotNull();
            assertThat(createEvents(warehouse, "12h", "hours")).isNotNull();
        }
    }

    private LakestreamTable createEvents(TestingWarehouse warehouse, String expiration) {
        return createEvents(warehouse, expiration, "events");
    }

    private static LakestreamTable createEvents(TestingWarehouse warehouse, String expiration, String name) {
        return warehouse.create(
                name,
                TableSpec.builder(EVENTS)
                        .bucketKey("id")
                        .bucketCount(2)
                        .partitioning(List.of("day(ts)", "region"))
                        .partitionedLog(true)
                        .properties(Map.of(PartitionExpiration.PROPERTY, expiration))
                        .build());
    }

    /** Appends {@code count} random events on days {@code [fromDay, toDay)} after the first, recorded in {@code written}. */
    private static void writeEvents(
            LakestreamTable table,
            TestingWarehouse warehouse,
            Random random,
            int fromDay,
            int toDay,
            int count,
            List<List<Object>> written) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (int i = 0; i < count; i++) {
                long id = random.nextInt(1_000_000);
                String region = REGIONS[random.nextInt(REGIONS.length)];
                LocalDateTime ts = FIRST_DAY
                        .plusDays(fromDay + random.nextInt(toDay - fromDay))
                        .atTime(random.nextInt(24), random.nextInt(60));
                writer.append(Map.of("id", id, "region", region, "ts", ts));
                written.add(List.of(id, region, ts));
            }
            writer.commit();
        }
    }

    private static List<List<Object>> daysOf(List<List<Object>> events, int fromDay, int toDay) {
        return events.stream()
                .filter(row -> {
                    long day = ((LocalDateTime) row.get(2)).toLocalDate().toEpochDay() - FIRST_DAY.toEpochDay();
                    return day >= fromDay && day < toDay;
                })
                .toList();
    }

    private static Set<String> eventPaths(List<List<Object>> events) {
        Set<String> paths = new TreeSet<>();
        events.forEach(row -> paths.add(eventPath(row)));
        return paths;
    }

    private static String eventPath(List<Object> row) {
        return "ts_day=%s/region=%s".formatted(((LocalDateTime) row.get(2)).toLocalDate(), row.get(1));
    }

    /** {@code rows} without the events of {@code paths}, plus the events of {@code kept} (late rows that stay). */
    @SafeVarargs
    private static List<List<Object>> without(List<List<Object>> rows, Set<String> paths, List<List<Object>>... kept) {
        List<List<Object>> result = new ArrayList<>(
                rows.stream().filter(row -> !paths.contains(eventPath(row))).toList());
        for (List<List<Object>> keep : kept) {
            keep.stream().filter(row -> !result.contains(row)).forEach(result::add);
        }
        return result;
    }

    private static Set<String> dayPaths(int fromDay, int toDay) {
        Set<String> paths = new TreeSet<>();
        for (int day = fromDay; day < toDay; day++) {
            paths.add("d=" + FIRST_DAY.plusDays(day));
        }
        return paths;
    }

    private static Set<String> pathsOf(LogSnapshot log) {
        Set<String> paths = new TreeSet<>();
        log.partitions().forEach(partition -> paths.add(partition.path()));
        return paths;
    }

    private static void setExpiration(LakestreamTable table, String expiration) {
        if (expiration == null) {
            table.lake().updateProperties().remove(PartitionExpiration.PROPERTY).commit();
        } else {
            table.lake()
                    .updateProperties()
                    .set(PartitionExpiration.PROPERTY, expiration)
                    .commit();
        }
    }

    private static List<List<Object>> lakeRows(LakestreamTable table) {
        return LakeOracle.readLake(table.lake(), table.definition().schema());
    }

    private static OffsetMap lakeOffsets(LakestreamTable table) {
        table.lake().refresh();
        return LakePosition.current(table.lake()).offsets();
    }

    /** The lake's offsets are exactly the live log's ends: the keys of expired partitions are gone. */
    private static void assertLakeOffsetsAreTheLogEnds(LakestreamTable table) {
        Map<PartitionBucket, Long> ends =
                table.log().latestSnapshot().endOffsets().partitionOffsets();
        assertThat(lakeOffsets(table).partitionOffsets()).isEqualTo(ends);
        for (PartitionLog partition : table.log().latestSnapshot().partitions()) {
            assertThat(partition.path()).isNotEmpty();
        }
    }

    /** The user partition path (without the bucket field) of every live data and delete file of the lake. */
    private static Set<String> liveLakeFilePaths(Table lake) {
        lake.refresh();
        Snapshot snapshot = lake.currentSnapshot();
        Set<String> paths = new TreeSet<>();
        try {
            for (ManifestFile manifest : snapshot.allManifests(lake.io())) {
                try (ManifestReader<? extends ContentFile<?>> reader =
                        manifest.content() == org.apache.iceberg.ManifestContent.DATA
                                ? ManifestFiles.read(manifest, lake.io(), lake.specs())
                                : ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs())) {
                    for (ContentFile<?> file : reader) {
                        String path = lake.specs().get(file.specId()).partitionToPath(file.partition());
                        paths.add(path.substring(0, path.lastIndexOf('/')));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return paths;
    }

    /** A service for the rest of a test (closed with the test), failing at {@link #failing} while it is set. */
    private TieringService service(TestingWarehouse warehouse, int cap) {
        TieringConfig config = TieringConfig.builder()
                .maxRecordsPerBucket(cap)
                .writerThreads(2)
                .retention(Duration.ZERO)
                .build();
        TieringHooks hooks = (table, step, bucket) -> {
            if (step == failing.get()) {
                throw new IllegalStateException("injected crash at " + step);
            }
        };
        TieringService service = new TieringService(warehouse.catalog(), config, hooks, clock);
        services.add(service);
        return service;
    }

    /** One round; with {@code crashAt}, the hooks throw at that step (a crash there, for what the lake and log keep). */
    private TieringResult tier(TieringService service, LakestreamTable table, TieringStep crashAt) {
        failing.set(crashAt);
        try {
            TieringResult result = service.tierTable(table.identifier());
            assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
            return result;
        } finally {
            failing.set(null);
        }
    }

    private void tierUntilUpToDate(TieringService service, LakestreamTable table) {
        for (int round = 0; round < 50; round++) {
            TieringResult result = tier(service, table, null);
            assertThat(result.error()).isEmpty();
            if (result.outcome() == TieringResult.Outcome.UP_TO_DATE) {
                break;
            }
        }
        assertLakeOffsetsAreTheLogEnds(table);
    }

    @AfterEach
    void closeServices() {
        services.forEach(TieringService::close);
    }
}
