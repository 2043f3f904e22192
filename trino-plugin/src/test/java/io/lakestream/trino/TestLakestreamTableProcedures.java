package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trino.testing.MaterializedRow;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * The table procedures ({@code ALTER TABLE t EXECUTE ...}) through the connector's own file IO over Trino's file
 * system layer, on tables tiered by the real tiering code: what each removes or rewrites, exactly, and that the
 * rows stay those written.
 */
final class TestLakestreamTableProcedures extends AbstractLakestreamSqlTest {
    /** An unreferenced lake file older than the lake orphan age goes, a young one and every referenced file stay. */
    @Test
    void removeOrphansRemovesAnAgedUnreferencedLakeFile() throws IOException {
        assertUpdate("CREATE TABLE orphans (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO orphans SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(1, 40)) t(x)", 40);
        tables.tier("orphans");
        Path data = dataDirectory("orphans");
        Path old = Files.writeString(data.resolve("00000-0-crashed-attempt-00001.parquet"), "left by a crash");
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofDays(4))));
        Path young = Files.writeString(data.resolve("00000-0-running-attempt-00001.parquet"), "a commit in progress");
        Set<Path> live = liveFiles("orphans");

        assertThat(execute("ALTER TABLE orphans EXECUTE remove_orphans")).isEqualTo(Map.of("removed_files_count", 1L));

        assertThat(old).doesNotExist();
        assertThat(young).exists();
        Files.delete(young);
        assertThat(parquetFiles(data)).isEqualTo(live);
        assertQuery("SELECT count(*), min(id), max(id) FROM orphans", "VALUES (40, 1, 40)");
        assertQuery("SELECT count(*) FROM \"orphans$lake\"", "VALUES 40");
    }

    /**
     * {@code compact} with a {@code WHERE}: as Spark's {@code where}, it selects the buckets with a lake file that
     * may hold a matching row (a condition on the bucket key: its bucket; {@code "$bucket"}: that bucket) and
     * rewrites only those; the other buckets keep exactly their files, and the rows stay those written.
     */
    @Test
    void compactWithWhereRewritesOnlyTheSelectedBuckets() throws IOException {
        assertUpdate(
                "CREATE TABLE compacted (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        Map<Long, String> oracle = new TreeMap<>();
        for (int round = 0; round < 3; round++) {
            List<String> rows = new ArrayList<>();
            for (long id = round; id < 30; id += 2) {
                String value = "r" + round + "-" + id;
                oracle.put(id, value);
                rows.add("(%s, '%s')".formatted(id, value));
            }
            assertUpdate("INSERT INTO compacted VALUES " + String.join(", ", rows), rows.size());
            long low = round * 7L;
            long present = oracle.keySet().stream()
                    .filter(id -> id >= low && id <= low + 1)
                    .count();
            assertUpdate("DELETE FROM compacted WHERE id BETWEEN %s AND %s".formatted(low, low + 1), present);
            oracle.keySet().removeIf(id -> id >= low && id <= low + 1);
            tables.tier("compacted");
        }
        Map<Integer, LakeBucketFiles> before = lakeFilesByBucket("compacted");
        assertThat(before).hasSize(3);
        assertThat(before.values())
                .allMatch(files -> files.data().size() > 1 && !files.deletes().isEmpty());
        long key = 17;
        int bucket = ((Number) computeScalar("SELECT \"$bucket\" FROM compacted WHERE id = " + key)).intValue();

        assertThat(execute("ALTER TABLE compacted EXECUTE compact WHERE id = " + key))
                .isEqualTo(Map.of(
                        "rewritten_data_files_count",
                                (long) before.get(bucket).data().size(),
                        "removed_delete_files_count",
                                (long) before.get(bucket).deletes().size(),
                        "added_data_files_count", 1L));

        Map<Integer, LakeBucketFiles> after = lakeFilesByBucket("compacted");
        assertThat(after.get(bucket).data())
                .hasSize(1)
                .doesNotContainAnyElementsOf(before.get(bucket).data());
        assertThat(after.get(bucket).deletes()).isEmpty();
        for (int other = 0; other < 3; other++) {
            if (other != bucket) {
                assertThat(after.get(other)).as("bucket %s untouched", other).isEqualTo(before.get(other));
            }
        }
        assertRows("compacted", oracle);

        // the hidden bucket column selects one bucket
        int second = (bucket + 1) % 3;
        assertThat(execute("ALTER TABLE compacted EXECUTE compact WHERE \"$bucket\" = " + second))
                .containsEntry("added_data_files_count", 1L)
                .containsEntry("removed_delete_files_count", (long)
                        before.get(second).deletes().size());
        Map<Integer, LakeBucketFiles> afterSecond = lakeFilesByBucket("compacted");
        assertThat(afterSecond.get(second).deletes()).isEmpty();
        assertThat(afterSecond.get(second).data()).hasSize(1);
        int third = (bucket + 2) % 3;
        assertThat(afterSecond.get(third)).isEqualTo(before.get(third));
        assertThat(afterSecond.get(bucket)).isEqualTo(after.get(bucket));
        assertRows("compacted", oracle);

        // a condition the scan cannot enforce exactly is refused by Trino, nothing committed
        long snapshot = tables.load("compacted").lake().currentSnapshot().snapshotId();
        assertThatThrownBy(() -> computeActual("ALTER TABLE compacted EXECUTE compact WHERE length(v) > 2"))
                .hasMessageContaining("connector was not able to handle provided WHERE expression");
        assertThat(tables.load("compacted").lake().currentSnapshot().snapshotId())
                .isEqualTo(snapshot);

        // a selected bucket with nothing to fold: no commit
        assertThat(execute("ALTER TABLE compacted EXECUTE compact WHERE id = " + key))
                .isEqualTo(Map.of(
                        "rewritten_data_files_count", 0L,
                        "removed_delete_files_count", 0L,
                        "added_data_files_count", 0L));
        assertThat(tables.load("compacted").lake().currentSnapshot().snapshotId())
                .isEqualTo(snapshot);

        // no WHERE: the last bucket
        assertThat(execute("ALTER TABLE compacted EXECUTE compact")).containsEntry("removed_delete_files_count", (long)
                before.get(third).deletes().size());
        assertThat(lakeFilesByBucket("compacted").values())
                .hasSize(3)
                .allMatch(files -> files.data().size() == 1 && files.deletes().isEmpty());
        assertRows("compacted", oracle);
    }

    private void assertRows(String table, Map<Long, String> oracle) {
        String expected = oracle.entrySet().stream()
                .map(entry -> "(%s, '%s')".formatted(entry.getKey(), entry.getValue()))
                .collect(Collectors.joining(", ", "VALUES ", ""));
        assertQuery("SELECT id, v FROM " + table, expected);
        assertQuery("SELECT id, v FROM \"" + table + "$lake\"", expected);
    }

    /** The data and delete files of a bucket in the lake's current snapshot. */
    private record LakeBucketFiles(Set<String> data, Set<String> deletes) {}

    private Map<Integer, LakeBucketFiles> lakeFilesByBucket(String table) throws IOException {
        Table lake = tables.load(table).lake();
        Map<Integer, LakeBucketFiles> buckets = new TreeMap<>();
        for (ManifestFile manifest : lake.currentSnapshot().allManifests(lake.io())) {
            if (manifest.content() == ManifestContent.DATA) {
                try (CloseableIterable<DataFile> entries = ManifestFiles.read(manifest, lake.io(), lake.specs())) {
                    entries.forEach(file -> bucketFiles(
                                    buckets, file.partition().get(0, Integer.class))
                            .data()
                            .add(file.location()));
                }
            } else {
                try (CloseableIterable<DeleteFile> entries =
                        ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs())) {
                    entries.forEach(file -> bucketFiles(
                                    buckets, file.partition().get(0, Integer.class))
                            .deletes()
                            .add(file.location()));
                }
            }
        }
        return buckets;
    }

    private static LakeBucketFiles bucketFiles(Map<Integer, LakeBucketFiles> buckets, int bucket) {
        return buckets.computeIfAbsent(bucket, ignored -> new LakeBucketFiles(new TreeSet<>(), new TreeSet<>()));
    }

    /** A table procedure's result: its counts by name. */
    private Map<String, Long> execute(String sql) {
        Map<String, Long> counts = new TreeMap<>();
        for (MaterializedRow row : computeActual(sql).getMaterializedRows()) {
            counts.put((String) row.getField(0), ((Number) row.getField(1)).longValue());
        }
        return counts;
    }

    private Path dataDirectory(String table) {
        return localPath(tables.load(table).lake().location()).resolve("data");
    }

    /** The data and delete files the table's current snapshot references. */
    private Set<Path> liveFiles(String table) throws IOException {
        Table lake = tables.load(table).lake();
        Set<Path> files = new HashSet<>();
        for (ManifestFile manifest : lake.currentSnapshot().allManifests(lake.io())) {
            if (manifest.content() == ManifestContent.DATA) {
                try (CloseableIterable<DataFile> entries = ManifestFiles.read(manifest, lake.io(), lake.specs())) {
                    entries.forEach(file -> files.add(localPath(file.location())));
                }
            } else {
                try (CloseableIterable<DeleteFile> entries =
                        ManifestFiles.readDeleteManifest(manifest, lake.io(), lake.specs())) {
                    entries.forEach(file -> files.add(localPath(file.location())));
                }
            }
        }
        return files;
    }

    private static Set<Path> parquetFiles(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.toString().endsWith(".parquet")).collect(Collectors.toSet());
        }
    }

    private static Path localPath(String location) {
        return location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    }
}
