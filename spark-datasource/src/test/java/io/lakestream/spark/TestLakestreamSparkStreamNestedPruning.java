package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Nested schema pruning in streams ({@link LakestreamStreamPushdown}): a stream that selects fields of a struct
 * column reads the struct narrowed to them, from the log and from the lake of a {@code full} start's state, in the
 * {@code log}, {@code upsert} and {@code changelog} outputs and on an append-only table. Every row equals what the
 * test wrote (nulls at every level, a struct field added after rows were written reading null in older lake files
 * and log segments); each batch's scan reports the narrowed read schema, and the state's lake read through the union
 * split reader counts the lake column chunks of the selected fields only (as with pruning off it counts them all).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamNestedPruning {
    private static final String NS = "stream_nested";
    private static final String R = "STRUCT<a: BIGINT, b: STRING, c: STRUCT<d: DOUBLE, e: STRING>>";
    private static final String PRUNING = "spark.sql.optimizer.nestedSchemaPruning.enabled";
    private static final Comparator<List<Object>> ROW_ORDER = Comparator.comparing(Object::toString);

    /** Per collector name: the read schema and lake column chunks of the stream scan of each batch. */
    private static final Map<String, List<StructType>> READ_SCHEMAS = new ConcurrentHashMap<>();

    private static final Map<String, long[]> LAKE_COLUMN_CHUNKS = new ConcurrentHashMap<>();

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /** Row {@code id}'s {@code r}: ids 2 to 4 each have a null at another level; other ids have none. */
    private static String r(int id) {
        return switch (id) {
            case 2 -> "CAST(NULL AS " + R + ")";
            case 3 ->
                "named_struct('a', CAST(NULL AS BIGINT), 'b', 'b3', 'c', CAST(NULL AS STRUCT<d: DOUBLE, e: STRING>))";
            case 4 ->
                "named_struct('a', 4L, 'b', CAST(NULL AS STRING), 'c', named_struct('d', CAST(NULL AS DOUBLE), 'e', 'e4'))";
            default ->
                "named_struct('a', %sL, 'b', 'b%s', 'c', named_struct('d', %s.5D, 'e', 'e%s'))"
                        .formatted(id, id, id, id);
        };
    }

    /** {@code r.a, r.c.e} of a row whose {@code r} is {@link #r}({@code id}). */
    private static List<Object> ae(int id) {
        return switch (id) {
            case 2, 3 -> Arrays.asList(null, null);
            case 4 -> Arrays.asList(4L, "e4");
            default -> Arrays.asList((long) id, "e" + id);
        };
    }

    private static String values(int... ids) {
        return String.join(
                ", ",
                Arrays.stream(ids)
                        .mapToObj(id -> "(%sL, %s)".formatted(id, r(id)))
                        .toList());
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    private static List<Object> change(String type, long id, List<Object> fields) {
        List<Object> row = new ArrayList<>(List.of(type, id));
        row.addAll(fields);
        return row;
    }

    /**
     * The three outputs of a primary-key table's changelog stream, selecting {@code r.a} and {@code r.c.e}: the
     * {@code full} state (lake rows merged with a log tail), then a log batch with an update and a delete (whose
     * before images the {@code changelog} output reads from the state at the batch's start, narrowed too).
     */
    @Test
    void primaryKeyOutputsReadOnlyTheSelectedFields() throws Exception {
        String table = "ls.%s.pk".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, r %s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')"
                .formatted(table, R));
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, values(1, 2, 3, 4, 7)));
        testing.tiering().tier(SparkTables.load(NS, "pk"));
        // the tail: key 1 gets row 5's values, 6 is new, 7 is deleted
        testing.sql("INSERT INTO %s VALUES (1L, %s), %s".formatted(table, r(5), values(6)));
        testing.sql("DELETE FROM %s WHERE id = 7".formatted(table));

        List<String> outputs = List.of("log", "upsert", "changelog");
        Map<String, Path> checkpoints = new ConcurrentHashMap<>();
        for (String output : outputs) {
            checkpoints.put(output, Files.createTempDirectory("stream-nested-" + output));
            run(changes(output), "pk-" + output, checkpoints.get(output));
        }
        // after the state: key 1 updated, key 4 deleted
        testing.sql("INSERT INTO %s VALUES (1L, %s)".formatted(table, r(8)));
        testing.sql("DELETE FROM %s WHERE id = 4".formatted(table));
        for (String output : outputs) {
            run(changes(output), "pk-" + output, checkpoints.get(output));
        }

        for (String output : outputs) {
            String name = "pk-" + output;
            String stateType = output.equals("changelog") ? "insert" : "upsert";
            List<List<Object>> expected = new ArrayList<>(List.of(
                    change(stateType, 1, ae(5)),
                    change(stateType, 2, ae(2)),
                    change(stateType, 3, ae(3)),
                    change(stateType, 4, ae(4)),
                    change(stateType, 6, ae(6))));
            if (output.equals("changelog")) {
                expected.add(change("update_before", 1, ae(5)));
                expected.add(change("update_after", 1, ae(8)));
                expected.add(change("delete", 4, ae(4)));
            } else {
                expected.add(change("upsert", 1, ae(8)));
                // a delete of the log carries only its key
                expected.add(change("delete", 4, Arrays.asList(null, null)));
            }
            assertThat(collected(name))
                    .as("%s: the state batch, then the log batch", output)
                    .isEqualTo(sorted(expected));
            assertThat(READ_SCHEMAS.get(name))
                    .as("%s: the read schema of each batch's scan", output)
                    .hasSize(2)
                    .allSatisfy(
                            schema -> assertThat(schema.apply("r").dataType().simpleString())
                                    .isEqualTo("struct<a:bigint,c:struct<e:string>>"));
        }

        // a tail of 3 changes with a merge index of 2 takes the union split reader for the state (2 passes over the
        // lake file): it reads the lake's column chunks of id and r.a, not r's four leaves
        testing.sql("CREATE TABLE %s.chunks (id BIGINT, r %s) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')"
                .formatted("ls." + NS, R));
        testing.sql("INSERT INTO ls.%s.chunks VALUES %s".formatted(NS, values(1, 2, 3, 4, 7)));
        testing.tiering().tier(SparkTables.load(NS, "chunks"));
        testing.sql("INSERT INTO ls.%s.chunks VALUES (1L, %s), %s".formatted(NS, r(5), values(6)));
        testing.sql("DELETE FROM ls.%s.chunks WHERE id = 7".formatted(NS));
        run(chunksOfA(), "chunks-pruned", Files.createTempDirectory("stream-nested-chunks"));
        testing.spark().conf().set(PRUNING, "false");
        try {
            run(chunksOfA(), "chunks-whole", Files.createTempDirectory("stream-nested-chunks-whole"));
        } finally {
            testing.spark().conf().unset(PRUNING);
        }
        List<List<Object>> state = List.of(row(1L, 5L), row(2L, null), row(3L, null), row(4L, 4L), row(6L, 6L));
        for (String name : List.of("chunks-pruned", "chunks-whole")) {
            assertThat(collected(name)).as(name).isEqualTo(sorted(state));
        }
        assertThat(READ_SCHEMAS
                        .get("chunks-pruned")
                        .getFirst()
                        .apply("r")
                        .dataType()
                        .simpleString())
                .isEqualTo("struct<a:bigint>");
        assertThat(READ_SCHEMAS
                        .get("chunks-whole")
                        .getFirst()
                        .apply("r")
                        .dataType()
                        .simpleString())
                .isEqualTo("struct<a:bigint,b:string,c:struct<d:double,e:string>>");
        assertThat(LAKE_COLUMN_CHUNKS.get("chunks-pruned")[0])
                .as("lake column chunks of the pruned state read")
                .isEqualTo(2 * 2);
        assertThat(LAKE_COLUMN_CHUNKS.get("chunks-whole")[0])
                .as("lake column chunks of the state read with pruning off")
                .isEqualTo(2 * 5);
    }

    private Dataset<Row> changes(String output) {
        return testing.spark()
                .readStream()
                .option("stream.output", output)
                .table("ls.%s.`pk$changes`".formatted(NS))
                .selectExpr("_change_type", "id", "r.a", "r.c.e");
    }

    private Dataset<Row> chunksOfA() {
        return testing.spark()
                .readStream()
                .option("merge.max-index-rows", "2")
                .table("ls.%s.`chunks$changes`".formatted(NS))
                .selectExpr("id", "r.a");
    }

    /**
     * An append-only table: a field {@code r.f} added after rows were written to the lake and to the log reads null
     * in them, in the {@code full} state (lake files and a log tail from before the change) and in the log batches of
     * an {@code earliest} start (segments from before and after it), there under a condition on a field that Spark
     * applies over the narrowed struct. Only {@code r.a} and {@code r.f} (or {@code
     * r.c.e} and {@code r.f}) are read; a field of structs in an array ({@code l.x}) is read with the array whole.
     */
    @Test
    void appendOnlyStreamWithAStructFieldAddedLater() throws Exception {
        String table = "ls.%s.events".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, r %s, l ARRAY<STRUCT<x: INT, y: STRING>>) ".formatted(table, R)
                + "TBLPROPERTIES ('bucket.num'='1')");
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, withList(1, 2, 3, 4)));
        testing.tiering().tier(SparkTables.load(NS, "events"));
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, withList(5)));
        testing.sql("ALTER TABLE %s ADD COLUMN r.f STRING".formatted(table));
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, withListAndF(6)));

        Path fullCheckpoint = Files.createTempDirectory("stream-nested-full");
        run(eventsFull(), "events-full", fullCheckpoint);
        Path earliestCheckpoint = Files.createTempDirectory("stream-nested-earliest");
        run(eventsEarliest(), "events-earliest", earliestCheckpoint);
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, withListAndF(7)));
        run(eventsFull(), "events-full", fullCheckpoint);
        run(eventsEarliest(), "events-earliest", earliestCheckpoint);

        List<List<Object>> full = new ArrayList<>();
        List<List<Object>> earliest = new ArrayList<>();
        for (int id = 1; id <= 7; id++) {
            String f = id >= 6 ? "f" + id : null;
            full.add(row((long) id, ae(id).get(0), f, xs(id)));
            if (id != 4) {
                earliest.add(row((long) id, ae(id).get(1), f));
            }
        }
        assertThat(collected("events-full")).isEqualTo(sorted(full));
        assertThat(collected("events-earliest")).isEqualTo(sorted(earliest));
        assertThat(StreamCollector.batches("events-full"))
                .as("the state batch, then a log batch")
                .hasSize(2);
        assertThat(READ_SCHEMAS.get("events-full")).hasSize(2).allSatisfy(schema -> {
            assertThat(schema.apply("r").dataType().simpleString()).isEqualTo("struct<a:bigint,f:string>");
            assertThat(schema.apply("l").dataType().simpleString()).isEqualTo("array<struct<x:int,y:string>>");
        });
        assertThat(READ_SCHEMAS.get("events-earliest"))
                .isNotEmpty()
                .allSatisfy(schema -> assertThat(schema.apply("r").dataType().simpleString())
                        .isEqualTo("struct<c:struct<e:string>,f:string>"));
    }

    private Dataset<Row> eventsFull() {
        return testing.spark().readStream().table("ls.%s.events".formatted(NS)).selectExpr("id", "r.a", "r.f", "l.x");
    }

    private Dataset<Row> eventsEarliest() {
        return testing.spark()
                .readStream()
                .option("startup.mode", "earliest")
                .table("ls.%s.events".formatted(NS))
                // a condition on a field stays in Spark, over the narrowed struct
                .where("coalesce(r.c.e, '') <> 'e4'")
                .selectExpr("id", "r.c.e", "r.f");
    }

    /** Row {@code id}'s {@code l}: NULL for id 2, two elements for id 1, one otherwise. */
    private static String list(int id) {
        return switch (id) {
            case 1 -> "array(named_struct('x', 1, 'y', 'y1'), named_struct('x', 10, 'y', 'y10'))";
            case 2 -> "CAST(NULL AS ARRAY<STRUCT<x: INT, y: STRING>>)";
            default -> "array(named_struct('x', %s, 'y', 'y%s'))".formatted(id, id);
        };
    }

    /** {@code l.x} of row {@code id}. */
    private static List<Integer> xs(int id) {
        return switch (id) {
            case 1 -> List.of(1, 10);
            case 2 -> null;
            default -> List.of(id);
        };
    }

    private static String withList(int... ids) {
        return String.join(
                ", ",
                Arrays.stream(ids)
                        .mapToObj(id -> "(%sL, %s, %s)".formatted(id, r(id), list(id)))
                        .toList());
    }

    /** A row written after {@code r.f} was added: {@code r} with {@code f} set. */
    private static String withListAndF(int id) {
        return "(%sL, named_struct('a', %sL, 'b', 'b%s', 'c', named_struct('d', %s.5D, 'e', 'e%s'), 'f', 'f%s'), %s)"
                .formatted(id, id, id, id, id, id, list(id));
    }

    /**
     * Runs the stream with AvailableNow to its end into collector {@code name}, keeping the read schema and the lake
     * column chunks of its scan in every batch.
     */
    private void run(Dataset<Row> stream, String name, Path checkpoint) throws Exception {
        READ_SCHEMAS.computeIfAbsent(name, ignored -> new CopyOnWriteArrayList<>());
        LAKE_COLUMN_CHUNKS.computeIfAbsent(name, ignored -> new long[1]);
        StreamCollector.onScans(name, testing.spark(), scan -> {
            READ_SCHEMAS.get(name).add(scan.scan().readSchema());
            LAKE_COLUMN_CHUNKS.get(name)[0] +=
                    scan.metrics().apply(LakestreamMetrics.LAKE_COLUMN_CHUNKS).value();
        });
        StreamCollector.runToEnd(stream, name, checkpoint);
    }

    /** The rows a collector kept, as lists (arrays as lists), in a fixed order. */
    private static List<List<Object>> collected(String name) {
        return sorted(StreamCollector.rowsAsLists(name));
    }

    private static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> copy = new ArrayList<>(rows);
        copy.sort(ROW_ORDER);
        return copy;
    }
}
