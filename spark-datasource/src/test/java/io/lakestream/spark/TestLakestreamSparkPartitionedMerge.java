package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.PartitionedMerges;
import io.lakestream.testing.PartitionedMerges.ChangeRow;
import io.lakestream.testing.PartitionedMerges.SourceRow;
import io.lakestream.testing.Seeds;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Spark's {@code MERGE INTO} on tables whose log is kept per (partition, bucket): random merges (inserts into new
 * days, updates, deletes, matched, not matched and not matched by source) between tiering rounds, read back exactly
 * against {@link PartitionedMerges}' oracle in the union read, in {@code t$lake} after tiering, in
 * {@code t$changes} (replayed per (partition, bucket) in offset order) and in {@code t$offsets}; on an append-only
 * partitioned table an insert-only merge appends into new partitions and any other merge is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestLakestreamSparkPartitionedMerge {
    private static final String NS = "pmerge";
    private static final long SEED = 21_2L;
    private static final int ROUNDS = 4;
    private static final int BUCKETS = 2;
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void mergesIntoAPartitionedLogReadBackExactly() {
        testing.warehouse()
                .catalog()
                .createTable(TableIdentifier.of(Namespace.of(NS), "merged"), PartitionedMerges.spec(BUCKETS));
        assertThat(SparkTables.load(NS, "merged").log().isPartitionedLog()).isTrue();
        Random random = Seeds.random(SEED);
        PartitionedMerges oracle = new PartitionedMerges();
        for (int round = 0; round < ROUNDS; round++) {
            List<SourceRow> source = oracle.randomSource(random, 8, round + 2);
            // from the third round on, rows of the first day the source does not name are deleted too
            Optional<LocalDateTime> unmatchedDeletedBefore = round >= 2
                    ? Optional.of(PartitionedMerges.FIRST_DAY.plusDays(1).atStartOfDay())
                    : Optional.empty();
            testing.sql(mergeSql(source, unmatchedDeletedBefore));
            oracle.apply(source, unmatchedDeletedBefore);
            assertRows("SELECT id, ts, score FROM ls.pmerge.merged", oracle.rows(), "round " + round);
            if (round % 2 == 1) {
                tier("merged");
                assertRows("SELECT id, ts, score FROM ls.pmerge.`merged$lake`", oracle.rows(), "lake, round " + round);
                assertRows("SELECT id, ts, score FROM ls.pmerge.merged", oracle.rows(), "tiered, round " + round);
            }
        }
        tier("merged");
        assertRows("SELECT id, ts, score FROM ls.pmerge.`merged$lake`", oracle.rows(), "lake at the end");
        assertThat(rows(testing.sql("SELECT sum(records_behind), count_if(lake_offset <> log_end_offset)"
                        + " FROM ls.pmerge.`merged$offsets`")))
                .containsExactly(List.of(0L, 0L));
        // the merges did what the test is about: deletes, and partitions appearing round after round
        assertThat(assertChangesAndOffsets(oracle))
                .anyMatch(change -> change.changeType().equals("delete"));
        assertThat(oracle.partitionsChanged()).hasSizeGreaterThan(ROUNDS / 2);
    }

    @Test
    void appendOnlyPartitionedTableTakesInsertOnlyMerges() {
        testing.sql("CREATE TABLE ls.pmerge.events (id BIGINT NOT NULL, ts TIMESTAMP_NTZ, v STRING)"
                + " PARTITIONED BY (days(ts)) TBLPROPERTIES ('bucket.num'='2')");
        testing.sql("INSERT INTO ls.pmerge.events VALUES (1, TIMESTAMP_NTZ '2026-12-01 10:00:00', 'a')");
        // only WHEN NOT MATCHED: Spark runs it as an append of the unmatched rows, here into a new day
        testing.sql("MERGE INTO ls.pmerge.events t USING (SELECT * FROM VALUES"
                + " (1L, TIMESTAMP_NTZ '2026-12-01 10:00:00', 'x'), (2L, TIMESTAMP_NTZ '2026-12-02 10:00:00', 'b')"
                + " AS s(id, ts, v)) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *");
        List<List<Object>> expected = List.of(
                List.of(1L, LocalDateTime.parse("2026-12-01T10:00"), "a"),
                List.of(2L, LocalDateTime.parse("2026-12-02T10:00"), "b"));
        assertRows("SELECT id, ts, v FROM ls.pmerge.events", expected, "after the insert-only merge");
        assertThatThrownBy(() -> testing.sql("MERGE INTO ls.pmerge.events t USING (SELECT 2L AS id, 'c' AS v) s"
                        + " ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v"))
                .hasMessageContaining("append-only table");
        tier("events");
        assertRows("SELECT id, ts, v FROM ls.pmerge.`events$lake`", expected, "lake");
    }

    /**
     * {@code t$changes} replays to the oracle's rows, and {@code t$offsets} has each (partition, bucket)'s end;
     * returns the changes.
     */
    private List<ChangeRow> assertChangesAndOffsets(PartitionedMerges oracle) {
        List<ChangeRow> changes = rows(testing.sql(
                        "SELECT _change_type, _bucket, _offset, id, ts, score FROM ls.pmerge.`merged$changes`"))
                .stream()
                .map(row -> new ChangeRow(
                        (String) row.get(0),
                        (int) row.get(1),
                        (long) row.get(2),
                        (long) row.get(3),
                        (LocalDateTime) row.get(4),
                        (Integer) row.get(5)))
                .toList();
        Map<List<Object>, Long> logEnds = new HashMap<>();
        for (List<Object> row :
                rows(testing.sql("SELECT partition, bucket, log_end_offset FROM ls.pmerge.`merged$offsets`"))) {
            logEnds.put(List.of(row.get(0), row.get(1)), (Long) row.get(2));
        }
        oracle.assertChangelog(changes, logEnds, BUCKETS);
        return changes;
    }

    private void assertRows(String sql, List<List<Object>> expected, String context) {
        assertThat(rows(testing.sql(sql))).as(context).containsExactlyInAnyOrderElementsOf(expected);
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    private static String mergeSql(List<SourceRow> source, Optional<LocalDateTime> unmatchedDeletedBefore) {
        return "MERGE INTO ls.pmerge.merged t USING (SELECT * FROM VALUES "
                + source.stream()
                        .map(row -> "(%dL, TIMESTAMP_NTZ '%s', %d, '%s')"
                                .formatted(row.id(), TIMESTAMP.format(row.ts()), row.score(), row.op()))
                        .collect(joining(", "))
                + " AS s(id, ts, score, op)) s ON t.id = s.id AND t.ts = s.ts"
                + " WHEN MATCHED AND s.op = 'delete' THEN DELETE"
                + " WHEN MATCHED THEN UPDATE SET t.score = s.score"
                + " WHEN NOT MATCHED AND s.op <> 'delete' THEN INSERT (id, ts, score) VALUES (s.id, s.ts, s.score)"
                + unmatchedDeletedBefore
                        .map(before -> " WHEN NOT MATCHED BY SOURCE AND t.ts < TIMESTAMP_NTZ '%s' THEN DELETE"
                                .formatted(TIMESTAMP.format(before)))
                        .orElse("");
    }
}
