package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringRound;
import io.lakestream.tiering.TieringStep;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Spark tiering job ({@code CALL ls.system.tier(table => ...)}) on a local session: it tiers exactly
 * what the embedded service tiers from the same log (same offsets, same lake rows), union reads and the
 * lake equal an oracle built from what the test wrote over random rounds (seed {@code -Dlakestream.test.seed}),
 * a race with the embedded service in either direction tiers every change once and leaves no file behind,
 * and bad states fail with the embedded service's coded errors, the lake untouched.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkTiering {
    private static final long SEED = Long.getLong("lakestream.test.seed", 23L);
    private static final String NS = "tier";

    private final SparkTesting testing = SparkTesting.get();
    private final ExecutorService threads = Executors.newFixedThreadPool(2);

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @AfterAll
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void jobTiersWhatTheEmbeddedServiceTiers() {
        for (boolean primaryKey : List.of(true, false)) {
            String embedded = (primaryKey ? "pk" : "ao") + "_embedded";
            String job = (primaryKey ? "pk" : "ao") + "_job";
            for (String table : List.of(embedded, job)) {
                create(table, primaryKey, 4);
                testing.sql("INSERT INTO ls.tier.%s SELECT id, id * 10 FROM range(0, 500)".formatted(table));
                testing.sql("INSERT INTO ls.tier.%s SELECT id, id * 20 FROM range(250, 800)".formatted(table));
                if (primaryKey) {
                    testing.sql("UPDATE ls.tier.%s SET v = v + 1 WHERE id %% 7 = 3".formatted(table));
                    testing.sql("DELETE FROM ls.tier.%s WHERE id BETWEEN 100 AND 180".formatted(table));
                }
                testing.sql("INSERT INTO ls.tier.%s VALUES (5, -5), (9000, 9)".formatted(table));
            }
            // the same cap on both: several rounds, each a valid offset map
            TableTiering service = new TableTiering(
                    TieringConfig.builder().maxRecordsPerBucket(150).build(),
                    testing.warehouse().allocator(),
                    threads,
                    TieringHooks.NONE,
                    Clock.systemUTC());
            List<OffsetMap> serviceOffsets = new ArrayList<>();
            while (service.tier(SparkTables.load(NS, embedded)).outcome() == TieringResult.Outcome.TIERED) {
                serviceOffsets.add(lakeOffsets(embedded));
            }
            List<OffsetMap> jobOffsets = new ArrayList<>();
            long changes = 0;
            for (List<Object> row = callTier(job, 150L); row.getFirst().equals("TIERED"); row = callTier(job, 150L)) {
                jobOffsets.add(lakeOffsets(job));
                assertThat(row.get(3)).isEqualTo(offsetsJson(lakeOffsets(job)));
                changes += (Long) row.get(1);
            }
            assertThat(jobOffsets).as("offset maps round by round").isEqualTo(serviceOffsets);
            assertThat(jobOffsets.getLast()).isEqualTo(logEnds(job));
            assertThat(changes)
                    .isEqualTo(jobOffsets.getLast().offsets().values().stream()
                            .mapToLong(Long::longValue)
                            .sum());
            assertThat(query("SELECT id, v FROM ls.tier.`%s$lake`".formatted(job)))
                    .isNotEmpty()
                    .containsExactlyInAnyOrderElementsOf(
                            query("SELECT id, v FROM ls.tier.`%s$lake`".formatted(embedded)));
            assertThat(query("SELECT id, v FROM ls.tier." + job))
                    .containsExactlyInAnyOrderElementsOf(query("SELECT id, v FROM ls.tier." + embedded));
            assertThat(liveDataFiles(job)).as("files in the lake directory").isEqualTo(filesOnDisk(job));
        }
    }

    /**
     * Random inserts, updates and deletes through Spark, the job at random points with random caps; after each
     * step the union read equals the oracle, offsets never go backwards, and after tiering to the end the lake
     * alone equals the oracle.
     */
    @Test
    void randomRoundsMatchTheOracle() {
        Random random = new Random(SEED);
        create("random_pk", true, 5);
        create("random_ao", false, 3);
        Map<Long, Long> primaryKeyOracle = new TreeMap<>();
        List<List<Object>> appendOracle = new ArrayList<>();
        OffsetMap previousPk = OffsetMap.EMPTY;
        OffsetMap previousAo = OffsetMap.EMPTY;
        for (int round = 0; round < 16; round++) {
            String context = "seed %s (-Dlakestream.test.seed), round %s".formatted(SEED, round);
            switch (random.nextInt(4)) {
                case 0, 1 -> {
                    Map<Long, Long> batch = new TreeMap<>();
                    int size = 1 + random.nextInt(60);
                    while (batch.size() < size) {
                        batch.put((long) random.nextInt(300), (long) random.nextInt(100_000));
                    }
                    String values = batch.entrySet().stream()
                            .map(entry -> "(%s, %s)".formatted(entry.getKey(), entry.getValue()))
                            .collect(Collectors.joining(", "));
                    testing.sql("INSERT INTO ls.tier.random_pk VALUES " + values);
                    testing.sql("INSERT INTO ls.tier.random_ao VALUES " + values);
                    primaryKeyOracle.putAll(batch);
                    batch.forEach((id, v) -> appendOracle.add(List.of(id, v)));
                }
                case 2 -> {
                    long modulus = 2 + random.nextInt(5);
                    long remainder = random.nextInt((int) modulus);
                    testing.sql(
                            "UPDATE ls.tier.random_pk SET v = v + 1 WHERE id %% %s = %s".formatted(modulus, remainder));
                    primaryKeyOracle.replaceAll((id, v) -> id % modulus == remainder ? v + 1 : v);
                }
                default -> {
                    long low = random.nextInt(300);
                    long high = low + random.nextInt(40);
                    testing.sql("DELETE FROM ls.tier.random_pk WHERE id BETWEEN %s AND %s".formatted(low, high));
                    primaryKeyOracle.keySet().removeIf(id -> id >= low && id <= high);
                }
            }
            if (random.nextBoolean()) {
                long cap = 1 + random.nextInt(80);
                callTier("random_pk", cap);
                callTier("random_ao", cap);
            }
            OffsetMap pk = lakeOffsets("random_pk");
            OffsetMap ao = lakeOffsets("random_ao");
            assertNotBehind(pk, previousPk, context);
            assertNotBehind(ao, previousAo, context);
            previousPk = pk;
            previousAo = ao;
            assertThat(query("SELECT id, v FROM ls.tier.random_pk"))
                    .as(context)
                    .containsExactlyInAnyOrderElementsOf(entries(primaryKeyOracle));
            assertThat(query("SELECT id, v FROM ls.tier.random_ao"))
                    .as(context)
                    .containsExactlyInAnyOrderElementsOf(appendOracle);
            if (round % 5 == 4) {
                while (callTier("random_pk", 1L + random.nextInt(200))
                        .getFirst()
                        .equals("TIERED")) {}
                while (callTier("random_ao", 1L + random.nextInt(200))
                        .getFirst()
                        .equals("TIERED")) {}
                assertThat(lakeOffsets("random_pk")).as(context).isEqualTo(logEnds("random_pk"));
                assertThat(query("SELECT id, v FROM ls.tier.`random_pk$lake`"))
                        .as(context)
                        .containsExactlyInAnyOrderElementsOf(entries(primaryKeyOracle));
                assertThat(query("SELECT id, v FROM ls.tier.`random_ao$lake`"))
                        .as(context)
                        .containsExactlyInAnyOrderElementsOf(appendOracle);
            }
        }
    }

    /**
     * The embedded service commits while the job is inside its own commit (validated, not yet swapped): the
     * job's swap fails, Iceberg's retry meets the validator, the job re-plans and finds nothing to do; every row
     * is in the lake once (an append-only table would show a second tiering as duplicates) and the job's files
     * are gone.
     */
    @Test
    void jobLosingTheCommitRaceToTheEmbeddedServiceTiersNothingTwice() {
        create("race_job_loses", false, 3);
        testing.sql("INSERT INTO ls.tier.race_job_loses SELECT id, id FROM range(0, 300)");
        AtomicBoolean raced = new AtomicBoolean();
        TieringHooks embeddedCommitsFirst = (table, step, bucket) -> {
            if (step == TieringStep.COMMITTING && raced.compareAndSet(false, true)) {
                assertThat(testing.tiering()
                                .tier(SparkTables.load(NS, "race_job_loses"))
                                .outcome())
                        .isEqualTo(TieringResult.Outcome.TIERED);
            }
        };
        TieringRound.Result result = new SparkTiering(testing.spark(), "ls", catalogOptions(), embeddedCommitsFirst)
                .tier(SparkTables.load(NS, "race_job_loses"), Long.MAX_VALUE);

        assertThat(raced).isTrue();
        assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
        assertThat(lakeOffsets("race_job_loses")).isEqualTo(logEnds("race_job_loses"));
        assertThat(query("SELECT count(*), count(DISTINCT id) FROM ls.tier.`race_job_loses$lake`"))
                .containsExactly(List.of(300L, 300L));
        assertThat(liveDataFiles("race_job_loses"))
                .as("the job's files were deleted")
                .isEqualTo(filesOnDisk("race_job_loses"));
    }

    /** The other way round: the job commits while the embedded service is inside its commit. */
    @Test
    void embeddedServiceLosingTheCommitRaceToTheJobTiersNothingTwice() {
        create("race_service_loses", false, 3);
        testing.sql("INSERT INTO ls.tier.race_service_loses SELECT id, id FROM range(0, 300)");
        AtomicBoolean raced = new AtomicBoolean();
        TieringHooks jobCommitsFirst = (table, step, bucket) -> {
            if (step == TieringStep.COMMITTING && raced.compareAndSet(false, true)) {
                assertThat(callTier("race_service_loses", null).getFirst()).isEqualTo("TIERED");
            }
        };
        TableTiering service = new TableTiering(
                TieringConfig.defaults(), testing.warehouse().allocator(), threads, jobCommitsFirst, Clock.systemUTC());
        TieringResult result = service.tier(SparkTables.load(NS, "race_service_loses"));

        assertThat(raced).isTrue();
        assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
        assertThat(lakeOffsets("race_service_loses")).isEqualTo(logEnds("race_service_loses"));
        assertThat(query("SELECT count(*), count(DISTINCT id) FROM ls.tier.`race_service_loses$lake`"))
                .containsExactly(List.of(300L, 300L));
        assertThat(liveDataFiles("race_service_loses")).isEqualTo(filesOnDisk("race_service_loses"));
    }

    /**
     * Two jobs on one table (a retried job, a zombie driver): the second commits while the first is inside its
     * commit; the first re-plans and finds nothing to do. Append-only, so a range tiered twice would show.
     */
    @Test
    void jobLosingTheCommitRaceToAnotherJobTiersNothingTwice() {
        create("race_two_jobs", false, 3);
        testing.sql("INSERT INTO ls.tier.race_two_jobs SELECT id, id FROM range(0, 300)");
        AtomicBoolean raced = new AtomicBoolean();
        TieringHooks secondJobCommitsFirst = (table, step, bucket) -> {
            if (step == TieringStep.COMMITTING && raced.compareAndSet(false, true)) {
                assertThat(callTier("race_two_jobs", null).getFirst()).isEqualTo("TIERED");
            }
        };
        TieringRound.Result result = new SparkTiering(testing.spark(), "ls", catalogOptions(), secondJobCommitsFirst)
                .tier(SparkTables.load(NS, "race_two_jobs"), Long.MAX_VALUE);

        assertThat(raced).isTrue();
        assertThat(result.outcome()).isEqualTo(TieringResult.Outcome.UP_TO_DATE);
        assertThat(lakeOffsets("race_two_jobs")).isEqualTo(logEnds("race_two_jobs"));
        assertThat(query("SELECT count(*), count(DISTINCT id) FROM ls.tier.`race_two_jobs$lake`"))
                .containsExactly(List.of(300L, 300L));
        assertThat(liveDataFiles("race_two_jobs")).isEqualTo(filesOnDisk("race_two_jobs"));
    }

    @Test
    void badStatesFailWithTheEmbeddedServicesCodesAndLeaveTheLakeAlone() {
        create("ahead", true, 2);
        testing.sql("INSERT INTO ls.tier.ahead SELECT id, id FROM range(0, 20)");
        callTier("ahead", null);
        testing.sql("INSERT INTO ls.tier.ahead SELECT id, id FROM range(20, 40)");
        // a lake snapshot claiming offsets the log never had (the log was replaced or truncated)
        Table lake = SparkTables.load(NS, "ahead").lake();
        var append = lake.newAppend();
        LakePosition.summary(new OffsetMap(Map.of(0, 1_000L, 1, 1_000L)), 99).forEach(append::set);
        append.commit();
        assertUnchangedAfterFailure("ahead", "LAKE_AHEAD_OF_LOG");

        create("removed", true, 2);
        testing.sql("INSERT INTO ls.tier.removed SELECT id, id FROM range(0, 20)");
        // retention removed changes no one tiered
        SparkTables.load(NS, "removed")
                .log()
                .removeSegments(new OffsetMap(Map.of(0, 1_000L, 1, 1_000L)), Long.MAX_VALUE);
        assertUnchangedAfterFailure("removed", "LOG_RANGE_REMOVED");

        assertThatThrownBy(() -> testing.sql("CALL ls.system.tier(table => 'tier.missing')"))
                .hasStackTraceContaining("TABLE_NOT_FOUND");
        assertThatThrownBy(() -> testing.sql("CALL ls.system.tier(table => 'nonamespace')"))
                .hasStackTraceContaining("INVALID_NAME");
        assertThatThrownBy(() -> testing.sql("CALL ls.system.tier(table => 'tier.ahead', max_records_per_bucket => 0)"))
                .hasStackTraceContaining("max_records_per_bucket must be positive");
        assertThatThrownBy(() -> testing.sql("CALL ls.system.expire_log(table => 'tier.ahead', retention => 'soon')"))
                .hasStackTraceContaining("INVALID_CATALOG_CONFIG");
        assertThatThrownBy(() -> testing.sql("CALL ls.system.compact_everything(table => 'tier.ahead')"))
                .hasStackTraceContaining("UNSUPPORTED_OPERATION");
    }

    /** The spark-submit main class's pass: every table of the namespace, a broken one not stopping the others. */
    @Test
    void passOverANamespaceTiersEveryTableAndSkipsABrokenOne() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls.tier_all");
        for (String table : List.of("a", "b", "broken")) {
            testing.sql("CREATE TABLE ls.tier_all.%s (id BIGINT NOT NULL, v BIGINT) USING lakestream ".formatted(table)
                    + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
            testing.sql("INSERT INTO ls.tier_all.%s SELECT id, id FROM range(0, 50)".formatted(table));
        }
        SparkTables.load("tier_all", "broken")
                .log()
                .removeSegments(new OffsetMap(Map.of(0, 1_000L, 1, 1_000L)), Long.MAX_VALUE);

        Map<String, LakestreamSparkTiering.TableResult> results =
                LakestreamSparkTiering.tierAll(testing.spark(), "ls", java.util.Optional.of("tier_all")).stream()
                        .collect(Collectors.toMap(LakestreamSparkTiering.TableResult::table, result -> result));

        assertThat(results).containsOnlyKeys("tier_all.a", "tier_all.b", "tier_all.broken");
        for (String table : List.of("a", "b")) {
            assertThat(results.get("tier_all." + table).row())
                    .hasValueSatisfying(row -> assertThat(row.getString(0)).isEqualTo("TIERED"));
            assertThat(rows(testing.sql("SELECT count(*) FROM ls.tier_all.`%s$lake`".formatted(table))))
                    .containsExactly(List.of(50L));
        }
        assertThat(results.get("tier_all.broken").error())
                .hasValueSatisfying(error -> assertThat(error).contains("LOG_RANGE_REMOVED"));
    }

    /** {@code system.expire_log}: removes only segments the lake holds; reads stay whole. */
    @Test
    void expireLogRemovesOnlyTieredSegments() {
        create("expire", true, 2);
        testing.sql("INSERT INTO ls.tier.expire SELECT id, id FROM range(0, 40)");
        testing.sql("INSERT INTO ls.tier.expire SELECT id, id * 2 FROM range(20, 60)");
        assertThat(query("CALL ls.system.expire_log(table => 'tier.expire', retention => '0s')"))
                .as("nothing is in the lake yet")
                .containsExactly(List.of(0));
        callTier("expire", null);
        testing.sql("INSERT INTO ls.tier.expire SELECT id, id * 3 FROM range(50, 70)");
        assertThat(query("CALL ls.system.expire_log(table => 'tier.expire')"))
                .as("the default retention (24h) keeps them")
                .containsExactly(List.of(0));
        List<List<Object>> removed = query("CALL ls.system.expire_log(table => 'tier.expire', retention => '0s')");
        assertThat((Integer) removed.getFirst().getFirst()).isPositive();
        Map<Long, Long> expected = new TreeMap<>();
        for (long id = 0; id < 70; id++) {
            expected.put(id, id < 20 ? id : id < 50 ? id * 2 : id * 3);
        }
        assertThat(query("SELECT id, v FROM ls.tier.expire")).containsExactlyInAnyOrderElementsOf(entries(expected));
        while (callTier("expire", null).getFirst().equals("TIERED")) {}
        assertThat(query("SELECT id, v FROM ls.tier.`expire$lake`"))
                .containsExactlyInAnyOrderElementsOf(entries(expected));
    }

    /** {@code system.remove_orphans}: an unreferenced lake file older than the lake orphan age goes, a young one stays. */
    @Test
    void removeOrphansRemovesOldUnreferencedLakeFiles() throws IOException {
        create("orphans", true, 2);
        testing.sql("INSERT INTO ls.tier.orphans SELECT id, id FROM range(0, 40)");
        callTier("orphans", null);
        String location = SparkTables.load(NS, "orphans").lake().location();
        Path data = (location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location)).resolve("data");
        Path old = Files.writeString(data.resolve("00000-0-crashed-attempt-00001.parquet"), "left by a crash");
        Files.setLastModifiedTime(
                old,
                java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofDays(4))));
        Path young = Files.writeString(data.resolve("00000-0-running-attempt-00001.parquet"), "a commit in progress");
        Set<String> live = liveDataFiles("orphans");

        assertThat(query("CALL ls.system.remove_orphans(table => 'tier.orphans')"))
                .containsExactly(List.of(1));
        assertThat(old).doesNotExist();
        assertThat(young).exists();
        Files.delete(young);
        assertThat(filesOnDisk("orphans")).isEqualTo(live);
        assertThat(query("SELECT count(*) FROM ls.tier.`orphans$lake`")).containsExactly(List.of(40L));
    }

    private void assertUnchangedAfterFailure(String table, String errorCode) {
        Table lake = SparkTables.load(NS, table).lake();
        Long before =
                lake.currentSnapshot() == null ? null : lake.currentSnapshot().snapshotId();
        assertThatThrownBy(() -> callTier(table, null)).hasStackTraceContaining(errorCode);
        lake.refresh();
        assertThat(
                        lake.currentSnapshot() == null
                                ? null
                                : lake.currentSnapshot().snapshotId())
                .isEqualTo(before);
    }

    private void create(String table, boolean primaryKey, int buckets) {
        testing.sql(
                ("CREATE TABLE ls.tier.%s (id BIGINT NOT NULL, v BIGINT) USING lakestream TBLPROPERTIES (%s'bucket.num'='%s')")
                        .formatted(table, primaryKey ? "'primary-key'='id', " : "'bucket.key'='id', ", buckets));
    }

    /** {@code CALL ls.system.tier(...)}: its one row. */
    private List<Object> callTier(String table, Long maxRecordsPerBucket) {
        String cap = maxRecordsPerBucket == null ? "" : ", max_records_per_bucket => " + maxRecordsPerBucket;
        List<List<Object>> result = query("CALL ls.system.tier(table => '%s.%s'%s)".formatted(NS, table, cap));
        assertThat(result).hasSize(1);
        return result.getFirst();
    }

    private Map<String, String> catalogOptions() {
        return Map.of("warehouse", testing.warehouseDirectory().toString());
    }

    private List<List<Object>> query(String sql) {
        return rows(testing.sql(sql));
    }

    private static OffsetMap lakeOffsets(String table) {
        return LakePosition.current(SparkTables.load(NS, table).lake()).offsets();
    }

    private static OffsetMap logEnds(String table) {
        LakestreamTable loaded = SparkTables.load(NS, table);
        var snapshot = loaded.log().latestSnapshot();
        Map<Integer, Long> ends = new HashMap<>();
        for (int bucket = 0; bucket < snapshot.bucketCount(); bucket++) {
            ends.put(bucket, snapshot.bucket(bucket).endOffset());
        }
        return new OffsetMap(ends);
    }

    private static String offsetsJson(OffsetMap offsets) {
        return LakePosition.summary(offsets, 0).get(io.lakestream.table.LakestreamProperties.SUMMARY_LOG_OFFSETS);
    }

    private static void assertNotBehind(OffsetMap now, OffsetMap before, String context) {
        before.offsets()
                .forEach((bucket, offset) -> assertThat(now.offset(bucket))
                        .as("%s: bucket %s", context, bucket)
                        .isGreaterThanOrEqualTo(offset));
    }

    private static List<List<Object>> entries(Map<Long, Long> oracle) {
        return oracle.entrySet().stream()
                .map(entry -> List.<Object>of(entry.getKey(), entry.getValue()))
                .toList();
    }

    /** File names of the live data and delete files of the lake's current snapshot (read from its manifests). */
    private static Set<String> liveDataFiles(String table) {
        Table lake = SparkTables.load(NS, table).lake();
        Set<String> files = new HashSet<>();
        if (lake.currentSnapshot() == null) {
            return files;
        }
        for (ManifestFile manifest : lake.currentSnapshot().allManifests(lake.io())) {
            try (CloseableIterable<? extends ContentFile<?>> entries = manifest.content() == ManifestContent.DATA
                    ? ManifestFiles.read(manifest, lake.io(), lake.specs())
                    : ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs())) {
                entries.forEach(file -> files.add(fileName(file.location())));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    /** File names of the Parquet files under the table's lake data directory. */
    private static Set<String> filesOnDisk(String table) {
        String location = SparkTables.load(NS, table).lake().location();
        Path data = (location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location)).resolve("data");
        if (!Files.exists(data)) {
            return Set.of();
        }
        try (Stream<Path> files = Files.walk(data)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".parquet"))
                    .map(file -> fileName(file.toString()))
                    .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String fileName(String location) {
        return location.substring(location.lastIndexOf('/') + 1);
    }
}
