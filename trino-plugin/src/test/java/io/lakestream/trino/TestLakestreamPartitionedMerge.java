package io.lakestream.trino;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.PartitionedMerges;
import io.lakestream.testing.PartitionedMerges.ChangeRow;
import io.lakestream.testing.PartitionedMerges.SourceRow;
import io.lakestream.testing.Seeds;
import io.trino.testing.MaterializedRow;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Trino's {@code MERGE INTO} on tables whose log is kept per (partition, bucket): random merges (inserts into new
 * days, updates, deletes, matched and not matched) between tiering rounds, read back exactly against
 * {@link PartitionedMerges}' oracle in the union read, in {@code t$lake} after tiering, in {@code t$changes}
 * (replayed per (partition, bucket) in offset order) and in {@code t$offsets}; {@code MERGE} on an append-only
 * partitioned table is refused and leaves it unchanged.
 */
@ExtendWith(Seeds.class)
final class TestLakestreamPartitionedMerge extends AbstractLakestreamSqlTest {
    private static final long SEED = 21_1L;
    private static final int ROUNDS = 4;
    private static final int BUCKETS = 2;
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @Test
    void mergesIntoAPartitionedLogReadBackExactly() {
        tables.catalog()
                .createTable(
                        TableIdentifier.of(LakestreamQueryRunner.SCHEMA, "merged"), PartitionedMerges.spec(BUCKETS));
        assertThat(tables.load("merged").log().isPartitionedLog()).isTrue();
        Random random = Seeds.random(SEED);
        PartitionedMerges oracle = new PartitionedMerges();
        for (int round = 0; round < ROUNDS; round++) {
            // each round may reach a day no earlier round wrote: a partition that appears in a merge
            List<SourceRow> source = oracle.randomSource(random, 8, round + 2);
            long changed = computeActual(mergeSql(source)).getUpdateCount().orElseThrow();
            assertThat(changed).as("round %s", round).isEqualTo(oracle.apply(source));
            assertRows("SELECT id, ts, score FROM merged", oracle.rows(), "round " + round);
            if (round % 2 == 1) {
                tables.tier("merged");
                assertRows("SELECT id, ts, score FROM \"merged$lake\"", oracle.rows(), "lake after round " + round);
            }
        }
        assertFilteredUnion(oracle);
        tables.tier("merged");
        assertRows("SELECT id, ts, score FROM \"merged$lake\"", oracle.rows(), "lake at the end");
        assertQuery(
                "SELECT sum(records_behind), count(*) FILTER (WHERE lake_offset <> log_end_offset)"
                        + " FROM \"merged$offsets\"",
                "VALUES (0, 0)");
        // the merges did what the test is about: deletes, and partitions appearing round after round
        assertThat(assertChangesAndOffsets(oracle))
                .anyMatch(change -> change.changeType().equals("delete"));
        assertThat(oracle.partitionsChanged()).hasSizeGreaterThan(ROUNDS / 2);
    }

    @Test
    void mergeIntoAnAppendOnlyPartitionedTableIsRefused() {
        assertUpdate("CREATE TABLE events (id bigint, ts timestamp(6), v varchar)"
                + " WITH (partitioning = ARRAY['day(ts)'], bucket_count = 2)");
        assertUpdate("INSERT INTO events VALUES (1, TIMESTAMP '2026-12-01 10:00:00', 'a')", 1);
        assertThat(
                        query(
                                "MERGE INTO events t USING (VALUES (1, TIMESTAMP '2026-12-01 10:00:00', 'b'),"
                                        + " (2, TIMESTAMP '2026-12-02 10:00:00', 'c')) s(id, ts, v) ON t.id = s.id"
                                        + " WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.ts, s.v)"))
                .failure()
                .hasErrorCode(LakestreamErrorCode.LAKESTREAM_NOT_SUPPORTED)
                .hasMessageContaining("append-only table");
        assertQuery("SELECT id, v FROM events", "VALUES (1, 'a')");
    }

    /** A filter on the partition column: the union read of the partitions it keeps. */
    private void assertFilteredUnion(PartitionedMerges oracle) {
        LocalDateTime from = PartitionedMerges.FIRST_DAY.plusDays(1).atStartOfDay();
        assertRows(
                "SELECT id, ts, score FROM merged WHERE ts >= TIMESTAMP '%s'".formatted(timestamp(from)),
                oracle.rows().stream()
                        .filter(row -> !((LocalDateTime) row.get(1)).isBefore(from))
                        .toList(),
                "filtered");
    }

    /**
     * {@code t$changes} replays to the oracle's rows, and {@code t$offsets} has each (partition, bucket)'s end;
     * returns the changes.
     */
    private List<ChangeRow> assertChangesAndOffsets(PartitionedMerges oracle) {
        List<ChangeRow> changes = computeActual(
                        "SELECT _change_type, _bucket, _offset, id, ts, score FROM \"merged$changes\"")
                .getMaterializedRows()
                .stream()
                .map(row -> new ChangeRow(
                        (String) row.getField(0),
                        (int) row.getField(1),
                        (long) row.getField(2),
                        (long) row.getField(3),
                        (LocalDateTime) row.getField(4),
                        (Integer) row.getField(5)))
                .toList();
        Map<List<Object>, Long> logEnds = new HashMap<>();
        for (MaterializedRow row : computeActual("SELECT partition, bucket, log_end_offset FROM \"merged$offsets\"")
                .getMaterializedRows()) {
            logEnds.put(List.of(row.getField(0), row.getField(1)), (Long) row.getField(2));
        }
        oracle.assertChangelog(changes, logEnds, BUCKETS);
        return changes;
    }

    private void assertRows(String sql, List<List<Object>> expected, String context) {
        assertThat(computeActual(sql).getMaterializedRows().stream()
                        .map(MaterializedRow::getFields)
                        .toList())
                .as(context)
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private static String mergeSql(List<SourceRow> source) {
        return "MERGE INTO merged t USING (VALUES "
                + source.stream()
                        .map(row -> "(%d, TIMESTAMP '%s', %d, '%s')"
                                .formatted(row.id(), timestamp(row.ts()), row.score(), row.op()))
                        .collect(joining(", "))
                + ") s(id, ts, score, op) ON t.id = s.id AND t.ts = s.ts"
                + " WHEN MATCHED AND s.op = 'delete' THEN DELETE"
                + " WHEN MATCHED THEN UPDATE SET score = s.score"
                + " WHEN NOT MATCHED AND s.op <> 'delete' THEN INSERT VALUES (s.id, s.ts, s.score)";
    }

    private static String timestamp(LocalDateTime ts) {
        return TIMESTAMP.format(ts);
    }
}
