package io.lakestream.sqltests.soak;

import io.lakestream.sqltests.soak.Operation.Append;
import io.lakestream.sqltests.soak.Operation.CatalogCommit;
import io.lakestream.sqltests.soak.Operation.Change;
import io.lakestream.sqltests.soak.Operation.Increment;
import io.lakestream.sqltests.soak.Operation.KeyChange;
import io.lakestream.sqltests.soak.Operation.KeyChanges;
import io.lakestream.sqltests.soak.Operation.Read;
import io.lakestream.sqltests.soak.SoakMessage.Action;
import io.lakestream.sqltests.soak.SoakMessage.Command;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The operations one slot runs, drawn from the slot's own random generator (derived from the soak's
 * seed): appends with fresh ids, changes of the slot's own keys of {@code items}, increments of the
 * shared counters, and reads. Each kind of slot writes the way its client does: the Java writer with
 * idempotency keys (and now and then a long job that stages its segments well before it commits),
 * Trino with INSERT, DELETE and UPDATE, Spark with INSERT and UPDATE.
 */
abstract sealed class Workload {
    /** Keys of {@code items} each slot owns; few, so that a key sees many changes. */
    static final int OWNED_KEYS = 40;

    protected final String slot;
    protected final Random random;
    private final long firstKey;

    private Workload(String slot, long seed, int slotIndex) {
        this.slot = slot;
        this.random = new Random(seed);
        this.firstKey = (slotIndex + 1) * 1_000_000L;
    }

    abstract Operation next(long id);

    /** The client's name: the slot of its operations in the history. */
    String name() {
        return slot;
    }

    /**
     * A second client of an engine slot (a second session on the same server): increments of the shared
     * counters and reads of them, so that increments from two sessions of one engine and from both engines
     * race each other.
     */
    static Workload counterClient(String slot, long seed, String engine) {
        return new CounterClient(slot, seed, engine);
    }

    /** The pause before the next operation, in milliseconds. */
    abstract long pauseMillis();

    static Workload javaWriter(String slot, long seed, int slotIndex, long maxHoldMillis) {
        return new JavaWriter(slot, seed, slotIndex, maxHoldMillis);
    }

    static Workload trino(String slot, long seed, int slotIndex) {
        return new Engine(slot, seed, slotIndex, View.TRINO);
    }

    static Workload spark(String slot, long seed, int slotIndex) {
        return new Engine(slot, seed, slotIndex, View.SPARK);
    }

    protected List<Long> eventIds(long operation, int maxRows) {
        int rows = 1 + random.nextInt(maxRows);
        List<Long> ids = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            ids.add(operation * SoakTables.ROWS_PER_OPERATION_LIMIT + i);
        }
        return ids;
    }

    /** One to four distinct keys of this slot. */
    protected List<Long> ownedKeys() {
        int count = 1 + random.nextInt(4);
        List<Long> keys = new ArrayList<>();
        while (keys.size() < count) {
            long key = firstKey + random.nextInt(OWNED_KEYS);
            if (!keys.contains(key)) {
                keys.add(key);
            }
        }
        return keys;
    }

    private static final class JavaWriter extends Workload {
        private final long maxHoldMillis;

        JavaWriter(String slot, long seed, int slotIndex, long maxHoldMillis) {
            super(slot, seed, slotIndex);
            this.maxHoldMillis = maxHoldMillis;
        }

        @Override
        Operation next(long id) {
            String key = slot + "-op" + id;
            int choice = random.nextInt(100);
            if (choice >= 85) {
                return new Operation(
                        id,
                        slot,
                        new Command(id, Action.CATALOG, null, null, null, null, null, 0),
                        new CatalogCommit());
            }
            if (choice < 55) {
                List<Long> ids = eventIds(id, 20);
                List<Map<String, Object>> rows = new ArrayList<>();
                for (long eventId : ids) {
                    rows.add(Map.of("id", eventId, "tag", SoakTables.tag(id)));
                }
                // one append in ten is a long job: staged now, committed after the hold
                long hold = choice < 6 && maxHoldMillis > 0 ? 1 + (long) (random.nextDouble() * maxHoldMillis) : 0;
                return new Operation(
                        id, slot, write(id, SoakTables.EVENTS, rows, "append", key, hold), new Append(ids));
            }
            List<KeyChange> changes = new ArrayList<>();
            List<Map<String, Object>> rows = new ArrayList<>();
            List<String> kinds = new ArrayList<>();
            for (long k : ownedKeys()) {
                if (random.nextInt(100) < 30) {
                    changes.add(new KeyChange(k, Change.DELETE, 0));
                    rows.add(Map.of("k", k));
                    kinds.add("delete");
                } else {
                    changes.add(new KeyChange(k, Change.UPSERT, id));
                    rows.add(Map.of("k", k, "v", id));
                    kinds.add("upsert");
                }
            }
            Command command = new Command(id, Action.WRITE, null, SoakTables.ITEMS, kinds, rows, key, 0);
            return new Operation(id, slot, command, new KeyChanges(changes));
        }

        private static Command write(
                long id, String table, List<Map<String, Object>> rows, String change, String key, long hold) {
            return new Command(
                    id,
                    Action.WRITE,
                    null,
                    table,
                    rows.stream().map(row -> change).toList(),
                    rows,
                    key,
                    hold);
        }

        @Override
        long pauseMillis() {
            return 50 + random.nextInt(200);
        }
    }

    /** Trino and Spark: SQL statements. */
    private static final class Engine extends Workload {
        private final String engine;

        Engine(String slot, long seed, int slotIndex, String engine) {
            super(slot, seed, slotIndex);
            this.engine = engine;
        }

        @Override
        Operation next(long id) {
            int choice = random.nextInt(100);
            if (choice < 18) {
                List<Long> ids = eventIds(id, 10);
                String values = ids.stream()
                        .map(eventId -> "(" + eventId + ", '" + SoakTables.tag(id) + "')")
                        .collect(Collectors.joining(", "));
                return sql(
                        id,
                        "INSERT INTO " + SoakTables.name("lakestream", SoakTables.EVENTS) + " VALUES " + values,
                        new Append(ids));
            }
            if (choice < 28) {
                List<Long> keys = ownedKeys();
                String values =
                        keys.stream().map(k -> "(" + k + ", " + id + ")").collect(Collectors.joining(", "));
                return sql(
                        id,
                        "INSERT INTO " + SoakTables.name("lakestream", SoakTables.ITEMS) + " VALUES " + values,
                        changes(keys, Change.UPSERT, id));
            }
            if (choice < 40) {
                List<Long> keys = ownedKeys();
                // Trino deletes owned keys; Spark updates them (the row-level operations each engine is asked for)
                if (engine.equals(View.TRINO)) {
                    return sql(
                            id,
                            "DELETE FROM " + SoakTables.name("lakestream", SoakTables.ITEMS) + " WHERE k IN "
                                    + SoakTables.inList(keys),
                            changes(keys, Change.DELETE, 0));
                }
                return sql(
                        id,
                        "UPDATE " + SoakTables.name("lakestream", SoakTables.ITEMS) + " SET v = " + id + " WHERE k IN "
                                + SoakTables.inList(keys),
                        changes(keys, Change.UPDATE, id));
            }
            if (choice < 75) {
                long counter = random.nextInt(SoakTables.COUNTER_COUNT);
                return sql(
                        id,
                        "UPDATE " + SoakTables.name("lakestream", SoakTables.COUNTERS) + " SET n = n + 1 WHERE id = "
                                + counter,
                        new Increment(counter));
            }
            View view = switch (random.nextInt(4)) {
                case 0 -> new View(engine, View.UNION, SoakTables.COUNTERS);
                case 1 -> new View(engine, engine.equals(View.TRINO) ? View.STOCK : View.LAKE, SoakTables.EVENTS);
                default -> new View(engine, View.UNION, SoakTables.EVENTS);
            };
            return sql(id, view.sql(), new Read(view));
        }

        private Operation sql(long id, String statement, Operation.Effect effect) {
            return new Operation(id, slot, Command.sql(id, statement), effect);
        }

        private static KeyChanges changes(List<Long> keys, Change change, long value) {
            return new KeyChanges(
                    keys.stream().map(k -> new KeyChange(k, change, value)).toList());
        }

        @Override
        long pauseMillis() {
            return random.nextInt(150);
        }
    }

    private static final class CounterClient extends Workload {
        private final String engine;

        CounterClient(String slot, long seed, String engine) {
            super(slot, seed, -1);
            this.engine = engine;
        }

        @Override
        Operation next(long id) {
            if (random.nextInt(100) < 85) {
                long counter = random.nextInt(SoakTables.COUNTER_COUNT);
                return new Operation(
                        id,
                        slot,
                        Command.sql(
                                id,
                                "UPDATE " + SoakTables.name("lakestream", SoakTables.COUNTERS)
                                        + " SET n = n + 1 WHERE id = " + counter),
                        new Increment(counter));
            }
            View view = new View(engine, View.UNION, SoakTables.COUNTERS);
            return new Operation(id, slot, Command.sql(id, view.sql()), new Read(view));
        }

        @Override
        long pauseMillis() {
            return random.nextInt(100);
        }
    }
}
