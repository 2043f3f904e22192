package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.table.LakestreamProperties;
import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The lake maintenance procedures ({@code system.compact}, {@code system.expire_snapshots}) run from Spark on a
 * table written through Trino and tiered by the real tiering service: the rows stay exactly what the test wrote
 * (an oracle of the writes, seed {@code -Dlakestream.test.seed}), and Lakestream's union read and lake read in
 * Trino and Spark and Trino's stock Iceberg connector all show them afterwards.
 */
@ExtendWith(Seeds.class)
final class TestLakeMaintenanceProcedures {
    /** The default seed; {@link Seeds#PROPERTY} overrides it, and a failure names the seed that replays it. */
    private static final long SEED = 2323L;

    private final CrossEngine engines = CrossEngine.get();

    @Test
    void sparkCompactFoldsDeleteFilesAndKeepsTheRows() {
        String schema = "spark_compact";
        String table = createTable(schema);
        Map<Long, String> oracle = writeTieredRounds(schema, table, Seeds.random(SEED), 3);
        Table lake = engines.lake(schema, "t");
        lake.refresh();
        Snapshot before = lake.currentSnapshot();
        long dataFilesBefore = total(before, SnapshotSummary.TOTAL_DATA_FILES_PROP);
        assertThat(total(before, SnapshotSummary.TOTAL_DELETE_FILES_PROP))
                .as("delete files before")
                .isPositive();

        List<List<Object>> result = engines.spark("CALL lakestream.system.compact(table => '%s.t')".formatted(schema));

        lake.refresh();
        Snapshot after = lake.currentSnapshot();
        assertThat(result.getFirst().getFirst()).isEqualTo(after.snapshotId());
        assertThat(after.parentId()).as("one commit").isEqualTo(before.snapshotId());
        assertThat(total(after, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
        assertThat(total(after, SnapshotSummary.TOTAL_DATA_FILES_PROP)).isLessThan(dataFilesBefore);
        assertThat(after.summary().get(LakestreamProperties.SUMMARY_LOG_OFFSETS))
                .as("the offsets carried forward")
                .isEqualTo(before.summary().get(LakestreamProperties.SUMMARY_LOG_OFFSETS));
        assertEveryReaderSees(schema, oracle);

        // nothing left to compact: no commit
        assertThat(engines.spark("CALL lakestream.system.compact(table => '%s.t')".formatted(schema))
                        .getFirst()
                        .getFirst())
                .isNull();
        lake.refresh();
        assertThat(lake.currentSnapshot().snapshotId()).isEqualTo(after.snapshotId());
    }

    /**
     * A filter on the bucket key selects one bucket; bad arguments are refused; a lake changed by a stock engine is
     * the tiering service's bad state: nothing is compacted.
     */
    @Test
    void sparkCompactWithFilterRewritesOnlyTheSelectedBucket() {
        String schema = "spark_compact_where";
        String table = createTable(schema);
        Map<Long, String> oracle = writeTieredRounds(schema, table, Seeds.random(SEED + 1), 3);
        long key = oracle.keySet().iterator().next();

        List<Object> row = engines.spark(
                        "CALL lakestream.system.compact(table => '%s.t', where => 'id = %s')".formatted(schema, key))
                .getFirst();

        assertThat(row.get(1).toString()).as("buckets").matches(".*\\(\\d+\\)");
        Table lake = engines.lake(schema, "t");
        lake.refresh();
        assertThat(total(lake.currentSnapshot(), SnapshotSummary.TOTAL_DELETE_FILES_PROP))
                .as("the other buckets keep their delete files")
                .isPositive();
        assertEveryReaderSees(schema, oracle);

        assertThatThrownBy(() -> engines.spark(
                        "CALL lakestream.system.compact(table => '%s.t', where => 'length(v) > 2')".formatted(schema)))
                .hasMessageContaining("INVALID_READ_OPTIONS")
                .hasMessageContaining("cannot be evaluated by the Lakestream scan");
        assertThatThrownBy(() ->
                        engines.spark("CALL lakestream.system.compact(table => '%s.t', target_file_size_bytes => 10)"
                                .formatted(schema)))
                .hasMessageContaining("target_file_size_bytes must be at least 1024");

        engines.trino("INSERT INTO iceberg.%s.t VALUES (1, 'foreign')".formatted(schema));
        lake.refresh();
        long foreign = lake.currentSnapshot().snapshotId();
        assertThatThrownBy(() -> engines.spark("CALL lakestream.system.compact(table => '%s.t')".formatted(schema)))
                .hasMessageContaining("LAKE_LAYOUT_MISMATCH");
        lake.refresh();
        assertThat(lake.currentSnapshot().snapshotId()).isEqualTo(foreign);
    }

    /**
     * After a stock engine's compaction (a {@code replace} snapshot without offsets, which Lakestream tolerates),
     * expiring everything but the last snapshot would drop the snapshot that carries the tiered offsets: the
     * procedure keeps it, and every reader and the next tiering round still work.
     */
    @Test
    void sparkExpireSnapshotsKeepsTheSnapshotWithTheOffsets() {
        String schema = "spark_expire_offsets";
        String table = createTable(schema);
        Map<Long, String> oracle = writeTieredRounds(schema, table, Seeds.random(SEED + 3), 3);
        Table lake = engines.lake(schema, "t");
        lake.refresh();
        long withOffsets = lake.currentSnapshot().snapshotId();
        engines.trino("ALTER TABLE iceberg.%s.t EXECUTE optimize".formatted(schema));
        lake.refresh();
        Snapshot stockCompaction = lake.currentSnapshot();
        assertThat(stockCompaction.operation()).isEqualTo("replace");
        assertThat(stockCompaction.summary()).doesNotContainKey(LakestreamProperties.SUMMARY_LOG_OFFSETS);
        int snapshotsBefore = count(lake.snapshots());

        List<Object> row = engines.spark(
                        "CALL lakestream.system.expire_snapshots(table => '%s.t', older_than => timestamp_millis(%s), retain_last => 1)"
                                .formatted(schema, System.currentTimeMillis() + 60_000))
                .getFirst();

        lake.refresh();
        assertThat((Integer) row.getFirst()).as("snapshots expired").isPositive();
        assertThat(count(lake.snapshots())).isEqualTo(snapshotsBefore - (Integer) row.getFirst());
        assertThat(lake.snapshot(withOffsets))
                .as("the snapshot with the offsets")
                .isNotNull();
        assertEveryReaderSees(schema, oracle);
        engines.trino("INSERT INTO %s VALUES (1000, 'after')".formatted(table));
        oracle.put(1000L, "after");
        engines.tier(schema, "t");
        assertEveryReaderSees(schema, oracle);
    }

    /**
     * Only snapshots that stopped being current before {@code older_than} are expired: the one current at that
     * time stays (a union read that started then may have pinned it), and so do the newer ones.
     */
    @Test
    void sparkExpireSnapshotsKeepsTheSnapshotCurrentAtTheCutoff() throws InterruptedException {
        String schema = "spark_expire_cutoff";
        String table = createTable(schema);
        Map<Long, String> oracle = writeTieredRounds(schema, table, Seeds.random(SEED + 4), 3);
        Table lake = engines.lake(schema, "t");
        lake.refresh();
        List<Snapshot> snapshots = new ArrayList<>();
        lake.snapshots().forEach(snapshots::add);
        Snapshot currentAtCutoff = snapshots.get(snapshots.size() - 2);
        Snapshot newest = snapshots.getLast();
        long cutoff = newest.timestampMillis() - 1;
        assertThat(currentAtCutoff.timestampMillis()).isLessThan(cutoff);

        engines.spark(
                "CALL lakestream.system.expire_snapshots(table => '%s.t', older_than => timestamp_millis(%s), retain_last => 1)"
                        .formatted(schema, cutoff));

        lake.refresh();
        List<Long> left = new ArrayList<>();
        lake.snapshots().forEach(snapshot -> left.add(snapshot.snapshotId()));
        assertThat(left).containsExactly(currentAtCutoff.snapshotId(), newest.snapshotId());
        assertEveryReaderSees(schema, oracle);
        assertThatThrownBy(() -> engines.spark(
                        "CALL lakestream.system.expire_snapshots(table => '%s.t', retain_last => 0)".formatted(schema)))
                .hasMessageContaining("retain_last must be at least 1");
    }

    /**
     * The same procedures from Trino ({@code ALTER TABLE ... EXECUTE}): compaction folds the delete files,
     * snapshot expiration keeps the snapshot with the offsets after a stock engine's compaction, log retention
     * removes tiered segments, and the orphan sweep runs; every reader sees the oracle after each.
     */
    @Test
    void trinoExecuteProcedures() throws IOException {
        String schema = "trino_execute";
        String table = createTable(schema);
        Map<Long, String> oracle = writeTieredRounds(schema, table, Seeds.random(SEED + 5), 3);
        Table lake = engines.lake(schema, "t");
        lake.refresh();
        Snapshot before = lake.currentSnapshot();
        assertThat(total(before, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isPositive();

        engines.trino("ALTER TABLE %s EXECUTE compact(target_file_size => '1MB')".formatted(table));
        lake.refresh();
        Snapshot compacted = lake.currentSnapshot();
        assertThat(compacted.parentId()).as("one commit").isEqualTo(before.snapshotId());
        assertThat(total(compacted, SnapshotSummary.TOTAL_DELETE_FILES_PROP)).isZero();
        assertThat(total(compacted, SnapshotSummary.TOTAL_DATA_FILES_PROP))
                .isLessThan(total(before, SnapshotSummary.TOTAL_DATA_FILES_PROP));
        assertEveryReaderSees(schema, oracle);

        engines.trino("ALTER TABLE iceberg.%s.t EXECUTE optimize".formatted(schema));
        engines.trino("ALTER TABLE %s EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)"
                .formatted(table));
        lake.refresh();
        assertThat(lake.snapshot(compacted.snapshotId()))
                .as("the snapshot with the offsets")
                .isNotNull();
        assertThat(lake.snapshot(before.snapshotId())).as("an older snapshot").isNull();
        assertEveryReaderSees(schema, oracle);

        Path log = Path.of(java.net.URI.create(lake.location() + "/log"));
        long segmentsBefore = segments(log);
        engines.trino("ALTER TABLE %s EXECUTE expire_log(retention_threshold => '0s')".formatted(table));
        assertThat(segments(log)).as("log segments").isLessThan(segmentsBefore);
        assertEveryReaderSees(schema, oracle);

        // the lake sweep through Trino's file system: an aged unreferenced file goes, a young one stays
        Path data = Path.of(java.net.URI.create(lake.location() + "/data"));
        Path old = Files.writeString(data.resolve("00000-0-crashed-attempt-00001.parquet"), "left by a crash");
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofDays(4))));
        Path young = Files.writeString(data.resolve("00000-0-running-attempt-00001.parquet"), "a commit in progress");
        assertThat(engines.trino("ALTER TABLE %s EXECUTE remove_orphans".formatted(table)))
                .containsExactly(List.of("removed_files_count", 1L));
        assertThat(old).doesNotExist();
        assertThat(young).exists();
        Files.delete(young);
        assertEveryReaderSees(schema, oracle);

        assertThatThrownBy(() ->
                        engines.trino("ALTER TABLE %s EXECUTE compact(target_file_size => '10B')".formatted(table)))
                .hasMessageContaining("target_file_size must be at least 1kB");
        engines.trino("INSERT INTO iceberg.%s.t VALUES (1, 'foreign')".formatted(schema));
        assertThatThrownBy(() -> engines.trino("ALTER TABLE %s EXECUTE compact".formatted(table)))
                .hasMessageContaining("LAKE_LAYOUT_MISMATCH");
    }

    private static long segments(Path log) throws IOException {
        try (Stream<Path> files = Files.walk(log)) {
            return files.filter(file -> file.toString().endsWith(".arrow")).count();
        }
    }

    private static int count(Iterable<Snapshot> snapshots) {
        int count = 0;
        for (Snapshot ignored : snapshots) {
            count++;
        }
        return count;
    }

    private String createTable(String schema) {
        String table = engines.createSchema(schema) + ".t";
        engines.trino(
                "CREATE TABLE %s (id bigint NOT NULL, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 3)"
                        .formatted(table));
        return table;
    }

    /** Random upserts and deletes through Trino, each round tiered: many small files and delete files. */
    private Map<Long, String> writeTieredRounds(String schema, String table, Random random, int rounds) {
        Map<Long, String> oracle = new TreeMap<>();
        for (int round = 0; round < rounds; round++) {
            List<String> values = new ArrayList<>();
            Map<Long, String> batch = new TreeMap<>();
            for (int i = 0; i < 20; i++) {
                batch.put((long) random.nextInt(60), "r%s-%s".formatted(round, random.nextInt(1000)));
            }
            batch.forEach((id, v) -> values.add("(%s, '%s')".formatted(id, v)));
            engines.trino("INSERT INTO %s VALUES %s".formatted(table, String.join(", ", values)));
            oracle.putAll(batch);
            if (round > 0) {
                long low = random.nextInt(60);
                engines.trino("DELETE FROM %s WHERE id BETWEEN %s AND %s".formatted(table, low, low + 4));
                oracle.keySet().removeIf(id -> id >= low && id <= low + 4);
            }
            engines.tier(schema, "t");
        }
        return oracle;
    }

    private void assertEveryReaderSees(String schema, Map<Long, String> oracle) {
        List<List<Object>> expected = new ArrayList<>();
        oracle.forEach((id, v) -> expected.add(List.of(id, v)));
        String union = "SELECT id, v FROM %s.%s.t ORDER BY id";
        assertThat(engines.trino(union.formatted(TrinoEngine.EXACT_LAKE_CATALOG, schema)))
                .as("Trino union read")
                .isEqualTo(expected);
        assertThat(engines.trino("SELECT id, v FROM %s.%s.\"t$lake\" ORDER BY id"
                        .formatted(TrinoEngine.EXACT_LAKE_CATALOG, schema)))
                .as("Trino lake read")
                .isEqualTo(expected);
        assertThat(engines.trino(union.formatted("iceberg", schema)))
                .as("Trino's stock Iceberg connector")
                .isEqualTo(expected);
        assertThat(engines.spark(union.formatted(TrinoEngine.CATALOG, schema)))
                .as("Spark union read")
                .isEqualTo(expected);
    }

    private static long total(Snapshot snapshot, String property) {
        return Long.parseLong(snapshot.summary().get(property));
    }
}
