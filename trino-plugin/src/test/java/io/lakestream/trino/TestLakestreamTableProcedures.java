package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedRow;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
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
