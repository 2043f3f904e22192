package io.lakestream.testing;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.TableSpec;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The oracle of {@code MERGE} statements on a primary-key table partitioned by day with a log kept per (partition,
 * bucket): {@code (id bigint, ts timestamp, score int)}, key {@code (id, ts)}, partitioned by {@code day(ts)},
 * bucketed by {@code id}. It makes random merge sources (deletes, updates and inserts of keys in existing and new
 * days), applies each as the statement
 *
 * <pre>
 * MERGE INTO t USING (VALUES ...) s(id, ts, score, op) ON t.id = s.id AND t.ts = s.ts
 *   WHEN MATCHED AND s.op = 'delete' THEN DELETE
 *   WHEN MATCHED THEN UPDATE SET score = s.score
 *   WHEN NOT MATCHED AND s.op &lt;&gt; 'delete' THEN INSERT VALUES (s.id, s.ts, s.score)
 * </pre>
 *
 * defines it, and checks a changelog read back from a table ({@code t$changes}, {@code t$offsets}) against what was
 * written. Engine tests render the sources in their SQL.
 */
public final class PartitionedMerges {
    public static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()));
    public static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 20);
    private static final int IDS = 12;

    /** Key (id, ts) to the row (id, ts, score) after every merge applied so far. */
    private final Map<List<Object>, List<Object>> rows = new HashMap<>();
    /** The partition paths that received a change: the partitions the log must have. */
    private final Set<String> partitionsChanged = new LinkedHashSet<>();

    /** The table's spec: a log per (partition, bucket), {@code buckets} buckets by {@code id}. */
    public static TableSpec spec(int buckets) {
        return TableSpec.builder(SCHEMA)
                .primaryKey("id", "ts")
                .bucketKey("id")
                .bucketCount(buckets)
                .partitioning(List.of("day(ts)"))
                .partitionedLog(true)
                .build();
    }

    /** One row of a merge source; {@code op} is {@code delete}, {@code update} or {@code insert}. */
    public record SourceRow(long id, LocalDateTime ts, int score, String op) {
        public SourceRow {
            requireNonNull(ts, "ts is null");
            checkArgument(List.of("delete", "update", "insert").contains(op), "op: %s", op);
        }
    }

    /** One row of the table's changelog: change type, bucket and offset in its (partition, bucket), the row. */
    public record ChangeRow(String changeType, int bucket, long offset, long id, LocalDateTime ts, Integer score) {
        public ChangeRow {
            requireNonNull(changeType, "changeType is null");
            requireNonNull(ts, "ts is null");
        }
    }

    /**
     * A merge source of {@code size} distinct keys over the days {@code 0 .. days - 1} after {@link #FIRST_DAY}: a
     * third of them keys the table has (so merges update and delete), the rest new or absent keys (inserts, and
     * deletes that match nothing); each key's time is its day plus its id in minutes.
     */
    public List<SourceRow> randomSource(Random random, int size, int days) {
        List<List<Object>> existing = new ArrayList<>(new TreeMap<>(rowsByString()).values());
        Map<List<Object>, SourceRow> source = new LinkedHashMap<>();
        while (source.size() < size) {
            List<Object> key;
            if (!existing.isEmpty() && random.nextInt(3) == 0) {
                key = existing.get(random.nextInt(existing.size())).subList(0, 2);
            } else {
                long id = random.nextInt(IDS);
                key = List.of(id, time(id, random.nextInt(days)));
            }
            String op = List.of("delete", "update", "insert").get(random.nextInt(3));
            source.putIfAbsent(
                    key, new SourceRow((long) key.get(0), (LocalDateTime) key.get(1), random.nextInt(1000), op));
        }
        return List.copyOf(source.values());
    }

    /** Applies a merge of {@code source} as the statement in the class comment does; returns the rows it changed. */
    public int apply(List<SourceRow> source) {
        return apply(source, Optional.empty());
    }

    /**
     * Applies a merge of {@code source} as the statement in the class comment does, with {@code WHEN NOT MATCHED BY
     * SOURCE AND t.ts < before THEN DELETE} when {@code before} is present; returns the rows it changed.
     */
    public int apply(List<SourceRow> source, Optional<LocalDateTime> unmatchedDeletedBefore) {
        int changed = 0;
        if (unmatchedDeletedBefore.isPresent()) {
            Set<List<Object>> keys = new HashSet<>();
            source.forEach(row -> keys.add(List.of(row.id(), row.ts())));
            for (List<Object> key : List.copyOf(rows.keySet())) {
                LocalDateTime ts = (LocalDateTime) key.get(1);
                if (!keys.contains(key) && ts.isBefore(unmatchedDeletedBefore.get())) {
                    rows.remove(key);
                    partitionsChanged.add(partitionPath(ts));
                    changed++;
                }
            }
        }
        for (SourceRow row : source) {
            List<Object> key = List.of(row.id(), row.ts());
            boolean matched = rows.containsKey(key);
            if (matched && row.op().equals("delete")) {
                rows.remove(key);
            } else if (matched) {
                rows.put(key, List.of(row.id(), row.ts(), row.score()));
            } else if (!row.op().equals("delete")) {
                rows.put(key, List.of(row.id(), row.ts(), row.score()));
            } else {
                continue;
            }
            partitionsChanged.add(partitionPath(row.ts()));
            changed++;
        }
        return changed;
    }

    /** The rows the table must hold: {@code [id, ts, score]} each. */
    public List<List<Object>> rows() {
        return List.copyOf(new TreeMap<>(rowsByString()).values());
    }

    /** The partition paths of every day a merge changed, in the order they first changed. */
    public Set<String> partitionsChanged() {
        return Set.copyOf(partitionsChanged);
    }

    /** {@code ts_day=yyyy-MM-dd}: the log's partition path of a key's time. */
    public static String partitionPath(LocalDateTime ts) {
        return "ts_day=" + ts.toLocalDate();
    }

    /**
     * Replays a changelog read back from the table: each (partition, bucket)'s changes must have the offsets
     * {@code 0 .. n-1}; applied in offset order they leave the rows returned (sorted like {@link #rows()}). The
     * ends (partition path and bucket to {@code n}) go to {@code ends}.
     */
    private static List<List<Object>> replay(List<ChangeRow> changes, Map<List<Object>, Long> ends) {
        Map<List<Object>, TreeMap<Long, ChangeRow>> logs = new TreeMap<>(Comparator.comparing(Object::toString));
        for (ChangeRow change : changes) {
            ChangeRow previous = logs.computeIfAbsent(
                            List.of(partitionPath(change.ts()), change.bucket()), _ -> new TreeMap<>())
                    .put(change.offset(), change);
            checkArgument(previous == null, "two changes at offset %s: %s and %s", change.offset(), previous, change);
        }
        Map<String, List<Object>> state = new HashMap<>();
        logs.forEach((log, offsets) -> {
            checkArgument(
                    offsets.firstKey() == 0 && offsets.lastKey() == offsets.size() - 1,
                    "the offsets of %s are not 0 .. %s: %s",
                    log,
                    offsets.size() - 1,
                    offsets.keySet());
            ends.put(log, (long) offsets.size());
            for (ChangeRow change : offsets.values()) {
                String key = List.of(change.id(), change.ts()).toString();
                if (change.changeType().equals("delete")) {
                    state.remove(key);
                } else {
                    state.put(key, Arrays.asList(change.id(), change.ts(), change.score()));
                }
            }
        });
        return List.copyOf(new TreeMap<>(state).values());
    }

    /**
     * Checks what the table says it holds against what the merges wrote: {@code changes} ({@code t$changes}) replay
     * to {@link #rows()} with each (partition, bucket)'s offsets dense from 0, and {@code logEnds} ({@code t$offsets}:
     * partition path and bucket to the log end) has every bucket of every partition a merge wrote to (a partition
     * has all the table's {@code buckets}), each ending after its changes.
     */
    public void assertChangelog(List<ChangeRow> changes, Map<List<Object>, Long> logEnds, int buckets) {
        Map<List<Object>, Long> replayedEnds = new HashMap<>();
        assertThat(replay(changes, replayedEnds)).containsExactlyInAnyOrderElementsOf(rows());
        Map<List<Object>, Long> expected = new HashMap<>();
        for (String partition : partitionsChanged) {
            for (int bucket = 0; bucket < buckets; bucket++) {
                List<Object> log = List.of(partition, bucket);
                expected.put(log, replayedEnds.getOrDefault(log, 0L));
            }
        }
        assertThat(logEnds).isEqualTo(expected);
    }

    private Map<String, List<Object>> rowsByString() {
        Map<String, List<Object>> byString = new HashMap<>();
        rows.forEach((key, row) -> byString.put(key.toString(), row));
        return byString;
    }

    private static LocalDateTime time(long id, int day) {
        return FIRST_DAY.plusDays(day).atStartOfDay().plusMinutes(id);
    }
}
