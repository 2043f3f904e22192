package io.lakestream.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Changes of two partitions that share one bucket, written by the Java writer into a table of {@link
 * PartitionedScores#spec} with one bucket (so both partitions' logs are bucket 0 and their offsets both start at 0),
 * and the {@code t$changes} rows they must read back as: what both engines' changes reads are checked against.
 */
public final class PartitionedChanges {
    /**
     * The change rows written, in log order per partition: change type, {@code _partition}, {@code _bucket},
     * {@code _offset}, then id, region, score (a delete carries only the key).
     */
    public static final List<List<Object>> EXPECTED = List.of(
            row("upsert", "region=eu", 0, 1L, "eu", 1),
            row("upsert", "region=eu", 1, 2L, "eu", 2),
            row("upsert", "region=eu", 2, 3L, "eu", 3),
            row("upsert", "region=eu", 3, 1L, "eu", 100),
            row("upsert", "region=us", 0, 1L, "us", 10),
            row("upsert", "region=us", 1, 2L, "us", 20),
            row("delete", "region=us", 2, 1L, "us", null));

    private PartitionedChanges() {}

    /** Writes {@link #EXPECTED} in three commits, the partitions interleaved within each. */
    public static void write(LakestreamTable table, BufferAllocator allocator) {
        commit(table, allocator, writer -> {
            writer.upsert(Map.of("id", 1L, "region", "eu", "score", 1));
            writer.upsert(Map.of("id", 1L, "region", "us", "score", 10));
            writer.upsert(Map.of("id", 2L, "region", "eu", "score", 2));
        });
        commit(table, allocator, writer -> {
            writer.upsert(Map.of("id", 2L, "region", "us", "score", 20));
            writer.upsert(Map.of("id", 3L, "region", "eu", "score", 3));
            writer.delete(Map.of("id", 1L, "region", "us"));
        });
        commit(table, allocator, writer -> writer.upsert(Map.of("id", 1L, "region", "eu", "score", 100)));
    }

    private static void commit(LakestreamTable table, BufferAllocator allocator, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            changes.accept(writer);
            writer.commit();
        }
    }

    /**
     * Checks that the change columns that name a change's place in the log (every system column but the change type
     * and the commit time) identify each change of rows read back from {@code t$changes} with {@code columns}: no two
     * rows share them. Without {@code _partition}, the changes at offset 0 of both partitions' bucket 0 do.
     */
    public static void assertLogPositionsUnique(List<String> columns, List<List<Object>> rows) {
        List<Integer> position = new ArrayList<>();
        for (int column = 0; column < columns.size(); column++) {
            String name = columns.get(column);
            if (name.startsWith("_") && !name.equals("_change_type") && !name.equals("_commit_timestamp")) {
                position.add(column);
            }
        }
        Map<List<Object>, List<List<Object>>> byPosition = new HashMap<>();
        for (List<Object> row : rows) {
            List<Object> key = new ArrayList<>();
            position.forEach(column -> key.add(row.get(column)));
            byPosition.computeIfAbsent(key, ignored -> new ArrayList<>()).add(row);
        }
        Map<List<Object>, List<List<Object>>> shared = new HashMap<>(byPosition);
        shared.values().removeIf(same -> same.size() == 1);
        assertThat(shared)
                .as(
                        "changes sharing their %s",
                        position.stream().map(columns::get).toList())
                .isEmpty();
    }

    /**
     * Checks change rows read back (each as {@link #EXPECTED}'s columns, in any order): {@code (_bucket, _offset)}
     * repeats across the partitions, {@code (_partition, _bucket, _offset)} names each change once, and the rows are
     * exactly those written.
     */
    public static void assertReadBack(List<List<Object>> rows) {
        Map<List<Object>, Integer> bucketOffsets = new HashMap<>();
        Set<List<Object>> logPositions = new HashSet<>();
        for (List<Object> row : rows) {
            bucketOffsets.merge(List.of(row.get(2), row.get(3)), 1, Integer::sum);
            assertThat(logPositions.add(Arrays.asList(row.get(1), row.get(2), row.get(3))))
                    .as("(_partition, _bucket, _offset) of %s is unique among %s", row, rows)
                    .isTrue();
        }
        // the premise: without the partition, two changes share a (bucket, offset)
        assertThat(bucketOffsets).containsEntry(List.of(0, 0L), 2);
        assertThat(rows).containsExactlyInAnyOrderElementsOf(EXPECTED);
    }

    private static List<Object> row(String type, String partition, long offset, long id, String region, Integer score) {
        List<Object> row = new ArrayList<>(Arrays.asList(type, partition, 0, offset, id, region, score));
        return Collections.unmodifiableList(row);
    }
}
