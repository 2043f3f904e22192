package io.lakestream.sqltests.soak;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The soak's three tables, chosen so that the oracle is exact:
 *
 * <ul>
 *   <li>{@code events}, append-only: every operation appends rows with ids no other operation uses
 *       ({@code id = operation * 1000 + i}) and its own tag, so each row names the operation it came from;
 *   <li>{@code items}, primary key {@code k}: every writer owns its own keys, so a key's changes come from
 *       one writer, one at a time, and its final state follows from that writer's history alone;
 *   <li>{@code counters}, primary key {@code id}: the only shared rows, incremented with {@code UPDATE ...
 *       SET n = n + 1} from both engines (the conditional operations: no increment may be lost).
 * </ul>
 */
final class SoakTables {
    static final String SCHEMA = "soak";
    static final String EVENTS = "events";
    static final String ITEMS = "items";
    static final String COUNTERS = "counters";
    static final int COUNTER_COUNT = 2;
    static final int ROWS_PER_OPERATION_LIMIT = 1000;

    private SoakTables() {}

    /** Trino DDL creating the schema and the tables. */
    static List<String> create() {
        return List.of(
                "CREATE SCHEMA lakestream." + SCHEMA,
                "CREATE TABLE lakestream." + SCHEMA + "." + EVENTS
                        + " (id bigint NOT NULL, tag varchar) WITH (bucket_key = ARRAY['id'], bucket_count = 4)",
                "CREATE TABLE lakestream." + SCHEMA + "." + ITEMS
                        + " (k bigint, v bigint) WITH (primary_key = ARRAY['k'], bucket_count = 4)",
                "CREATE TABLE lakestream." + SCHEMA + "." + COUNTERS
                        + " (id bigint, n bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)",
                "INSERT INTO lakestream." + SCHEMA + "." + COUNTERS + " VALUES "
                        + java.util.stream.IntStream.range(0, COUNTER_COUNT)
                                .mapToObj(id -> "(" + id + ", 0)")
                                .collect(Collectors.joining(", ")));
    }

    /** The name of a table in a catalog: {@code lakestream.soak.t}. */
    static String name(String catalog, String table) {
        return catalog + "." + SCHEMA + "." + table;
    }

    static String tag(long operation) {
        return "op" + operation;
    }

    static String inList(List<Long> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(", ", "(", ")"));
    }
}
