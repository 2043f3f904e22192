package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.CATALOG;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.plan.LakeFile;
import io.lakestream.testing.Seeds;
import io.trino.Session;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.spi.TrinoException;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.MaterializedRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.StreamSupport;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lake key cache ({@link LakeKeyCache}): a merge with a log tail takes the keys of compacted lake files
 * from the worker's cache instead of decoding the key column. Every read is checked against an oracle and
 * against the same read with the cache off; the cache must stay correct when tiering and compaction
 * replace lake files, under time travel to older lake snapshots, and when a file at a path is replaced.
 */
@ExtendWith(Seeds.class)
final class TestLakestreamLakeKeyCache extends AbstractReadPathTest {
    /**
     * Random upserts and deletes through SQL, tiering and compaction at random points; after every round
     * the union read (key not selected, so merged by cached keys) equals the oracle, with and without the
     * cache and with random filters; and every earlier version read by time travel still equals its oracle.
     */
    @Test
    void randomizedAgainstAnOracleAcrossTieringCompactionAndTimeTravel() {
        long seed = Seeds.seed(20261202);
        Random random = new Random(seed);
        assertUpdate(
                "CREATE TABLE random_keys (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        Map<Long, Long> oracle = new TreeMap<>();
        Map<Long, Map<Long, Long>> versions = new HashMap<>();
        long cachedFiles = 0;
        for (int round = 0; round < 16; round++) {
            String context = "seed " + seed + ", round " + round;
            changeKeysAtRandom(
                    random,
                    "random_keys",
                    random.longs(60, 0, 400).distinct().boxed().toList(),
                    oracle);
            switch (random.nextInt(4)) {
                case 0 -> tables.tier("random_keys");
                case 1 -> tierAndCompact("random_keys");
                default -> {}
            }
            versions.put(logVersion("random_keys"), new TreeMap<>(oracle));

            assertValuesEqualOracle("SELECT v FROM random_keys", oracle.values(), context);
            Metrics metrics = scanMetrics(getSession(), "SELECT v FROM random_keys");
            cachedFiles += count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS)
                    + count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES);
            long bound = random.nextInt(1000);
            List<Long> filtered =
                    oracle.values().stream().filter(v -> v < bound).toList();
            assertValuesEqualOracle("SELECT v FROM random_keys WHERE v < " + bound, filtered, context);
            for (String sql : List.of(
                    "SELECT count(*), sum(v) FROM random_keys",
                    "SELECT v FROM random_keys WHERE v % 3 = " + random.nextInt(3),
                    "SELECT v, id FROM random_keys WHERE v > " + bound)) {
                assertSameWithoutCache(sql, context);
            }
            // an earlier version: its lake snapshot may list files compacted away since
            List<Long> known = new ArrayList<>(versions.keySet());
            long version = known.get(random.nextInt(known.size()));
            for (int repeat = 0; repeat < 2; repeat++) {
                assertValuesEqualOracle(
                        "SELECT v FROM random_keys FOR VERSION AS OF " + version,
                        versions.get(version).values(),
                        context + ", version " + version);
            }
        }
        // compacted lake files and a tail: the merge takes the cached keys (a test that never did would prove nothing)
        tierAndCompact("random_keys");
        assertUpdate("INSERT INTO random_keys VALUES (1000000, 1), (0, 2)", 2);
        oracle.put(1000000L, 1L);
        oracle.put(0L, 2L);
        Metrics metrics = scanMetrics(getSession(), "SELECT v FROM random_keys");
        cachedFiles += count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS)
                + count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES);
        assertThat(cachedFiles).as("seed " + seed).isPositive();
        // compaction sorts a bucket by key: the merged buckets' rows (no filter) are matched in key order
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS_IN_KEY_ORDER))
                .as("seed " + seed)
                .isPositive();
        assertValuesEqualOracle("SELECT v FROM random_keys", oracle.values(), "seed " + seed + ", at the end");
        assertSameWithoutCache("SELECT v FROM random_keys WHERE v < 500", "seed " + seed + ", at the end");
    }

    /**
     * Compaction replaces a bucket's lake file: the next merge reads the new file's keys (a miss), and a
     * read of the version before the compaction still merges the old file's keys correctly.
     */
    @Test
    void compactedAwayFilesAndTimeTravel() {
        assertUpdate("CREATE TABLE compacted (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO compacted SELECT x, x FROM UNNEST(sequence(1, 1000)) t(x)", 1000);
        tierAndCompact("compacted");
        assertUpdate("INSERT INTO compacted VALUES (1, -1), (2, -2)", 2);
        assertUpdate("DELETE FROM compacted WHERE id = 3", 1);
        long before = logVersion("compacted");
        String sum = "SELECT count(*), sum(v) FROM compacted";
        long expected = 500_500 - 1 - 2 - 3 - 1 - 2;
        // the first merge of the file misses; each node that reads it misses once, then hits
        int nodes = getQueryRunner().getNodeCount();
        Metrics first = scanMetrics(getSession(), sum);
        assertThat(count(first, LakestreamMetrics.LAKE_KEY_CACHE_MISSES)).isEqualTo(1);
        long misses = 1;
        long hits = 0;
        for (int run = 0; run < nodes + 2; run++) {
            Metrics metrics = scanMetrics(getSession(), sum);
            misses += count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES);
            hits += count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS);
            assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS_HIDDEN)).isEqualTo(3);
        }
        assertThat(misses).isBetween(1L, (long) nodes);
        assertThat(hits + misses).isEqualTo(nodes + 3);
        assertQuery(sum, "VALUES (999, %d)".formatted(expected));

        // compaction rewrites the bucket (ids 1 and 2 changed, 3 gone), then a new tail
        tierAndCompact("compacted");
        assertUpdate("INSERT INTO compacted VALUES (4, -4), (1001, 1)", 2);
        Metrics after = scanMetrics(getSession(), sum);
        assertThat(count(after, LakestreamMetrics.LAKE_KEY_CACHE_MISSES)).isEqualTo(1);
        assertQuery(sum, "VALUES (1000, %d)".formatted(expected - 4 - 4 + 1));
        assertSameWithoutCache("SELECT v FROM compacted", "after compaction");

        // the version before the compaction reads the old file and the old tail
        assertQuery(sum + " FOR VERSION AS OF " + before, "VALUES (999, %d)".formatted(expected));
        assertQuery("SELECT v FROM compacted FOR VERSION AS OF " + before + " WHERE v < 0", "VALUES -1, -2");
    }

    /**
     * Lake files of many small row groups, some skipped by a filter on a column that follows the key (and
     * whole files, by their column metrics): the rows of the pages read are found in the cached keys by their
     * row numbers in the file.
     */
    @Test
    void rowGroupsSkippedByTheFilter() {
        assertUpdate("CREATE TABLE groups (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        tables.load("groups")
                .lake()
                .updateProperties()
                .set("write.parquet.row-group-size-bytes", "512")
                .set("write.parquet.row-group-check-min-record-count", "10")
                .set("write.parquet.row-group-check-max-record-count", "20")
                .commit();
        assertUpdate("INSERT INTO groups SELECT x, x FROM UNNEST(sequence(1, 3000)) t(x)", 3000);
        tierAndCompact("groups");
        Map<Long, Long> oracle = new TreeMap<>();
        for (long id = 1; id <= 3000; id++) {
            oracle.put(id, id);
        }
        Random random = Seeds.random(5);
        List<String> rows = new ArrayList<>();
        for (long id : random.longs(300, 1, 3100).distinct().boxed().toList()) {
            // the new version keeps the value's range, so a filter on v selects old and new versions alike
            long value = id + (random.nextBoolean() ? 0 : 1);
            oracle.put(id, value);
            rows.add("(" + id + ", " + value + ")");
        }
        assertUpdate("INSERT INTO groups VALUES " + String.join(", ", rows), rows.size());
        for (long low : List.of(1L, 500L, 1234L, 2900L)) {
            long high = low + 150;
            String sql = "SELECT v FROM groups WHERE v BETWEEN %d AND %d".formatted(low, high);
            List<Long> expected =
                    oracle.values().stream().filter(v -> v >= low && v <= high).toList();
            for (int repeat = 0; repeat < 2; repeat++) {
                assertValuesEqualOracle(sql, expected, sql);
            }
            Metrics metrics = scanMetrics(getSession(), sql);
            // the writer rolls over to new files too (tens of them, of a few row groups each): all use cached keys
            assertThat(count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS)
                            + count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES))
                    .isPositive();
            assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isEqualTo(1);
            // the filter skipped files and row groups (else this test would not test them)
            assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS)).isLessThan(1500);
            assertSameWithoutCache(sql, sql);
        }
    }

    /** Queries that read the key column anyway (selected, filtered, a DELETE's row id) merge on its block. */
    @Test
    void keyColumnReadByTheQueryNeedsNoCache() {
        assertUpdate("CREATE TABLE selected (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO selected SELECT x, x FROM UNNEST(sequence(1, 100)) t(x)", 100);
        tierAndCompact("selected");
        assertUpdate("INSERT INTO selected VALUES (5, 50)", 1);
        for (String sql : List.of("SELECT id, v FROM selected", "SELECT v FROM selected WHERE id > 3")) {
            Metrics metrics = scanMetrics(getSession(), sql);
            assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS)).isPositive();
            assertThat(count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_HITS)
                            + count(metrics, LakestreamMetrics.LAKE_KEY_CACHE_MISSES))
                    .as(sql)
                    .isZero();
        }
        assertQuery("SELECT sum(v) FROM selected WHERE id > 3", "VALUES %d".formatted(5050 - 6 + 45));
        assertUpdate("DELETE FROM selected WHERE v = 50", 2);
        assertQuery("SELECT count(*), sum(v) FROM selected", "VALUES (98, %d)".formatted(5050 - 5 - 50));
    }

    /**
     * A different file at the same path is a different entry (its size and row count are part of the key);
     * a file changed behind the lake's metadata (a different row count than the metadata says) is an error
     * that names the file, not a wrong merge. Real lake files, read through Trino's local file system.
     */
    @Test
    void fileReplacedAtTheSamePath() throws IOException {
        assertUpdate("CREATE TABLE files (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO files SELECT x, x FROM UNNEST(sequence(1, 50)) t(x)", 50);
        tierAndCompact("files");
        DataFile small = onlyDataFile("files");
        assertUpdate("INSERT INTO files SELECT x, x FROM UNNEST(sequence(51, 200)) t(x)", 150);
        tierAndCompact("files");
        DataFile large = onlyDataFile("files");
        assertThat(large.recordCount()).isEqualTo(200);

        Path copy = Files.createTempDirectory("lake-key-cache").resolve("data.parquet");
        LocalFileSystem fileSystem = new LocalFileSystem(Path.of("/"));
        LakeKeyCache cache = new LakeKeyCache(1 << 20);
        int keyFieldId =
                tables.load("files").definition().primaryKeyFields().getFirst().fieldId();
        LakeParquetFile.ReadColumn key = new LakeParquetFile.ReadColumn(keyFieldId, BIGINT);

        Files.copy(Path.of(java.net.URI.create(small.location())), copy);
        LakeFile first = lakeFile(copy, small.recordCount());
        assertThat(keys(cache, first, key, fileSystem)).containsExactly(longs(1, 50));

        Files.copy(Path.of(java.net.URI.create(large.location())), copy, StandardCopyOption.REPLACE_EXISTING);
        LakeFile replaced = lakeFile(copy, large.recordCount());
        LakeKeyCache.Keys keys = cache.keys(replaced, keyFieldId, () -> LakeKeyColumn.read(replaced, key, fileSystem));
        assertThat(keys.hit()).isFalse();
        assertThat(keys.keys()).containsExactly(longs(1, 200));
        assertThat(cache.keys(replaced, keyFieldId, () -> {
                            throw new AssertionError("read again");
                        })
                        .hit())
                .isTrue();

        // the metadata of the small file over the large file's content: the row count does not match
        LakeFile stale = new LakeFile(copy.toUri().toString(), 0, Files.size(copy), Files.size(copy), 50, List.of());
        assertThatThrownBy(() -> new LakeKeyCache(1 << 20)
                        .keys(stale, keyFieldId, () -> LakeKeyColumn.read(stale, key, fileSystem)))
                .isInstanceOfSatisfying(
                        TrinoException.class,
                        e -> assertThat(e.getErrorCode())
                                .isEqualTo(LakestreamErrorCode.LAKESTREAM_BAD_DATA.toErrorCode()))
                .hasMessageContaining(copy.getFileName().toString())
                .hasMessageContaining("50 rows");

        // a cache too small for a file keeps nothing, and the merge reads the key column instead
        assertThat(new LakeKeyCache(8 * 100).fits(200)).isFalse();
        assertThat(new LakeKeyCache(0).fits(1)).isFalse();
        assertThat(cache.cachedBytes()).isGreaterThanOrEqualTo(8 * 250);
    }

    private static long[] keys(LakeKeyCache cache, LakeFile file, LakeParquetFile.ReadColumn key, LocalFileSystem fs) {
        LakeKeyCache.Keys keys = cache.keys(file, key.fieldId(), () -> LakeKeyColumn.read(file, key, fs));
        assertThat(keys.hit()).isFalse();
        return keys.keys();
    }

    private static LakeFile lakeFile(Path path, long records) throws IOException {
        long size = Files.size(path);
        return new LakeFile(path.toUri().toString(), 0, size, size, records, List.of());
    }

    private static long[] longs(long from, long to) {
        return java.util.stream.LongStream.rangeClosed(from, to).toArray();
    }

    private DataFile onlyDataFile(String table) {
        try (CloseableIterable<FileScanTask> tasks =
                tables.load(table).lake().newScan().planFiles()) {
            List<DataFile> files = StreamSupport.stream(tasks.spliterator(), false)
                    .map(FileScanTask::file)
                    .toList();
            assertThat(files).hasSize(1);
            return files.getFirst();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private long logVersion(String table) {
        return tables.load(table).log().latestSnapshot().version();
    }

    private Session withoutCache() {
        return Session.builder(getSession())
                .setCatalogSessionProperty(CATALOG, LakestreamSessionProperties.LAKE_KEY_CACHE_ENABLED, "false")
                .build();
    }

    private void assertSameWithoutCache(String sql, String context) {
        List<MaterializedRow> cached = computeActual(sql).getMaterializedRows();
        List<MaterializedRow> uncached = computeActual(withoutCache(), sql).getMaterializedRows();
        assertThat(cached).as(context + ": " + sql).containsExactlyInAnyOrderElementsOf(uncached);
        assertSameOnBothPaths(sql);
    }

    private void assertValuesEqualOracle(String sql, java.util.Collection<Long> expected, String context) {
        List<Long> actual = computeActual(sql).getMaterializedRows().stream()
                .map(row -> (Long) row.getField(0))
                .toList();
        assertThat(actual).as(context + ": " + sql).containsExactlyInAnyOrderElementsOf(expected);
    }
}
