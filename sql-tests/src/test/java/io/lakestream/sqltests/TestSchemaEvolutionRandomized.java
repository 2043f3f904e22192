package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import io.lakestream.write.LakestreamWriter;
import io.trino.testing.MaterializedRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
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
 * <p>Both tables have a struct column whose fields change too (added, dropped, renamed, widened, from either engine),
 * and now and then a Java writer loaded before a schema change writes after it with the schema it loaded. The oracle
 * gives every column and struct field an identity of its own (like an Iceberg field id): struct values are kept by
 * field identity, and an older writer's rows are mapped to the current columns by identity. Structs are compared as
 * canonical text built from their field values ({@link RowType#expected}, {@link #canonical(Object)}).
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
    private static final String STALE = "java writer with the loaded schema:";

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
        private final Map<String, Set<String>> droppedFields = new HashMap<>();
        private final List<String> history = new ArrayList<>();
        private int names;
        /** The oracle's field identities (top-level columns and struct fields), like Iceberg's field ids. */
        private int identities;

        Run(Random random, String schema) {
            this.random = random;
            this.schema = schema;
        }

        void run(int steps) {
            engines.createSchema(schema);
            Map<String, ColumnType> initial = new LinkedHashMap<>();
            initial.put("a", SqlType.of(Kind.INTEGER));
            initial.put("b", SqlType.of(Kind.VARCHAR));
            initial.put("c", SqlType.of(Kind.REAL));
            initial.put("d", new SqlType(Kind.DECIMAL, 8));
            initial.put(
                    "r",
                    new RowType(List.of(
                            new Field(identities++, "x", SqlType.of(Kind.INTEGER)),
                            new Field(identities++, "y", SqlType.of(Kind.VARCHAR)),
                            new Field(identities++, "z", SqlType.of(Kind.REAL)))));
            // structs inside an array and a map: their fields change by path (arr.element.f, m.value.f)
            initial.put(
                    "arr",
                    new NestedType(
                            Shape.ARRAY,
                            new RowType(List.of(
                                    new Field(identities++, "p", SqlType.of(Kind.INTEGER)),
                                    new Field(identities++, "q", SqlType.of(Kind.VARCHAR))))));
            initial.put(
                    "m",
                    new NestedType(
                            Shape.MAP,
                            new RowType(List.of(
                                    new Field(identities++, "u", SqlType.of(Kind.INTEGER)),
                                    new Field(identities++, "v", SqlType.of(Kind.REAL))))));
            trino("CREATE TABLE %s (id bigint NOT NULL, %s) WITH (primary_key = ARRAY['id'], bucket_count = 2)"
                    .formatted(trinoTable(PK), definitions(initial, false)));
            spark("CREATE TABLE %s (id BIGINT NOT NULL, %s) TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')"
                    .formatted(sparkTable(LOG), definitions(initial, true)));
            for (String table : List.of(PK, LOG)) {
                Map<String, ColumnType> columns = new LinkedHashMap<>();
                columns.put("id", SqlType.of(Kind.BIGINT));
                columns.putAll(initial);
                // each table's columns have identities of their own, as Iceberg field ids are per table
                Map<String, Integer> ids = new HashMap<>();
                columns.keySet().forEach(name -> ids.put(name, identities++));
                current.put(table, new TableState(table.equals(PK), columns, ids));
                lake.put(table, current.get(table).copy());
                dropped.put(table, new LinkedHashSet<>());
                droppedFields.put(table, new LinkedHashSet<>());
            }
            for (int step = 0; step < steps; step++) {
                try {
                    // every run has a writer holding an older schema at least once, whatever the seed
                    if (step == steps / 2 && history.stream().noneMatch(s -> s.startsWith(STALE))) {
                        staleWrite(random.nextBoolean() ? PK : LOG);
                        for (String name : List.of(PK, LOG)) {
                            checkUnion(name, step);
                        }
                    }
                    step(step);
                } catch (RuntimeException e) {
                    throw new AssertionError("a statement failed at " + context(step), e);
                }
            }
            // what a passing run did (a failure carries it in its message); the engines take over System.out
            try {
                Path file = Path.of("target", "schema-evolution-history", schema + ".txt");
                Files.createDirectories(file.getParent());
                Files.write(file, history);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            assertThat(history)
                    .as("the run exercised every kind of action: %s", history)
                    .anyMatch(s -> s.startsWith("trino ALTER"))
                    .anyMatch(s -> s.startsWith("spark ALTER"))
                    .anyMatch(s -> s.startsWith("tier "))
                    .anyMatch(s -> s.startsWith(STALE))
                    .anyMatch(s -> s.matches("(trino|spark) ALTER TABLE \\S+ (ADD|DROP|RENAME|ALTER) COLUMN \\w+\\..*"))
                    .anyMatch(
                            s -> s.matches(
                                    "(trino|spark) ALTER TABLE \\S+ (ADD|DROP|RENAME|ALTER) COLUMN \\w+\\.(element|value)\\..*"));
        }

        private void step(int step) {
            String table = random.nextBoolean() ? PK : LOG;
            int action = random.nextInt(100);
            boolean lakeChanged;
            if (action < 34) {
                write(table);
                lakeChanged = false;
            } else if (action < 42) {
                staleWrite(table);
                lakeChanged = true;
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
            Map<Long, Map<String, Object>> rows = randomRows(state.columns);
            int engine = random.nextInt(3);
            if (engine == 2) {
                List<Map<String, ?>> javaRows = javaRows(rows.values(), state.columns);
                engines.write(schema, table, javaRows, state.primaryKey);
                history.add("java %s %s".formatted(state.primaryKey ? "upsert" : "append", describe(javaRows)));
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

        /**
         * A Java writer loads the table, then the schema changes (from either engine), then the writer writes with
         * the schema it loaded (docs/format.md, "A writer holding an older schema writes with it"). The oracle maps
         * its rows to the current schema by field identity: a column or field added since is NULL (a primary-key
         * upsert replaces the whole row), a dropped one is gone, a renamed one keeps its value, a widened one is
         * converted.
         */
        private void staleWrite(String table) {
            TableState state = current.get(table);
            Map<String, ColumnType> loaded = new LinkedHashMap<>(state.columns);
            Map<String, Integer> loadedIds = new HashMap<>(state.ids);
            Map<Long, Map<String, Object>> rows;
            try (LakestreamWriter writer = engines.writer(schema, table)) {
                history.add("java writer loads " + table + " (" + definitions(loaded, false) + ")");
                int changes = 1 + random.nextInt(2);
                for (int i = 0; i < changes; i++) {
                    changeSchema(table);
                }
                rows = randomRows(loaded);
                List<Map<String, ?>> javaRows = javaRows(rows.values(), loaded);
                for (Map<String, ?> row : javaRows) {
                    if (state.primaryKey) {
                        writer.upsert(row);
                    } else {
                        writer.append(row);
                    }
                }
                writer.commit();
                history.add("%s %s %s".formatted(STALE, state.primaryKey ? "upsert" : "append", describe(javaRows)));
            }
            rows.values().forEach(row -> state.write(state.fromSchema(row, loaded, loadedIds)));
        }

        /** 1 to 4 rows of random values, distinct keys: which of two rows with one key wins is not defined. */
        private Map<Long, Map<String, Object>> randomRows(Map<String, ColumnType> columns) {
            Map<Long, Map<String, Object>> rows = new LinkedHashMap<>();
            int size = 1 + random.nextInt(4);
            while (rows.size() < size) {
                long id = random.nextInt(KEYS);
                Map<String, Object> row = new HashMap<>();
                row.put("id", id);
                columns.forEach((name, type) -> row.putIfAbsent(name, type.randomValue(random)));
                rows.put(id, row);
            }
            return rows;
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
            List<String> structs = columns.stream()
                    .filter(c -> state.columns.get(c).struct().isPresent())
                    .toList();
            // two in three changes go into a struct: its four kinds of change must show in a short run; two in three
            // of those into the struct inside the array or the map, when there is one
            if (!structs.isEmpty() && random.nextInt(3) > 0) {
                List<String> nested = structs.stream()
                        .filter(c -> state.columns.get(c) instanceof NestedType)
                        .toList();
                List<String> among = !nested.isEmpty() && random.nextInt(3) > 0 ? nested : structs;
                changeStruct(table, among.get(random.nextInt(among.size())), spark);
                return;
            }
            // the struct column stays, so that its fields keep changing
            List<String> droppable =
                    columns.stream().filter(c -> !structs.contains(c)).toList();
            List<String> widenable = columns.stream()
                    .filter(c -> state.columns.get(c).widenable())
                    .toList();
            int kind = random.nextInt(4);
            if (kind == 1 && droppable.size() > 1) {
                String column = droppable.get(random.nextInt(droppable.size()));
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
                SqlType to =
                        ((SqlType) state.columns.get(column)).widened(random).orElseThrow();
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
                int id = identities++;
                apply(table, s -> s.add(name, type, after, id));
            }
        }

        /**
         * Adds, drops, renames or widens a field of the struct of column {@code column} (the column itself, or the
         * element of an array or the value of a map, by path: {@code arr.element.f}, {@code m.value.f}), from Trino or
         * Spark.
         */
        private void changeStruct(String table, String columnName, boolean sparkChosen) {
            ColumnType holder = current.get(table).columns.get(columnName);
            RowType type = holder.struct().orElseThrow();
            String column = holder instanceof NestedType nested
                    ? columnName + "." + nested.shape().path()
                    : columnName;
            Consumer<RowType> retype = row -> apply(table, s -> s.retype(columnName, holder.withStruct(row)));
            List<Field> fields = type.fields();
            List<Field> widenable =
                    fields.stream().filter(f -> f.type().widenable()).toList();
            int drawn = random.nextInt(4);
            // a drop of the only field, or a widening with no widenable field, becomes an add
            int kind = (drawn == 1 && fields.size() < 2) || (drawn == 3 && widenable.isEmpty()) ? 0 : drawn;
            // Spark when Trino cannot say it (Trino 483: no RENAME inside an array or map, no ADD or DROP in a map)
            boolean spark = sparkChosen
                    || (holder instanceof NestedType nested && !nested.shape().trinoChanges(kind));
            if (kind == 1 && fields.size() > 1) {
                Field field = fields.get(random.nextInt(fields.size()));
                statement(spark, "ALTER TABLE %s DROP COLUMN %s.%s", table, column, field.name());
                droppedFields.get(table).add(field.name());
                retype.accept(type.without(field.id()));
            } else if (kind == 2) {
                Field field = fields.get(random.nextInt(fields.size()));
                String name = "g" + names++;
                statement(spark, "ALTER TABLE %s RENAME COLUMN %s.%s TO %s", table, column, field.name(), name);
                retype.accept(type.renamed(field.id(), name));
            } else if (kind == 3 && !widenable.isEmpty()) {
                Field field = widenable.get(random.nextInt(widenable.size()));
                SqlType to = field.type().widened(random).orElseThrow();
                if (spark) {
                    statement(
                            true, "ALTER TABLE %s ALTER COLUMN %s.%s TYPE %s", table, column, field.name(), to.spark());
                } else {
                    statement(
                            false,
                            "ALTER TABLE %s ALTER COLUMN %s.%s SET DATA TYPE %s",
                            table,
                            column,
                            field.name(),
                            to.trino());
                }
                retype.accept(type.widened(field.id(), to));
            } else {
                // now and then a field name dropped before: a new field, NULL in every older row
                List<String> reusable = droppedFields.get(table).stream()
                        .filter(name -> fields.stream().noneMatch(f -> f.name().equals(name)))
                        .toList();
                String name = !reusable.isEmpty() && random.nextInt(3) == 0
                        ? reusable.get(random.nextInt(reusable.size()))
                        : "f" + names++;
                SqlType fieldType = SqlType.randomFieldType(random);
                statement(
                        spark,
                        "ALTER TABLE %s ADD COLUMN %s.%s %s",
                        table,
                        column,
                        name,
                        spark ? fieldType.spark() : fieldType.trino());
                Field added = new Field(identities++, name, fieldType);
                retype.accept(type.with(added));
            }
        }

        /** A schema change applies to the rows of the log and of the lake alike. */
        private void apply(String table, Consumer<TableState> change) {
            change.accept(current.get(table));
            change.accept(lake.get(table));
        }

        private void checkUnion(String table, int step) {
            List<String> expected = current.get(table).format();
            assertThat(Values.format(canonical(trino("SELECT * FROM " + trinoTable(table))), false))
                    .as("Trino union read of %s, %s", table, context(step))
                    .isEqualTo(expected);
            assertThat(Values.format(canonical(engines.spark("SELECT * FROM " + sparkTable(table))), false))
                    .as("Spark union read of %s, %s", table, context(step))
                    .isEqualTo(expected);
        }

        private void checkLake(String table, int step) {
            List<String> expected = lake.get(table).format();
            assertThat(Values.format(
                            canonical(trino("SELECT * FROM %s.%s.\"%s$lake\""
                                    .formatted(TrinoEngine.EXACT_LAKE_CATALOG, schema, table))),
                            false))
                    .as("Trino %s$lake, %s", table, context(step))
                    .isEqualTo(expected);
            assertThat(Values.format(
                            canonical(engines.spark(
                                    "SELECT * FROM %s.%s.`%s$lake`".formatted(TrinoEngine.CATALOG, schema, table))),
                            false))
                    .as("Spark %s$lake, %s", table, context(step))
                    .isEqualTo(expected);
            String columns = String.join(", ", lake.get(table).columns.keySet());
            assertThat(Values.format(
                            canonical(trino("SELECT %s FROM iceberg.%s.%s".formatted(columns, schema, table))), false))
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

    private static String definitions(Map<String, ColumnType> columns, boolean spark) {
        return columns.entrySet().stream()
                .map(c -> c.getKey() + " "
                        + (spark ? c.getValue().spark() : c.getValue().trino()))
                .collect(Collectors.joining(", "));
    }

    /**
     * The rows an engine returned, each struct value as the oracle's canonical text ({@link RowType#expected}):
     * Trino returns a row as a {@link MaterializedRow} of its field values, Spark as its {@code Row} (from Spark's class
     * loader, read by reflection).
     */
    private static List<List<Object>> canonical(List<List<Object>> rows) {
        return rows.stream()
                .map(row -> row.stream()
                        .map(TestSchemaEvolutionRandomized::canonical)
                        .toList())
                .toList();
    }

    private static Object canonical(Object value) {
        List<Object> fields;
        if (value instanceof List<?> elements) {
            return elements.stream().map(e -> text(canonical(e))).collect(Collectors.joining("; ", "[", "]"));
        }
        if (value instanceof Map<?, ?> entries) {
            return new TreeMap<>(entries)
                    .entrySet().stream()
                            .map(e -> e.getKey() + ": " + text(canonical(e.getValue())))
                            .collect(Collectors.joining("; ", "<", ">"));
        }
        if (value != null && value.getClass().getName().startsWith("scala.")) {
            return canonical(ScalaValues.toJava(value));
        }
        if (value instanceof MaterializedRow row) {
            fields = new ArrayList<>(row.getFields());
        } else if (value != null && value.getClass().getName().startsWith("org.apache.spark.sql.")) {
            try {
                int size = (int) value.getClass().getMethod("size").invoke(value);
                fields = new ArrayList<>(size);
                for (int i = 0; i < size; i++) {
                    fields.add(value.getClass().getMethod("get", int.class).invoke(value, i));
                }
            } catch (ReflectiveOperationException e) {
                throw new AssertionError("cannot read Spark row " + value, e);
            }
        } else if (value == null || value.getClass().getName().startsWith("java.")) {
            return value;
        } else {
            throw new AssertionError("an engine returned a value of an unexpected class: %s (%s)"
                    .formatted(value.getClass().getName(), value));
        }
        return fields.stream()
                .map(field -> text(canonical(Values.normalize(field))))
                .collect(Collectors.joining(", ", "{", "}"));
    }

    private static String text(Object canonical) {
        return canonical == null ? "NULL" : canonical.toString();
    }

    /** Rows as the Java writer takes them: struct values as maps from field name to value. */
    private static List<Map<String, ?>> javaRows(
            Collection<Map<String, Object>> rows, Map<String, ColumnType> columns) {
        List<Map<String, ?>> javaRows = new ArrayList<>();
        for (Map<String, Object> row : rows) {
            Map<String, Object> javaRow = new HashMap<>();
            row.forEach((name, value) -> javaRow.put(name, columns.get(name).javaValue(value)));
            javaRows.add(javaRow);
        }
        return javaRows;
    }

    private static String describe(Collection<? extends Map<String, ?>> rows) {
        return rows.stream().map(row -> new TreeMap<>(row).toString()).collect(Collectors.joining(", "));
    }

    /**
     * The oracle of one table: its columns in order, each column's identity (like an Iceberg field id), and its rows
     * by column name; a struct value is a map from field identity to value ({@link RowType}).
     */
    private static final class TableState {
        private final boolean primaryKey;
        private Map<String, ColumnType> columns;
        private final Map<String, Integer> ids;
        private final Map<Long, Map<String, Object>> keyed = new TreeMap<>();
        private final List<Map<String, Object>> appended = new ArrayList<>();

        TableState(boolean primaryKey, Map<String, ColumnType> columns, Map<String, Integer> ids) {
            this.primaryKey = primaryKey;
            this.columns = new LinkedHashMap<>(columns);
            this.ids = new HashMap<>(ids);
        }

        TableState copy() {
            TableState copy = new TableState(primaryKey, columns, ids);
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

        /**
         * A row written under an older schema ({@code columns} with identities {@code ids}) as it reads under this
         * one: each value under the column of the same identity, converted to its type; values of dropped columns
         * left out; columns added since absent (NULL). Struct values are keyed by field identity already.
         */
        Map<String, Object> fromSchema(
                Map<String, Object> row, Map<String, ColumnType> columns, Map<String, Integer> ids) {
            Map<Integer, String> names = new HashMap<>();
            this.ids.forEach((name, id) -> names.put(id, name));
            Map<String, Object> mapped = new HashMap<>();
            row.forEach((name, value) -> {
                String now = names.get(ids.get(name));
                if (now != null) {
                    mapped.put(now, this.columns.get(now).convert(value));
                }
            });
            return mapped;
        }

        /** Adds a column at the end, or after {@code after} (first if that is empty). */
        void add(String name, ColumnType type, Optional<String> after, int id) {
            ids.put(name, id);
            if (after.isEmpty()) {
                columns.put(name, type);
            } else {
                Map<String, ColumnType> added = new LinkedHashMap<>();
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
            ids.remove(name);
            rows().forEach(row -> row.remove(name));
        }

        void rename(String from, String to) {
            Map<String, ColumnType> renamed = new LinkedHashMap<>();
            columns.forEach((name, type) -> renamed.put(name.equals(from) ? to : name, type));
            columns = renamed;
            ids.put(to, ids.remove(from));
            rows().forEach(row -> row.put(to, row.remove(from)));
        }

        void widen(String name, SqlType to) {
            columns.put(name, to);
            rows().forEach(row -> row.put(name, to.convert(row.get(name))));
        }

        /** A struct column's new type (or an array's or map's of structs); values are kept by field identity. */
        void retype(String column, ColumnType type) {
            columns.put(column, type);
        }

        List<String> format() {
            List<List<Object>> rows = new ArrayList<>();
            for (Map<String, Object> row : rows()) {
                List<Object> values = new ArrayList<>();
                columns.forEach((name, type) -> values.add(type.expected(row.get(name))));
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

    /** A column's type in the oracle: a scalar ({@link SqlType}) or a struct ({@link RowType}). */
    private sealed interface ColumnType permits SqlType, RowType, NestedType {
        String trino();

        String spark();

        /** A random value, sometimes NULL (at every level). */
        Object randomValue(Random random);

        /** A SQL literal of {@code value} in this type, for Trino or Spark. */
        String literal(Object value, boolean spark);

        /** A value written under an older type of this column, as this type reads it. */
        Object convert(Object value);

        default boolean widenable() {
            return false;
        }

        /** The value as the Java writer takes it. */
        default Object javaValue(Object value) {
            return value;
        }

        /** The value as the oracle expects to read it, comparable with {@link #canonical(Object)} of an engine's. */
        default Object expected(Object value) {
            return value;
        }

        /** The struct whose fields a schema change may change: the column's own, or its element's or value's. */
        default Optional<RowType> struct() {
            return Optional.empty();
        }

        /** This type with its struct replaced. */
        default ColumnType withStruct(RowType row) {
            throw new UnsupportedOperationException("no struct in " + this);
        }
    }

    private enum Shape {
        ARRAY("element"),
        MAP("value");

        private final String path;

        Shape(String path) {
            this.path = path;
        }

        /** The path segment of the struct inside, as both engines' ALTER TABLE name it. */
        String path() {
            return path;
        }

        /**
         * Whether Trino 483 can change a field of the struct inside ({@code kind}: 0 add, 1 drop, 2 rename, 3 widen):
         * its {@code RENAME COLUMN} follows rows only, and {@code ADD} and {@code DROP COLUMN} follow an array's
         * {@code element} but not a map's {@code value}; {@code SET DATA TYPE} follows both. Spark 4.1 takes all.
         */
        boolean trinoChanges(int kind) {
            return switch (kind) {
                case 2 -> false;
                case 3 -> true;
                default -> this == ARRAY;
            };
        }
    }

    /**
     * An array of structs or a map from varchar to structs. A value is null, a list of struct values (each null or a
     * map from field identity to value, as {@link RowType} keeps them), or a sorted map from key to struct value.
     */
    private record NestedType(Shape shape, RowType row) implements ColumnType {
        private static final List<String> KEYS = List.of("k0", "k1", "k2");

        @Override
        public String trino() {
            return shape == Shape.ARRAY ? "array(" + row.trino() + ")" : "map(varchar, " + row.trino() + ")";
        }

        @Override
        public String spark() {
            return shape == Shape.ARRAY ? "ARRAY<" + row.spark() + ">" : "MAP<STRING, " + row.spark() + ">";
        }

        @Override
        public Object randomValue(Random random) {
            if (random.nextInt(5) == 0) {
                return null;
            }
            int size = 1 + random.nextInt(2);
            if (shape == Shape.ARRAY) {
                List<Object> elements = new ArrayList<>();
                for (int i = 0; i < size; i++) {
                    elements.add(row.randomValue(random));
                }
                return Collections.unmodifiableList(elements);
            }
            Map<String, Object> entries = new TreeMap<>();
            while (entries.size() < size) {
                entries.put(KEYS.get(random.nextInt(KEYS.size())), row.randomValue(random));
            }
            return Collections.unmodifiableMap(entries);
        }

        @Override
        public String literal(Object value, boolean spark) {
            if (value == null) {
                return "CAST(NULL AS " + (spark ? spark() : trino()) + ")";
            }
            if (shape == Shape.ARRAY) {
                String elements = ((List<?>) value)
                        .stream().map(e -> row.literal(e, spark)).collect(Collectors.joining(", "));
                return spark ? "array(" + elements + ")" : "CAST(ARRAY[" + elements + "] AS " + trino() + ")";
            }
            Map<?, ?> entries = (Map<?, ?>) value;
            if (spark) {
                return entries.entrySet().stream()
                        .map(e -> "'" + e.getKey() + "', " + row.literal(e.getValue(), true))
                        .collect(Collectors.joining(", ", "map(", ")"));
            }
            String keys = entries.keySet().stream().map(k -> "'" + k + "'").collect(Collectors.joining(", "));
            String values =
                    entries.values().stream().map(v -> row.literal(v, false)).collect(Collectors.joining(", "));
            return "CAST(MAP(ARRAY[%s], ARRAY[%s]) AS %s)".formatted(keys, values, trino());
        }

        @Override
        public Object convert(Object value) {
            return value;
        }

        @Override
        public Object javaValue(Object value) {
            return switch (value) {
                case null -> null;
                case List<?> elements -> {
                    List<Object> values = new ArrayList<>();
                    elements.forEach(e -> values.add(row.javaValue(e)));
                    yield values;
                }
                case Map<?, ?> entries -> {
                    Map<Object, Object> values = new LinkedHashMap<>();
                    entries.forEach((k, v) -> values.put(k, row.javaValue(v)));
                    yield values;
                }
                default -> throw new IllegalArgumentException("not an array or map value: " + value);
            };
        }

        /** {@code [e1; e2]} or {@code <k0: v0; k1: v1>} (keys sorted), each struct as {@link RowType#expected}. */
        @Override
        public Object expected(Object value) {
            return switch (value) {
                case null -> null;
                case List<?> elements ->
                    elements.stream()
                            .map(e -> Objects.toString(row.expected(e), "NULL"))
                            .collect(Collectors.joining("; ", "[", "]"));
                case Map<?, ?> entries ->
                    entries.entrySet().stream()
                            .map(e -> e.getKey() + ": " + Objects.toString(row.expected(e.getValue()), "NULL"))
                            .collect(Collectors.joining("; ", "<", ">"));
                default -> throw new IllegalArgumentException("not an array or map value: " + value);
            };
        }

        @Override
        public Optional<RowType> struct() {
            return Optional.of(row);
        }

        @Override
        public ColumnType withStruct(RowType row) {
            return new NestedType(shape, row);
        }
    }

    /** A field of a struct: its identity (like an Iceberg field id) never changes, its name and type may. */
    private record Field(int id, String name, SqlType type) {}

    /**
     * A struct type: its fields in order. A struct value is null or an immutable map from field identity to the
     * value as written; it is read under the current fields, so renames, drops and widenings need no row rewrite.
     */
    private record RowType(List<Field> fields) implements ColumnType {
        RowType {
            fields = List.copyOf(fields);
        }

        @Override
        public String trino() {
            return fields.stream()
                    .map(f -> f.name() + " " + f.type().trino())
                    .collect(Collectors.joining(", ", "row(", ")"));
        }

        @Override
        public String spark() {
            return fields.stream()
                    .map(f -> f.name() + ": " + f.type().spark())
                    .collect(Collectors.joining(", ", "STRUCT<", ">"));
        }

        @Override
        public Object randomValue(Random random) {
            if (random.nextInt(5) == 0) {
                return null;
            }
            Map<Integer, Object> values = new HashMap<>();
            fields.forEach(f -> values.put(f.id(), f.type().randomValue(random)));
            return Collections.unmodifiableMap(values);
        }

        @Override
        public String literal(Object value, boolean spark) {
            if (value == null) {
                return "CAST(NULL AS " + (spark ? spark() : trino()) + ")";
            }
            Map<?, ?> values = (Map<?, ?>) value;
            if (spark) {
                return fields.stream()
                        .map(f -> "'" + f.name() + "', " + f.type().literal(values.get(f.id()), true))
                        .collect(Collectors.joining(", ", "named_struct(", ")"));
            }
            return fields.stream()
                    .map(f -> f.type().literal(values.get(f.id()), false))
                    .collect(Collectors.joining(", ", "CAST(ROW(", ") AS " + trino() + ")"));
        }

        @Override
        public Object convert(Object value) {
            return value;
        }

        @Override
        public Object javaValue(Object value) {
            if (value == null) {
                return null;
            }
            Map<?, ?> values = (Map<?, ?>) value;
            Map<String, Object> byName = new LinkedHashMap<>();
            fields.forEach(f -> byName.put(f.name(), values.get(f.id())));
            return byName;
        }

        /** {@code {v1, v2, ...}} in field order, values converted to the fields' current types, NULL for null. */
        @Override
        public Object expected(Object value) {
            if (value == null) {
                return null;
            }
            Map<?, ?> values = (Map<?, ?>) value;
            return fields.stream()
                    .map(f -> f.type().convert(values.get(f.id())))
                    .map(v -> v == null ? "NULL" : v.toString())
                    .collect(Collectors.joining(", ", "{", "}"));
        }

        @Override
        public Optional<RowType> struct() {
            return Optional.of(this);
        }

        @Override
        public ColumnType withStruct(RowType row) {
            return row;
        }

        RowType with(Field field) {
            List<Field> added = new ArrayList<>(fields);
            added.add(field);
            return new RowType(added);
        }

        RowType without(int id) {
            return new RowType(fields.stream().filter(f -> f.id() != id).toList());
        }

        RowType renamed(int id, String name) {
            return new RowType(fields.stream()
                    .map(f -> f.id() == id ? new Field(id, name, f.type()) : f)
                    .toList());
        }

        RowType widened(int id, SqlType to) {
            return new RowType(fields.stream()
                    .map(f -> f.id() == id ? new Field(id, f.name(), to) : f)
                    .toList());
        }
    }

    /** A column type; {@code precision} only for decimals, whose scale is always 2. */
    private record SqlType(Kind kind, int precision) implements ColumnType {
        /** The types of struct fields the test adds: their nested values read back alike from both engines. */
        private static final List<Kind> FIELD_KINDS =
                List.of(Kind.INTEGER, Kind.BIGINT, Kind.REAL, Kind.DOUBLE, Kind.VARCHAR, Kind.BOOLEAN);

        static SqlType of(Kind kind) {
            return new SqlType(kind, 0);
        }

        static SqlType randomFieldType(Random random) {
            return of(FIELD_KINDS.get(random.nextInt(FIELD_KINDS.size())));
        }

        static SqlType random(Random random) {
            Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
            return kind == Kind.DECIMAL ? new SqlType(kind, 6 + random.nextInt(13)) : of(kind);
        }

        @Override
        public String trino() {
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

        @Override
        public String spark() {
            return switch (kind) {
                case INTEGER -> "INT";
                case REAL -> "FLOAT";
                case VARCHAR -> "STRING";
                default -> trino().toUpperCase(Locale.ROOT);
            };
        }

        @Override
        public boolean widenable() {
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
        @Override
        public Object convert(Object value) {
            return switch (value) {
                case null -> null;
                case Integer i when kind == Kind.BIGINT -> i.longValue();
                case Float f when kind == Kind.DOUBLE -> f.doubleValue();
                default -> value;
            };
        }

        /** A random value, one in five NULL; reals are multiples of 1/4 so that they print alike as real and double. */
        @Override
        public Object randomValue(Random random) {
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
        @Override
        public String literal(Object value, boolean spark) {
            String type = spark ? spark() : trino();
            if (value == null) {
                return "CAST(NULL AS " + type + ")";
            }
            String text = value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString();
            return kind == Kind.VARCHAR ? "'" + text + "'" : "CAST('" + text + "' AS " + type + ")";
        }
    }
}
