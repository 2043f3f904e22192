package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.table.LakestreamProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * The lake maintenance procedures ({@code system.compact}, {@code system.expire_snapshots}) run from Spark on a
 * table written through Trino and tiered by the real tiering service: the rows stay exactly what the test wrote
 * (an oracle of the writes, seed {@code -Dlakestream.test.seed}), and Lakestream's union read and lake read in
 * Trino and Spark and Trino's stock Iceberg connector all show them afterwards.
 */
final class TestLakeMaintenanceProcedures {
    private static final long SEED = Long.getLong("lakestream.test.seed", 2323L);

    private final CrossEngine engines = CrossEngine.get();

    @Test
    void sparkCompactFoldsDeleteFilesAndKeepsTheRows() {
        String schema = "spark_compact";
        String table = createTable(schema);
        Map<Long, String> oracle = writeTieredRounds(schema, table, new Random(SEED), 6);
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

    /** A filter on the bucket key selects one bucket; a target size makes several files of a bucket. */
    @Test
    void sparkCompactWithFilterRewritesOnlyTheSelectedBucket() {
        String schema = "spark_compact_where";
        String table = createTable(schema);
        Map<Long, String> oracle = writeTieredRounds(schema, table, new Random(SEED + 1), 4);
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
    }

    /** A lake changed by a stock engine is the tiering service's bad state: nothing is compacted. */
    @Test
    void sparkCompactRefusesAForeignSnapshot() {
        String schema = "spark_compact_foreign";
        String table = createTable(schema);
        writeTieredRounds(schema, table, new Random(SEED + 2), 3);
        engines.trino("INSERT INTO iceberg.%s.t VALUES (1, 'foreign')".formatted(schema));
        Table lake = engines.lake(schema, "t");
        lake.refresh();
        long foreign = lake.currentSnapshot().snapshotId();

        assertThatThrownBy(() -> engines.spark("CALL lakestream.system.compact(table => '%s.t')".formatted(schema)))
                .hasMessageContaining("LAKE_LAYOUT_MISMATCH");
        lake.refresh();
        assertThat(lake.currentSnapshot().snapshotId()).isEqualTo(foreign);
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
