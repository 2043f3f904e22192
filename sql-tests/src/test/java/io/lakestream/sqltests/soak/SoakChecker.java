package io.lakestream.sqltests.soak;

import static io.lakestream.sqltests.soak.Violations.Kind.DUPLICATED;
import static io.lakestream.sqltests.soak.Violations.Kind.EXTRA_UPDATE;
import static io.lakestream.sqltests.soak.Violations.Kind.FAILED_VISIBLE;
import static io.lakestream.sqltests.soak.Violations.Kind.LOST;
import static io.lakestream.sqltests.soak.Violations.Kind.LOST_UPDATE;
import static io.lakestream.sqltests.soak.Violations.Kind.PHANTOM;
import static io.lakestream.sqltests.soak.Violations.Kind.TORN;
import static io.lakestream.sqltests.soak.Violations.Kind.WRONG_STATE;

import io.lakestream.sqltests.soak.History.OperationState;
import io.lakestream.sqltests.soak.Operation.Append;
import io.lakestream.sqltests.soak.Operation.Increment;
import io.lakestream.sqltests.soak.Operation.KeyChange;
import io.lakestream.sqltests.soak.Operation.KeyChanges;
import io.lakestream.sqltests.soak.Operation.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Checks what a view returned against the history the soak wrote (never against another Lakestream
 * read). A read taken while the soak runs is checked against what was acknowledged before it started
 * and invoked before it ended; the final reads, after every process stopped and a final tiering pass,
 * are checked against the settled history: every acknowledged change visible exactly once, nothing of a
 * failed operation, an operation whose outcome is unknown (its process was killed) all or nothing.
 */
final class SoakChecker {
    private final Violations violations;
    private final Tally tally;

    SoakChecker(Violations violations, Tally tally) {
        this.violations = violations;
        this.tally = tally;
    }

    /**
     * A read of {@code view} that started at {@code startNanos} and returned at {@code endNanos}; {@code
     * settled} for the final reads (every operation has its outcome, the lake holds the whole log).
     */
    void check(
            View view,
            List<List<Object>> rows,
            List<OperationState> writes,
            long startNanos,
            long endNanos,
            boolean settled) {
        tally.add(settled ? "rows checked (final)" : "rows checked (during the run)", rows.size());
        tally.increment(settled ? "reads checked (final)" : "reads checked (during the run)");
        switch (view.table()) {
            case SoakTables.EVENTS -> checkEvents(view, rows, writes, startNanos, endNanos, settled);
            case SoakTables.ITEMS -> {
                if (!settled) {
                    throw new IllegalArgumentException("items are checked only once settled");
                }
                checkItems(view, rows, writes);
            }
            case SoakTables.COUNTERS -> checkCounters(view, rows, writes, startNanos, endNanos, settled);
            default -> throw new IllegalArgumentException(view.table());
        }
    }

    private void checkEvents(
            View view,
            List<List<Object>> rows,
            List<OperationState> writes,
            long startNanos,
            long endNanos,
            boolean settled) {
        Map<Long, OperationState> appends = new HashMap<>();
        for (OperationState state : writes) {
            if (state.operation().effect() instanceof Append) {
                appends.put(state.operation().id(), state);
            }
        }
        Map<Long, Integer> occurrences = new HashMap<>();
        Map<Long, Set<Long>> visibleIdsByOperation = new HashMap<>();
        for (List<Object> row : rows) {
            long id = ((Number) row.get(0)).longValue();
            long operation = id / SoakTables.ROWS_PER_OPERATION_LIMIT;
            occurrences.merge(id, 1, Integer::sum);
            visibleIdsByOperation
                    .computeIfAbsent(operation, ignored -> new HashSet<>())
                    .add(id);
            if (!SoakTables.tag(operation).equals(row.get(1))) {
                report(settled, PHANTOM, 1, "%s: row %s has the tag of another operation".formatted(view, row));
            }
        }
        occurrences.forEach((id, count) -> {
            if (count > 1) {
                report(
                        settled,
                        DUPLICATED,
                        count - 1,
                        "%s: event id %d visible %d times (%s)"
                                .formatted(
                                        view,
                                        id,
                                        count,
                                        describe(appends.get(id / SoakTables.ROWS_PER_OPERATION_LIMIT))));
            }
        });
        visibleIdsByOperation.forEach((operation, ids) -> {
            OperationState state = appends.get(operation);
            if (state == null || !state.invokedBefore(endNanos)) {
                report(
                        settled,
                        PHANTOM,
                        ids.size(),
                        "%s: %d rows of operation %d, which %s"
                                .formatted(
                                        view,
                                        ids.size(),
                                        operation,
                                        state == null ? "does not exist" : "started after the read ended"));
                return;
            }
            List<Long> expected = ((Append) state.operation().effect()).ids();
            if (!expected.containsAll(ids)) {
                report(
                        settled,
                        PHANTOM,
                        ids.size(),
                        "%s: ids %s are not among those operation %d wrote".formatted(view, ids, operation));
            }
            if (state.outcome() == Outcome.FAILED) {
                report(
                        settled,
                        FAILED_VISIBLE,
                        ids.size(),
                        "%s: %d rows of a failed operation: %s".formatted(view, ids.size(), describe(state)));
            } else if ((view.includesLog() || settled)
                    && ids.size() < expected.size()
                    && !mustBeVisible(state, view, startNanos, settled)) {
                // (missing rows of an operation that had to be visible are LOST, below)
                report(
                        settled,
                        TORN,
                        expected.size() - ids.size(),
                        "%s: %d of the %d rows of %s".formatted(view, ids.size(), expected.size(), describe(state)));
            }
        });
        for (OperationState state : appends.values()) {
            if (mustBeVisible(state, view, startNanos, settled)) {
                List<Long> missing = ((Append) state.operation().effect())
                        .ids().stream()
                                .filter(id -> !occurrences.containsKey(id))
                                .toList();
                if (!missing.isEmpty()) {
                    report(
                            settled,
                            LOST,
                            missing.size(),
                            "%s: %d acknowledged rows missing (ids %s...): %s"
                                    .formatted(view, missing.size(), missing.getFirst(), describe(state)));
                }
            }
        }
    }

    /** Once settled every acknowledged append; during the run, in a union read, those acknowledged before it started. */
    private static boolean mustBeVisible(OperationState state, View view, long startNanos, boolean settled) {
        return settled ? state.outcome() == Outcome.OK : view.includesLog() && state.acknowledgedBefore(startNanos);
    }

    /** The final state of each key must be one that its owner's history allows. */
    private void checkItems(View view, List<List<Object>> rows, List<OperationState> writes) {
        Map<Long, Set<Optional<Long>>> allowed = allowedItemStates(writes);
        Map<Long, List<Long>> observed = new HashMap<>();
        for (List<Object> row : rows) {
            observed.computeIfAbsent(((Number) row.get(0)).longValue(), ignored -> new ArrayList<>())
                    .add(row.get(1) == null ? null : ((Number) row.get(1)).longValue());
        }
        Map<Long, OperationState> byId = writes.stream()
                .collect(Collectors.toMap(state -> state.operation().id(), state -> state));
        observed.forEach((key, values) -> {
            if (values.size() > 1) {
                report(
                        true,
                        DUPLICATED,
                        values.size() - 1,
                        "%s: key %d visible %d times with values %s".formatted(view, key, values.size(), values));
            }
            if (!allowed.containsKey(key)) {
                report(true, PHANTOM, 1, "%s: key %d, which no operation wrote".formatted(view, key));
            }
        });
        allowed.forEach((key, states) -> {
            List<Long> values = observed.get(key);
            Optional<Long> state = values == null ? Optional.empty() : Optional.ofNullable(values.getFirst());
            if (states.contains(state)) {
                return;
            }
            OperationState writer = state.map(byId::get).orElse(null);
            Violations.Kind kind = writer != null && writer.outcome() == Outcome.FAILED
                    ? FAILED_VISIBLE
                    : state.isEmpty() ? LOST : WRONG_STATE;
            report(
                    true,
                    kind,
                    1,
                    "%s: key %d is %s; its history allows only %s; its operations: %s"
                            .formatted(
                                    view,
                                    key,
                                    state.map(value -> "v=" + value).orElse("absent"),
                                    states,
                                    keyHistory(key, writes)));
        });
    }

    /**
     * Per key, the states its owner's operations may have left: an acknowledged change applies, a failed
     * one does not, an unknown one may or may not. Keys are owned by one slot, which runs one operation at
     * a time, so the operations of a key are ordered by their start.
     */
    static Map<Long, Set<Optional<Long>>> allowedItemStates(List<OperationState> writes) {
        Map<Long, Set<Optional<Long>>> allowed = new HashMap<>();
        List<OperationState> ordered = writes.stream()
                .filter(state -> state.operation().effect() instanceof KeyChanges)
                .sorted(Comparator.comparingLong(OperationState::invokedNanos))
                .toList();
        for (OperationState state : ordered) {
            for (KeyChange change : ((KeyChanges) state.operation().effect()).changes()) {
                Set<Optional<Long>> before = allowed.getOrDefault(change.key(), Set.of(Optional.empty()));
                Set<Optional<Long>> after = new LinkedHashSet<>();
                for (Optional<Long> value : before) {
                    Optional<Long> applied = switch (change.change()) {
                        case UPSERT -> Optional.of(change.value());
                        case DELETE -> Optional.empty();
                        case UPDATE -> value.map(ignored -> change.value());
                    };
                    switch (state.outcome()) {
                        case OK -> after.add(applied);
                        case FAILED -> after.add(value);
                        case UNKNOWN, PENDING -> {
                            after.add(value);
                            after.add(applied);
                        }
                    }
                }
                allowed.put(change.key(), after);
            }
        }
        return allowed;
    }

    /** Every counter lies between its acknowledged increments and those that may have committed. */
    private void checkCounters(
            View view,
            List<List<Object>> rows,
            List<OperationState> writes,
            long startNanos,
            long endNanos,
            boolean settled) {
        Map<Long, Long> values = new HashMap<>();
        for (List<Object> row : rows) {
            Long previous = values.put(((Number) row.get(0)).longValue(), ((Number) row.get(1)).longValue());
            if (previous != null) {
                report(settled, DUPLICATED, 1, "%s: counter %s visible twice".formatted(view, row.get(0)));
            }
        }
        for (long counter = 0; counter < SoakTables.COUNTER_COUNT; counter++) {
            long acknowledged = 0;
            long possible = 0;
            for (OperationState state : writes) {
                if (state.operation().effect() instanceof Increment increment && increment.counter() == counter) {
                    if (state.acknowledgedBefore(startNanos)) {
                        acknowledged++;
                    }
                    if (state.invokedBefore(endNanos) && state.outcome() != Outcome.FAILED) {
                        possible++;
                    }
                }
            }
            Long value = values.get(counter);
            // a lake-only read during the run may lag behind the log; after the final tiering pass it may not
            boolean lagging = !view.includesLog() && !settled;
            if (value == null) {
                report(settled, LOST, 1, "%s: counter %d is missing".formatted(view, counter));
            } else if (value < acknowledged && !lagging) {
                report(
                        settled,
                        LOST_UPDATE,
                        acknowledged - value,
                        "%s: counter %d is %d but %d increments were acknowledged before the read (%d may have committed)"
                                .formatted(view, counter, value, acknowledged, possible));
            } else if (value > possible) {
                report(
                        settled,
                        EXTRA_UPDATE,
                        value - possible,
                        "%s: counter %d is %d but at most %d increments may have committed (%d acknowledged)"
                                .formatted(view, counter, value, possible, acknowledged));
            }
        }
    }

    private void report(boolean settled, Violations.Kind kind, long count, String description) {
        if (settled) {
            violations.addFinal(kind, count, description);
        } else {
            violations.add(kind, count, description);
        }
    }

    private static String keyHistory(long key, List<OperationState> writes) {
        return writes.stream()
                .filter(state -> state.operation().effect() instanceof KeyChanges changes
                        && changes.changes().stream().anyMatch(change -> change.key() == key))
                .sorted(Comparator.comparingLong(OperationState::invokedNanos))
                .map(state -> {
                    KeyChange change = ((KeyChanges) state.operation().effect())
                            .changes().stream()
                                    .filter(candidate -> candidate.key() == key)
                                    .findFirst()
                                    .orElseThrow();
                    return "op %d %s %s%s"
                            .formatted(
                                    state.operation().id(),
                                    state.outcome(),
                                    change.change(),
                                    change.change() == Operation.Change.DELETE ? "" : " v=" + change.value());
                })
                .collect(Collectors.joining(", ", "[", "]"));
    }

    private static String describe(OperationState state) {
        return state == null ? "no such operation" : state.operation().describe();
    }
}
