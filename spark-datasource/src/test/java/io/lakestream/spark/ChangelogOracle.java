package io.lakestream.spark;

import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * What a test wrote into a primary-key table {@code (id BIGINT, name STRING, score INT)}, built only from
 * the writes: the table's state, every commit's changes, and (once recording starts) the changelog the
 * writes imply per key, one net change per key and commit (insert, update_before + update_after, delete
 * with the removed row; a commit that leaves a key absent as it found it changes nothing).
 */
final class ChangelogOracle {
    private static final String[] NAMES = {"ann", "bob", "cid", null};

    /** One change as the log holds it: type (upsert or delete), id, name, score. */
    record Change(String type, long id, List<Object> values) {}

    private final Map<Long, List<Object>> state = new TreeMap<>();
    private final List<List<Change>> commits = new ArrayList<>();
    private final Map<Long, List<List<Object>>> changelog = new TreeMap<>();
    private Map<Long, List<Object>> stateAtStart = Map.of();
    private int recordedCommits;
    private boolean recording;

    /** From now on, commits are part of the expected changelog; the state now is what a {@code full} start emits. */
    void startRecording() {
        stateAtStart = new TreeMap<>(state);
        recordedCommits = commits.size();
        recording = true;
    }

    Map<Long, List<Object>> state() {
        return new TreeMap<>(state);
    }

    Map<Long, List<Object>> stateAtStart() {
        return stateAtStart;
    }

    Map<Long, List<List<Object>>> changelog() {
        return changelog;
    }

    /** The commits made since recording started, each as its log changes in order. */
    List<List<Change>> recordedCommits() {
        return List.copyOf(commits.subList(recordedCommits, commits.size()));
    }

    /** The last change per key of some commits: id → (type, id, name, score), deletes with NULL name and score. */
    static Map<Long, List<Object>> lastPerKey(List<List<Change>> commits) {
        Map<Long, List<Object>> last = new TreeMap<>();
        for (List<Change> commit : commits) {
            for (Change change : commit) {
                List<Object> row = new ArrayList<>();
                row.add(change.type());
                row.addAll(change.type().equals("delete") ? Arrays.asList(change.id(), null, null) : change.values());
                last.put(change.id(), row);
            }
        }
        return last;
    }

    /** One Java-writer commit of random upserts and deletes of keys below {@code keys}. */
    void commitWithJavaWriter(LakestreamTable table, Random random, int count, int keys) {
        List<Change> commit = new ArrayList<>();
        try (LakestreamWriter writer =
                new LakestreamWriter(table, SparkTesting.get().warehouse().allocator())) {
            for (int i = 0; i < count; i++) {
                long id = random.nextInt(keys);
                if (random.nextInt(4) == 0) {
                    writer.delete(Map.of("id", id));
                    commit.add(new Change("delete", id, List.of()));
                } else {
                    List<Object> values = randomValues(random, id);
                    Map<String, Object> row = new HashMap<>();
                    row.put("id", id);
                    row.put("name", values.get(1));
                    row.put("score", values.get(2));
                    writer.upsert(row);
                    commit.add(new Change("upsert", id, values));
                }
            }
            writer.commit();
        }
        apply(commit);
    }

    /** One Spark INSERT (one log commit of upserts) of {@code count} distinct random keys below {@code keys}. */
    void insertWithSpark(String qualifiedTable, Random random, int count, int keys) {
        Set<Long> ids = new HashSet<>();
        while (ids.size() < count) {
            ids.add((long) random.nextInt(keys));
        }
        List<Change> commit = new ArrayList<>();
        List<String> sqlValues = new ArrayList<>();
        for (long id : ids) {
            List<Object> values = randomValues(random, id);
            sqlValues.add("(%s, %s, %s)"
                    .formatted(id, values.get(1) == null ? "NULL" : "'" + values.get(1) + "'", values.get(2)));
            commit.add(new Change("upsert", id, values));
        }
        SparkTesting.get().sql("INSERT INTO %s VALUES %s".formatted(qualifiedTable, String.join(", ", sqlValues)));
        apply(commit);
    }

    private static List<Object> randomValues(Random random, long id) {
        String name = NAMES[random.nextInt(NAMES.length)];
        Integer score = random.nextInt(5) == 0 ? null : random.nextInt(1000);
        return Arrays.asList(id, name, score);
    }

    /** A commit is atomic: the changelog holds each key's net change by the commit, not the steps inside it. */
    private void apply(List<Change> commit) {
        commits.add(List.copyOf(commit));
        Map<Long, List<Object>> atCommitStart = new HashMap<>();
        for (Change change : commit) {
            if (!atCommitStart.containsKey(change.id())) {
                atCommitStart.put(change.id(), state.get(change.id()));
            }
            if (change.type().equals("upsert")) {
                state.put(change.id(), change.values());
            } else {
                state.remove(change.id());
            }
        }
        if (!recording) {
            return;
        }
        atCommitStart.forEach((id, previous) -> {
            List<Object> after = state.get(id);
            List<List<Object>> keyLog = new ArrayList<>();
            if (previous == null && after != null) {
                keyLog.add(row("insert", after));
            } else if (previous != null && after != null) {
                keyLog.add(row("update_before", previous));
                keyLog.add(row("update_after", after));
            } else if (previous != null) {
                keyLog.add(row("delete", previous));
            }
            if (!keyLog.isEmpty()) {
                changelog.computeIfAbsent(id, ignored -> new ArrayList<>()).addAll(keyLog);
            }
        });
    }

    private static List<Object> row(String type, List<Object> values) {
        List<Object> row = new ArrayList<>();
        row.add(type);
        row.addAll(values);
        return row;
    }
}
