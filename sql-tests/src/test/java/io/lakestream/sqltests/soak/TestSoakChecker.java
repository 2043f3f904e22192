package io.lakestream.sqltests.soak;

import static io.lakestream.sqltests.soak.Violations.Kind.DUPLICATED;
import static io.lakestream.sqltests.soak.Violations.Kind.EXTRA_UPDATE;
import static io.lakestream.sqltests.soak.Violations.Kind.FAILED_VISIBLE;
import static io.lakestream.sqltests.soak.Violations.Kind.LOST;
import static io.lakestream.sqltests.soak.Violations.Kind.LOST_UPDATE;
import static io.lakestream.sqltests.soak.Violations.Kind.PHANTOM;
import static io.lakestream.sqltests.soak.Violations.Kind.TORN;
import static io.lakestream.sqltests.soak.Violations.Kind.WRONG_STATE;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.sqltests.soak.History.OperationState;
import io.lakestream.sqltests.soak.Operation.Append;
import io.lakestream.sqltests.soak.Operation.Change;
import io.lakestream.sqltests.soak.Operation.Effect;
import io.lakestream.sqltests.soak.Operation.Increment;
import io.lakestream.sqltests.soak.Operation.KeyChange;
import io.lakestream.sqltests.soak.Operation.KeyChanges;
import io.lakestream.sqltests.soak.Operation.Outcome;
import io.lakestream.sqltests.soak.SoakMessage.Command;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The soak's checker finds every kind of wrong read it claims to find, and accepts every allowed one. */
final class TestSoakChecker {
    private static final View UNION_EVENTS = new View(View.TRINO, View.UNION, SoakTables.EVENTS);
    private static final View STOCK_EVENTS = new View(View.TRINO, View.STOCK, SoakTables.EVENTS);
    private static final View ITEMS = new View(View.SPARK, View.UNION, SoakTables.ITEMS);
    private static final View COUNTERS = new View(View.SPARK, View.UNION, SoakTables.COUNTERS);

    // operation 1 acknowledged (2 rows), 2 failed, 3 unknown (2 rows); all finished before time 100
    private final List<OperationState> appends = List.of(
            state(1, new Append(List.of(1000L, 1001L)), Outcome.OK, 10, 20),
            state(2, new Append(List.of(2000L)), Outcome.FAILED, 30, 40),
            state(3, new Append(List.of(3000L, 3001L)), Outcome.UNKNOWN, 50, 60));

    @Test
    void settledEventsAcceptEveryAllowedOutcomeOfAnUnknownOperation() {
        assertThat(check(UNION_EVENTS, appends, true, row(1000), row(1001))).isEmpty();
        assertThat(check(STOCK_EVENTS, appends, true, row(1000), row(1001), row(3000), row(3001)))
                .isEmpty();
    }

    @Test
    void settledEventsFindEveryKindOfWrongRead() {
        assertThat(check(UNION_EVENTS, appends, true, row(1000))).containsExactly(LOST);
        assertThat(check(UNION_EVENTS, appends, true, row(1000), row(1001), row(1001)))
                .containsExactly(DUPLICATED);
        assertThat(check(UNION_EVENTS, appends, true, row(1000), row(1001), row(2000)))
                .containsExactly(FAILED_VISIBLE);
        assertThat(check(UNION_EVENTS, appends, true, row(1000), row(1001), row(3000)))
                .containsExactly(TORN);
        assertThat(check(UNION_EVENTS, appends, true, row(1000), row(1001), row(9000)))
                .containsExactly(PHANTOM);
        // a row whose tag is not its operation's is garbage
        assertThat(check(UNION_EVENTS, appends, true, row(1000), List.of(1001L, "op3")))
                .containsExactly(PHANTOM);
        // the lake after the final pass must hold every acknowledged row too
        assertThat(check(STOCK_EVENTS, appends, true, row(1000))).containsExactly(LOST);
    }

    @Test
    void readsDuringTheRunNeedOnlyWhatWasAcknowledgedBeforeThem() {
        // a union read that started at 15 (before operation 1 was acknowledged) may miss it...
        assertThat(check(UNION_EVENTS, appends, 15, 70, false)).isEmpty();
        // ...one that started at 25 may not; a lake read may lag behind
        assertThat(check(UNION_EVENTS, appends, 25, 70, false)).containsExactly(LOST);
        assertThat(check(STOCK_EVENTS, appends, 25, 70, false)).isEmpty();
        // nothing may be visible before it was invoked
        assertThat(check(UNION_EVENTS, appends, 1, 5, false, row(1000), row(1001)))
                .containsExactly(PHANTOM);
    }

    @Test
    void itemsFollowTheirOwnersHistory() {
        List<OperationState> writes = List.of(
                state(11, keys(new KeyChange(7, Change.UPSERT, 11)), Outcome.OK, 10, 20),
                state(12, keys(new KeyChange(7, Change.DELETE, 0)), Outcome.UNKNOWN, 30, 40),
                state(13, keys(new KeyChange(7, Change.UPSERT, 13)), Outcome.FAILED, 50, 60),
                state(14, keys(new KeyChange(8, Change.UPDATE, 14)), Outcome.OK, 70, 80));
        // key 7: v=11, or absent if the unknown delete committed; key 8 was never inserted, so the update left nothing
        assertThat(check(ITEMS, writes, true, List.of(7L, 11L))).isEmpty();
        assertThat(check(ITEMS, writes, true)).isEmpty();
        assertThat(check(ITEMS, writes, true, List.of(7L, 13L))).containsExactly(FAILED_VISIBLE);
        assertThat(check(ITEMS, writes, true, List.of(7L, 11L), List.of(7L, 11L)))
                .containsExactly(DUPLICATED);
        assertThat(check(ITEMS, writes, true, List.of(7L, 11L), List.of(8L, 14L)))
                .containsExactly(WRONG_STATE);
        List<OperationState> acknowledgedDelete =
                List.of(writes.get(0), state(12, keys(new KeyChange(7, Change.DELETE, 0)), Outcome.OK, 30, 40));
        assertThat(check(ITEMS, acknowledgedDelete, true, List.of(7L, 11L))).containsExactly(WRONG_STATE);
        List<OperationState> acknowledgedUpsert = List.of(writes.get(0));
        assertThat(check(ITEMS, acknowledgedUpsert, true)).containsExactly(LOST);
    }

    @Test
    void countersLoseNoIncrementAndGainNone() {
        List<OperationState> increments = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            increments.add(state(20 + i, new Increment(0), Outcome.OK, 10 + i, 20 + i));
        }
        increments.add(state(30, new Increment(0), Outcome.UNKNOWN, 40, 50));
        increments.add(state(31, new Increment(0), Outcome.FAILED, 40, 50));
        assertThat(check(COUNTERS, increments, true, counters(3))).isEmpty();
        assertThat(check(COUNTERS, increments, true, counters(4))).isEmpty();
        assertThat(check(COUNTERS, increments, true, counters(2))).containsExactly(LOST_UPDATE);
        assertThat(check(COUNTERS, increments, true, counters(5))).containsExactly(EXTRA_UPDATE);
        // during the run: a read that started before the increments were acknowledged may see fewer
        assertThat(check(COUNTERS, increments, 5, 100, false, counters(0))).isEmpty();
    }

    @SafeVarargs
    private static List<Violations.Kind> check(
            View view, List<OperationState> writes, boolean settled, List<Object>... rows) {
        return check(view, writes, 1_000, 1_000, settled, rows);
    }

    @SafeVarargs
    private static List<Violations.Kind> check(
            View view, List<OperationState> writes, long start, long end, boolean settled, List<Object>... rows) {
        Violations violations = new Violations();
        new SoakChecker(violations, new Tally()).check(view, List.of(rows), writes, start, end, settled);
        List<Violations.Kind> found = new ArrayList<>();
        for (Violations.Kind kind : Violations.Kind.values()) {
            if (violations.count(kind) > 0) {
                found.add(kind);
            }
        }
        return found;
    }

    private static List<Object> row(long id) {
        return List.of(id, SoakTables.tag(id / SoakTables.ROWS_PER_OPERATION_LIMIT));
    }

    private static List<Object>[] counters(long zero) {
        @SuppressWarnings("unchecked")
        List<Object>[] rows = new List[SoakTables.COUNTER_COUNT];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = List.of((long) i, i == 0 ? zero : 0L);
        }
        return rows;
    }

    private static KeyChanges keys(KeyChange... changes) {
        return new KeyChanges(List.of(changes));
    }

    private static OperationState state(long id, Effect effect, Outcome outcome, long invoked, long completed) {
        Operation operation = new Operation(id, "slot", Command.sql(id, "statement"), effect);
        return new OperationState(operation, outcome, invoked, completed);
    }
}
