package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Schema changes from Trino and Spark (add a nullable column of a random type, also under a name dropped before;
 * drop, rename and widen a non-key column) interleaved with writes from Trino, Spark and the Java writer (upserts
 * and deletes on a primary-key table, appends on an append-only table), tiering passes and compactions, one random
 * action per step. After every step both engines' union reads ({@code SELECT *}) must equal a plain Java oracle
 * built only from what the test did: rows by column name under the current schema, with renames, drops and widened
 * values applied. After a tiering pass, a compaction or a schema change, {@code t$lake} (both engines) and Trino's stock Iceberg
 * connector must equal the oracle as of the table's last tiering (with the later schema changes applied).
 *
 * <p>Trino runs every statement through {@link TrinoEngine#EXACT_LAKE_CATALOG}: a schema changed by Spark shows in
 * the default catalog only once its pinned lake is refreshed (docs/trino.md, "ALTER TABLE"). The seed is fixed
 * (2101) and printed on failure ({@code -Dlakestream.test.seed=N} runs another); {@value #STEPS_PROPERTY} sets
 * the number of steps for a longer run.
 */
@ExtendWith(Seeds.class)
final class TestSchemaEvolutionRandomized {
    static final String STEPS_PROPERTY = "lakestream.test.schema-evolution.steps";
    private static final int DEFAULT_STEPS = 16;
    private static final int KEYS = 16;
    private static final List<String> WORDS = List.of("a", "b", "c", "");
    private static final String PK = "pk";
    private static final String LOG = "log";

    private final CrossEngine engines = CrossEngine.get();

    @Test
    void schemaChangesInterleavedWithWritesTieringAndCompaction() {
        long seed = Seeds.seed(2101);
        new Run(new Random(seed), "schema_random_" + Long.toHexString(seed & 0xffffffL))
                .run(Integer.getInteger(STEPS_PROPERTY, DEFAULT_STEPS));
    }

    /** One randomized run in its own schema. */
    private final class Run {
        private final Random random;
        private final String schema;
        private final Map<String, TableState> current = new LinkedHashMap<>();
        private final Map<String, TableState> lake = new HashMap<>();
        private final Map<String, Set<String>> dropped = new HashMap<>();
        private final List<String> history = new ArrayList<>();
        private int names;

        Run(Random random, String schema) {
            this.random = random;
            this.schema = schema;
        }

        void run(int steps) {
            engines.createSchema(schema);
            Map<String, SqlType> initial = new LinkedHashMap<>();
            initial.put("a", SqlType.of(Kind.INTEGER));
            initial.put("b", SqlType.of(Kind.VARCHAR));
            initial.put("c", SqlType.of(Kind.REAL));
            initial.put("d", new SqlType(Kind.DECIMAL, 8));
            trino("CREATE TABLE %s (id bigint NOT NULL, %s) WITH (primary_key = ARRAY['id'], bucket_count = 2)"
                    .formatted(trinoTable(PK), definitions(initial, false)));
            spark("CREATE TABLE %s (id BIGINT NOT NULL, %s) TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')"
                    .formatted(sparkTable(LOG), definitions(initial, true)));
            for (String table : List.of(PK, LOG)) {
                Map<String, SqlType> columns = new LinkedHashMap<>();
                columns.put("id", SqlType.of(Kind.BIGINT));
                columns.putAll(initial);
                current.put(table, new TableState(table.equals(PK), columns));
                lake.put(table, current.get(table).copy());
                dropped.put(table, new LinkedHashSet<>());
            }
            for (int step = 0; step < steps; step++) {
                try {
                    step(step);
                } catch (RuntimeException e) {
                    throw new AssertionError("a statement failed at " + context(step), e);
                }
            }
            assertThat(history)
                    .as("the run exercised every kind of action: %s", history)
                    .anyMatch(s -> s.startsWith("trino ALTER"))
                    .anyMatch(s -> s.startsWith("spark ALTER"))
                    .anyMatch(s -> s.startsWith("tier "));
        }

        private void step(int step) {
            String table = random.nextBoolean() ? PK : LOG;
            int action = random.nextInt(100);
            boolean lakeChanged;
            if (action < 40) {
                write(table);
                lakeChanged = false;
            } else if (action < 50) {
                delete(PK);
                lakeChanged = false;
            } else if (action < 75) {
                changeSchema(table);
                lakeChanged = true;
            } else if (action < 90) {
                engines.tier(schema, table);
                history.add("tier " + table);
                lake.put(table, current.get(table).copy());
                lakeChanged = true;
            } else {
                engines.compact(schema, table);
                history.add("tier and compact " + table);
                lake.put(table, current.get(table).copy());
                lakeChanged = true;
            }
            for (String name : List.of(PK, LOG)) {
                checkUnion(name, step);
            }
            if (lakeChanged) {
                checkLake(table, step);
            }
        }

        private void write(String table) {
            TableState state = current.get(table);
            Map<Long, Map<String, Object>> rows = new LinkedHashMap<>();
            int size = 1 + random.nextInt(4);
            // distinct keys in one statement: which of two rows with one key wins is not defined
            while (rows.size() < size) {
                long id = random.nextInt(KEYS);
                Map<String, Object> row = new HashMap<>();
                row.put("id", id);
                state.columns.forEach((name, type) -> row.putIfAbsent(name, type.randomValue(random)));
                rows.put(id, row);
            }
            int engine = random.nextInt(3);
            if (engine == 2) {
                engines.write(schema, table, List.copyOf(rows.values()), state.primaryKey);
                history.add("java %s %s".formatted(state.primaryKey ? "upsert" : "append", describe(rows.values())));
            } else {
                boolean spark = engine == 1;
                String columns = String.join(", ", state.columns.keySet());
                String values = rows.values().stream()
                        .map(row -> state.columns.entrySet().stream()
                                .map(c -> c.getValue().literal(row.get(c.getKey()), spark))
                                .collect(Collectors.joining(", ", "(", ")")))
                        .collect(Collectors.joining(", "));
                statement(spark, "INSERT INTO %s (%s) VALUES %s", table, columns, values);
            }
            rows.values().forEach(state::write);
        }

        private void delete(String table) {
            TableState state = current.get(table);
            Set<Long> keys = new LinkedHashSet<>();
            int size = 1 + random.nextInt(3);
            while (keys.size() < size) {
                keys.add((long) random.nextInt(KEYS));
            }
            int engine = random.nextInt(3);
            if (engine == 2) {
                engines.delete(
                        schema,
                        table,
                        keys.stream()
                                .<Map<String, ?>>map(id -> Map.of("id", id))
                                .toList());
                history.add("java delete " + keys);
            } else {
                String in = keys.stream().map(String::valueOf).collect(Collectors.joining(", "));
                statement(engine == 1, "DELETE FROM %s WHERE id IN (%s)", table, in);
            }
            keys.forEach(state.keyed::remove);
        }

        private void changeSchema(String table) {
            TableState state = current.get(table);
            boolean spark = random.nextBoolean();
            List<String> columns =
                    state.columns.keySet().stream().filter(c -> !c.equals("id")).toList();
            List<String> widenable = columns.stream()
                    .filter(c -> state.columns.get(c).widenable())
                    .toList();
            int kind = random.nextInt(4);
            if (kind == 1 && columns.size() > 1) {
                String column = columns.get(random.nextInt(columns.size()));
                statement(spark, "ALTER TABLE %s DROP COLUMN %s", table, column);
                dropped.get(table).add(column);
                apply(table, s -> s.drop(column));
            } else if (kind == 2 && !columns.isEmpty()) {
                String column = columns.get(random.nextInt(columns.size()));
                String name = "r" + names++;
                statement(spark, "ALTER TABLE %s RENAME COLUMN %s TO %s", table, column, name);
                apply(table, s -> s.rename(column, name));
            } else if (kind == 3 && !widenable.isEmpty()) {
                String column = widenable.get(random.nextInt(widenable.size()));
                SqlType to = state.columns.get(column).widened(random).orElseThrow();
                if (spark) {
                    statement(true, "ALTER TABLE %s ALTER COLUMN %s TYPE %s", table, column, to.spark());
                } else {
                    statement(false, "ALTER TABLE %s ALTER COLUMN %s SET DATA TYPE %s", table, column, to.trino());
                }
                apply(table, s -> s.widen(column, to));
            } else {
                // now and then a name dropped before: a new column (new field id) whose older values must not return
                List<String> reusable = dropped.get(table).stream()
                        .filter(name -> !state.columns.containsKey(name))
                        .toList();
                String name = !reusable.isEmpty() && random.nextInt(3) == 0
                        ? reusable.get(random.nextInt(reusable.size()))
                        : "c" + names++;
                SqlType type = SqlType.random(random);
                // at the end, first, or after a random column (the key included)
                int where = random.nextInt(4);
                Optional<String> after = where == 0
                        ? Optional.of("")
                        : where == 1
                                ? Optional.of(
                                        List.copyOf(state.columns.keySet()).get(random.nextInt(state.columns.size())))
                                : Optional.empty();
                String position =
                        after.map(c -> c.isEmpty() ? " FIRST" : " AFTER " + c).orElse("");
                statement(
                        spark,
                        "ALTER TABLE %s ADD COLUMN %s %s%s",
                        table,
                        name,
                        spark ? type.spark() : type.trino(),
                        position);
                apply(table, s -> s.add(name, type, after));
            }
        }

        /** A schema change applies to the rows of the log and of the lake alike. */
        private void apply(String table, Consumer<TableState> change) {
            change.accept(current.get(table));
            change.accept(lake.get(table));
        }

        private void checkUnion(String table, int step) {
            List<String> expected = current.get(table).format();
            assertThat(Values.format(trino("SELECT * FROM " + trinoTable(table)), false))
                    .as("Trino union read of %s, %s", table, context(step))
                    .isEqualTo(expected);
            assertThat(Values.format(engines.spark("SELECT * FROM " + sparkTable(table)), false))
                    .as("Spark union read of %s, %s", table, context(step))
                    .isEqualTo(expected);
        }

        private void checkLake(String table, int step) {
            List<String> expected = lake.get(table).format();
            assertThat(Values.format(
                            trino("SELECT * FROM %s.%s.\"%s$lake\""
                                    .formatted(TrinoEngine.EXACT_LAKE_CATALOG, schema, table)),
                            false))
                    .as("Trino %s$lake, %s", table, context(step))
                    .isEqualTo(expected);
            assertThat(Values.format(
                            engines.spark(
                                    "SELECT * FROM %s.%s.`%s$lake`".formatted(TrinoEngine.CATALOG, schema, table)),
                            false))
                    .as("Spark %s$lake, %s", table, context(step))
                    .isEqualTo(expected);
            String columns = String.join(", ", lake.get(table).columns.keySet());
            assertThat(Values.format(trino("SELECT %s FROM iceberg.%s.%s".formatted(columns, schema, table)), false))
                    .as("stock Iceberg connector on %s, %s", table, context(step))
                    .isEqualTo(expected);
        }

        private String context(int step) {
            return "step " + step + ", history:\n  " + String.join("\n  ", history);
        }

        private void statement(boolean spark, String template, String table, Object... arguments) {
            Object[] all = new Object[arguments.length + 1];
            all[0] = spark ? sparkTable(table) : trinoTable(table);
            System.arraycopy(arguments, 0, all, 1, arguments.length);
            String sql = template.formatted(all);
            history.add((spark ? "spark " : "trino ") + sql);
            if (spark) {
                spark(sql);
            } else {
                trino(sql);
            }
        }

        private List<List<Object>> trino(String sql) {
            return engines.trino(sql);
        }

        private void spark(String sql) {
            engines.spark(sql);
        }

        private String trinoTable(String table) {
            return TrinoEngine.EXACT_LAKE_CATALOG + "." + schema + "." + table;
        }

        private String sparkTable(String table) {
            return TrinoEngine.CATALOG + "." + schema + "." + table;
        }
    }

    private static String definitions(Map<String, SqlType> columns, boolean spark) {
        return columns.entrySet().stream()
                .map(c -> c.getKey() + " "
                        + (spark ? c.getValue().spark() : c.getValue().trino()))
                .collect(Collectors.joining(", "));
    }

    private static String describe(Collection<Map<String, Object>> rows) {
        return rows.stream().map(row -> new TreeMap<>(row).toString()).collect(Collectors.joining(", "));
    }

    /** The oracle of one table: its non-key columns in order and its rows by column name. */
    private static final class TableState {
        private final boolean primaryKey;
        private Map<String, SqlType> columns;
        private final Map<Long, Map<String, Object>> keyed = new TreeMap<>();
        private final List<Map<String, Object>> appended = new ArrayList<>();

        TableState(boolean primaryKey, Map<String, SqlType> columns) {
            this.primaryKey = primaryKey;
            this.columns = new LinkedHashMap<>(columns);
        }

        TableState copy() {
            TableState copy = new TableState(primaryKey, columns);
            keyed.forEach((id, row) -> copy.keyed.put(id, new HashMap<>(row)));
            appended.forEach(row -> copy.appended.add(new HashMap<>(row)));
            return copy;
        }

        void write(Map<String, Object> row) {
            if (primaryKey) {
                keyed.put((Long) row.get("id"), new HashMap<>(row));
            } else {
                appended.add(new HashMap<>(row));
            }
        }

        private List<Map<String, Object>> rows() {
            return primaryKey ? List.copyOf(keyed.values()) : appended;
        }

        /** Adds a column at the end, or after {@code after} (first if that is empty). */
        void add(String name, SqlType type, Optional<String> after) {
            if (after.isEmpty()) {
                columns.put(name, type);
            } else {
                Map<String, SqlType> added = new LinkedHashMap<>();
                if (after.get().isEmpty()) {
                    added.put(name, type);
                }
                columns.forEach((column, columnType) -> {
                    added.put(column, columnType);
                    if (column.equals(after.get())) {
                        added.put(name, type);
                    }
                });
                columns = added;
            }
            // a column added under a dropped name is a new column: NULL in every older row
            rows().forEach(row -> row.remove(name));
        }

        void drop(String name) {
            columns.remove(name);
            rows().forEach(row -> row.remove(name));
        }

        void rename(String from, String to) {
            Map<String, SqlType> renamed = new LinkedHashMap<>();
            columns.forEach((name, type) -> renamed.put(name.equals(from) ? to : name, type));
            columns = renamed;
            rows().forEach(row -> row.put(to, row.remove(from)));
        }

        void widen(String name, SqlType to) {
            columns.put(name, to);
            rows().forEach(row -> row.put(name, to.convert(row.get(name))));
        }

        List<String> format() {
            List<List<Object>> rows = new ArrayList<>();
            for (Map<String, Object> row : rows()) {
                List<Object> values = new ArrayList<>();
                columns.keySet().forEach(name -> values.add(row.get(name)));
                rows.add(values);
            }
            return Values.format(rows, false);
        }
    }

    private enum Kind {
        BIGINT,
        INTEGER,
        REAL,
        DOUBLE,
        DECIMAL,
        VARCHAR,
        BOOLEAN,
        DATE
    }

    /** A column type; {@code precision} only for decimals, whose scale is always 2. */
    private record SqlType(Kind kind, int precision) {
        static SqlType of(Kind kind) {
            return new SqlType(kind, 0);
        }

        static SqlType random(Random random) {
            Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
            return kind == Kind.DECIMAL ? new SqlType(kind, 6 + random.nextInt(13)) : of(kind);
        }

        String trino() {
            return switch (kind) {
                case BIGINT -> "bigint";
                case INTEGER -> "integer";
                case REAL -> "real";
                case DOUBLE -> "double";
                case DECIMAL -> "decimal(%s, 2)".formatted(precision);
                case VARCHAR -> "varchar";
                case BOOLEAN -> "boolean";
                case DATE -> "date";
            };
        }

        String spark() {
            return switch (kind) {
                case INTEGER -> "INT";
                case REAL -> "FLOAT";
                case VARCHAR -> "STRING";
                default -> trino().toUpperCase(Locale.ROOT);
            };
        }

        boolean widenable() {
            return kind == Kind.INTEGER || kind == Kind.REAL || (kind == Kind.DECIMAL && precision < 38);
        }

        /** The type this one may be widened to (decimal: a random larger precision), if any. */
        Optional<SqlType> widened(Random random) {
            return switch (kind) {
                case INTEGER -> Optional.of(of(Kind.BIGINT));
                case REAL -> Optional.of(of(Kind.DOUBLE));
                case DECIMAL ->
                    precision < 38
                            ? Optional.of(
                                    new SqlType(kind, precision + 1 + random.nextInt(Math.min(4, 38 - precision))))
                            : Optional.empty();
                default -> Optional.empty();
            };
        }

        /** A value of the narrower type as this type holds it. */
        Object convert(Object value) {
            return switch (value) {
                case null -> null;
                case Integer i when kind == Kind.BIGINT -> i.longValue();
                case Float f when kind == Kind.DOUBLE -> f.doubleValue();
                default -> value;
            };
        }

        /** A random value, one in five NULL; reals are multiples of 1/4 so that they print alike as real and double. */
        Object randomValue(Random random) {
            if (random.nextInt(5) == 0) {
                return null;
            }
            int n = random.nextInt(200) - 100;
            return switch (kind) {
                case BIGINT -> n * 1_000_000_007L;
                case INTEGER -> n;
                case REAL -> n / 4.0f;
                case DOUBLE -> n / 8.0;
                case DECIMAL -> BigDecimal.valueOf(n * 37L, 2);
                case VARCHAR -> WORDS.get(random.nextInt(WORDS.size()));
                case BOOLEAN -> n % 2 == 0;
                case DATE -> LocalDate.of(2026, 1, 1).plusDays(n);
            };
        }

        /** A SQL literal of {@code value} in this type, for Trino or Spark. */
        String literal(Object value, boolean spark) {
            String type = spark ? spark() : trino();
            if (value == null) {
                return "CAST(NULL AS " + type + ")";
            }
            String text = value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString();
            return kind == Kind.VARCHAR ? "'" + text + "'" : "CAST('" + text + "' AS " + type + ")";
        }
    }
}
