package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The changelog stream ({@code stream.output=changelog}) of a primary-key table while three writers commit
 * (the Java writer, Spark batch INSERTs, Trino INSERT, UPDATE and DELETE through the query runner) and
 * tiering and compaction run at random points: the stream's rows, kept by Spark's memory sink, equal per key
 * the changelog an oracle derives from what the test wrote (per commit, each key's net change: insert,
 * update_before with the replaced row, update_after, delete with the removed row), and applied to an empty
 * table they give the oracle's final state, which Trino's union read also returns. The seed is printed on
 * failure; {@code -Dlakestream.test.seed=N} replays one.
 */
final class TestCrossEngineStreamChangelog {
    private static final long DEFAULT_SEED = 20261222L;
    private static final int ROUNDS = 4;
    private static final int KEYS = 40;

    private final CrossEngine engines = CrossEngine.get();
    private final Map<Long, List<Object>> state = new TreeMap<>();
    private final Map<Long, List<List<Object>>> changelog = new TreeMap<>();
    private final List<String> history = new ArrayList<>();
    private final Map<Long, List<Object>> commitStart = new HashMap<>();

    @Test
    void changelogOfThreeWritersEqualsTheOracle() {
        long seed = Seeds.seed(DEFAULT_SEED);
        Random random = new Random(seed);
        String schema = "stream_changelog";
        String s = engines.createSchema(schema);
        String table = s + ".users";
        engines.trino("CREATE TABLE " + table + " (id bigint, name varchar, score integer)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        // a state in the lake and the log before the stream starts
        javaUpserts(schema, random, 30, false);
        engines.tier(schema, "users");
        javaUpserts(schema, random, 10, false);
        Map<Long, List<Object>> stateAtStart = new TreeMap<>(state);
        changelog.clear();

        String view = "changelog_" + seed;
        SparkEngine.RunningStream stream = engines.sparkMemoryStream(
                s + ".`users$changes`", Map.of("stream.output", "changelog", "max-rows-per-trigger", "25"), view);
        try {
            // the full start pins its version at the first batch: no commit before it
            stream.processAllAvailable();
            int commits = 0;
            for (int round = 0; round < ROUNDS; round++) {
                for (int commit = 0; commit < 2; commit++) {
                    // every writer in turn (8 commits: each at least once), with random rows
                    switch (commits++ % 5) {
                        case 0 -> javaUpserts(schema, random, 1 + random.nextInt(8), true);
                        case 1 -> sparkInsert(table, random);
                        case 2 -> trinoInsert(table, random);
                        case 3 -> trinoUpdate(table, random);
                        default -> trinoDelete(table, random);
                    }
                    switch (random.nextInt(4)) {
                        case 0 -> {
                            engines.tier(schema, "users");
                            history.add("tier");
                        }
                        case 1 -> {
                            engines.compact(schema, "users");
                            history.add("tier and compact");
                        }
                        default -> {}
                    }
                }
                if (random.nextBoolean()) {
                    stream.processAllAvailable();
                }
            }
            stream.processAllAvailable();
        } finally {
            stream.stop();
        }

        String context = "seed %d (-Dlakestream.test.seed=%d), after %s".formatted(seed, seed, history);
        List<List<Object>> rows =
                new ArrayList<>(engines.spark("SELECT _change_type, _bucket, _offset, id, name, score FROM " + view));
        // state rows (no offset) first, then log order per bucket; an update's before image ahead of its after image
        rows.sort(Comparator.<List<Object>, Boolean>comparing(row -> row.get(2) != null)
                .thenComparing(row -> row.get(1) == null ? -1 : ((Number) row.get(1)).intValue())
                .thenComparing(row -> row.get(2) == null ? -1L : ((Number) row.get(2)).longValue())
                .thenComparing(row -> !row.get(0).equals("update_before")));
        Map<Long, List<Object>> emittedState = new TreeMap<>();
        Map<Long, List<Object>> applied = new TreeMap<>();
        Map<Long, List<List<Object>>> emitted = new TreeMap<>();
        for (List<Object> row : rows) {
            long id = ((Number) row.get(3)).longValue();
            List<Object> values =
                    Arrays.asList(id, row.get(4), row.get(5) == null ? null : ((Number) row.get(5)).intValue());
            String type = (String) row.get(0);
            if (row.get(2) == null) {
                assertThat(type).as(context).isEqualTo("insert");
                assertThat(emittedState.put(id, values))
                        .as("%s: state row of %s twice", context, id)
                        .isNull();
                applied.put(id, values);
                continue;
            }
            List<Object> change = new ArrayList<>();
            change.add(type);
            change.addAll(values);
            emitted.computeIfAbsent(id, ignored -> new ArrayList<>()).add(change);
            switch (type) {
                case "insert", "update_after" -> applied.put(id, values);
                case "delete" -> applied.remove(id);
                case "update_before" -> {}
                default -> throw new AssertionError(context + ": change type of " + row);
            }
        }
        assertThat(emittedState).as("%s: the state at the start", context).isEqualTo(stateAtStart);
        assertThat(emitted).as("%s: the changelog per key", context).isEqualTo(changelog);
        assertThat(applied)
                .as("%s: the stream applied to an empty table", context)
                .isEqualTo(state);
        List<List<Object>> trinoRows = new ArrayList<>();
        for (List<Object> row : engines.trino("SELECT id, name, score FROM " + table + " ORDER BY id")) {
            trinoRows.add(Arrays.asList(
                    ((Number) row.get(0)).longValue(),
                    row.get(1),
                    row.get(2) == null ? null : ((Number) row.get(2)).intValue()));
        }
        assertThat(trinoRows).as("%s: Trino's union read", context).isEqualTo(new ArrayList<>(state.values()));
    }

    // --- the writers, each recording its changes in the oracle

    private void javaUpserts(String schema, Random random, int count, boolean withDeletes) {
        List<Map<String, ?>> upserts = new ArrayList<>();
        List<List<Object>> upserted = new ArrayList<>();
        List<Map<String, ?>> deletes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long id = random.nextInt(KEYS);
            if (withDeletes && random.nextInt(3) == 0) {
                deletes.add(Map.of("id", id));
            } else {
                List<Object> values = values(random, id);
                Map<String, Object> row = new HashMap<>();
                row.put("id", id);
                row.put("name", values.get(1));
                row.put("score", values.get(2));
                upserts.add(row);
                upserted.add(values);
            }
        }
        // one commit each: the upserts in order (a key may change twice), then the deletes
        if (!upserts.isEmpty()) {
            engines.write(schema, "users", upserts, true);
            upserted.forEach(this::upsert);
            endCommit();
            history.add("java upsert "
                    + upserted.stream().map(values -> values.get(0)).toList());
        }
        if (!deletes.isEmpty()) {
            engines.delete(schema, "users", deletes);
            deletes.forEach(key -> delete((Long) key.get("id")));
            endCommit();
            history.add("java delete " + deletes);
        }
    }

    private void sparkInsert(String table, Random random) {
        Map<Long, List<Object>> rows = distinctRows(random);
        engines.spark("INSERT INTO " + table + " VALUES " + sqlValues(rows));
        rows.values().forEach(this::upsert);
        endCommit();
        history.add("spark insert " + rows.keySet());
    }

    private void trinoInsert(String table, Random random) {
        Map<Long, List<Object>> rows = distinctRows(random);
        engines.trino("INSERT INTO " + table + " VALUES " + sqlValues(rows));
        rows.values().forEach(this::upsert);
        endCommit();
        history.add("trino insert " + rows.keySet());
    }

    private void trinoUpdate(String table, Random random) {
        long id = random.nextInt(KEYS);
        int score = random.nextInt(1000);
        engines.trino("UPDATE " + table + " SET score = " + score + " WHERE id = " + id);
        List<Object> previous = state.get(id);
        if (previous != null) {
            upsert(Arrays.asList(id, previous.get(1), score));
        }
        endCommit();
        history.add("trino update " + id);
    }

    private void trinoDelete(String table, Random random) {
        Set<Long> ids = new LinkedHashSet<>();
        for (int i = 1 + random.nextInt(3); i > 0; i--) {
            ids.add((long) random.nextInt(KEYS));
        }
        engines.trino("DELETE FROM " + table + " WHERE id IN ("
                + String.join(", ", ids.stream().map(String::valueOf).toList()) + ")");
        // Trino deletes the rows it finds: an absent key gets no change at all
        ids.stream().filter(state::containsKey).sorted().forEach(this::delete);
        endCommit();
        history.add("trino delete " + ids);
    }

    private void upsert(List<Object> values) {
        long id = (Long) values.get(0);
        noteCommitStart(id);
        state.put(id, values);
    }

    private void delete(long id) {
        noteCommitStart(id);
        state.remove(id);
    }

    private void noteCommitStart(long id) {
        if (!commitStart.containsKey(id)) {
            commitStart.put(id, state.get(id));
        }
    }

    /** A commit is atomic: each key it touched gets its net change (Trino's UPDATE logs a delete and an upsert). */
    private void endCommit() {
        commitStart.forEach((id, previous) -> {
            List<Object> after = state.get(id);
            if (previous == null && after != null) {
                record(id, "insert", after);
            } else if (previous != null && after != null) {
                record(id, "update_before", previous);
                record(id, "update_after", after);
            } else if (previous != null) {
                record(id, "delete", previous);
            }
        });
        commitStart.clear();
    }

    private void record(long id, String type, List<Object> values) {
        List<Object> change = new ArrayList<>();
        change.add(type);
        change.addAll(values);
        changelog.computeIfAbsent(id, ignored -> new ArrayList<>()).add(change);
    }

    private static Map<Long, List<Object>> distinctRows(Random random) {
        Map<Long, List<Object>> rows = new TreeMap<>();
        int size = 1 + random.nextInt(6);
        while (rows.size() < size) {
            long id = random.nextInt(KEYS);
            rows.put(id, values(random, id));
        }
        return rows;
    }

    private static List<Object> values(Random random, long id) {
        return Arrays.asList(id, random.nextInt(4) == 0 ? null : "n" + random.nextInt(100), random.nextInt(1000));
    }

    private static String sqlValues(Map<Long, List<Object>> rows) {
        List<String> values = new ArrayList<>();
        for (List<Object> row : rows.values()) {
            values.add("(%d, %s, %d)"
                    .formatted(row.get(0), row.get(1) == null ? "NULL" : "'" + row.get(1) + "'", row.get(2)));
        }
        return String.join(", ", values);
    }
}
