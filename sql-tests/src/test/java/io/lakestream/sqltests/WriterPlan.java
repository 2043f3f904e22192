package io.lakestream.sqltests;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What one writer of a concurrent run commits to a table {@code (id bigint, src varchar, seq bigint)}
 * with primary key {@code id}: a seeded sequence of commits, each upserting or deleting keys only this
 * writer touches ({@code keyBase} to {@code keyBase + 3 * rowsPerCommit}). The same seed gives the same
 * plan in the child JVM that writes it and in the test that checks it, so the oracle is what was
 * written, never what a reader returns.
 *
 * @param source the writer's name, the {@code src} of its rows
 * @param commits the commits in order
 */
record WriterPlan(String source, List<Commit> commits) {
    WriterPlan {
        requireNonNull(source, "source is null");
        commits = List.copyOf(commits);
    }

    /**
     * One commit: upserts of {@code (id, source, seq)} or deletes of ids, never both (one SQL statement
     * writes it in an engine).
     */
    record Commit(Map<Long, Long> upserts, List<Long> deletes) {
        Commit {
            upserts = Map.copyOf(upserts);
            deletes = List.copyOf(deletes);
        }

        boolean isDelete() {
            return !deletes.isEmpty();
        }
    }

    static WriterPlan generate(String source, long keyBase, long seed, int commits, int rowsPerCommit) {
        Random random = new Random(seed * 31 + source.hashCode());
        TreeSet<Long> live = new TreeSet<>();
        List<Commit> plan = new ArrayList<>();
        for (int commit = 0; commit < commits; commit++) {
            if (commit > 0 && !live.isEmpty() && random.nextInt(4) == 0) {
                List<Long> candidates = new ArrayList<>(live);
                List<Long> deletes = new ArrayList<>();
                for (int i = 0; i < 3 && !candidates.isEmpty(); i++) {
                    deletes.add(candidates.remove(random.nextInt(candidates.size())));
                }
                deletes.forEach(live::remove);
                plan.add(new Commit(Map.of(), deletes));
            } else {
                Map<Long, Long> upserts = new HashMap<>();
                while (upserts.size() < rowsPerCommit) {
                    long id = keyBase + random.nextInt(3 * rowsPerCommit);
                    upserts.putIfAbsent(id, commit * 1_000L + upserts.size());
                }
                live.addAll(upserts.keySet());
                plan.add(new Commit(upserts, List.of()));
            }
        }
        return new WriterPlan(source, plan);
    }

    /** The writer's rows ({@code id -> seq}) after each prefix of its commits: element k is after k commits. */
    List<Map<Long, Long>> states() {
        List<Map<Long, Long>> states = new ArrayList<>();
        Map<Long, Long> state = new HashMap<>();
        states.add(Map.copyOf(state));
        for (Commit commit : commits) {
            state.putAll(commit.upserts());
            commit.deletes().forEach(state::remove);
            states.add(Map.copyOf(state));
        }
        return states;
    }

    /** The SQL statement (Trino's and Spark's dialect alike) that makes commit {@code commit} on {@code table}. */
    String statement(Commit commit, String table) {
        if (commit.isDelete()) {
            return "DELETE FROM %s WHERE id IN (%s)"
                    .formatted(
                            table,
                            commit.deletes().stream().map(String::valueOf).collect(Collectors.joining(", ")));
        }
        return "INSERT INTO %s VALUES %s"
                .formatted(
                        table,
                        commit.upserts().entrySet().stream()
                                .map(row -> "(%d, '%s', %d)".formatted(row.getKey(), source, row.getValue()))
                                .collect(Collectors.joining(", ")));
    }
}
