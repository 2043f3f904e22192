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
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Stream plans over nested columns that {@code TestLakestreamSparkStreamNestedPruning} does not cover, in the
 * {@code log}, {@code upsert} and {@code changelog} outputs of a primary-key table's {@code $changes} (a {@code full}
 * start over lake rows and a log tail, then a batch with an update and a delete): fields of a struct inside a map's
 * values (one added after rows were written, null in them), and watermarks next to a struct that the projection
 * narrows (the event time a field of that struct; a top-level event time with the watermark between the projection
 * and the scan, where the narrowed struct passes through the watermark). Every row equals what the test wrote, and
 * every batch's read schema holds the struct narrowed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamNestedShapes {
    private static final String NS = "stream_shapes";
    private static final List<String> OUTPUTS = List.of("log", "upsert", "changelog");
    private static final Comparator<List<Object>> ROW_ORDER = Comparator.comparing(Object::toString);
    private static final Map<String, List<StructType>> READ_SCHEMAS = new ConcurrentHashMap<>();

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /**
     * {@code m MAP<STRING, STRUCT<a, b>>} and {@code r STRUCT<a, b>}; the stream selects {@code m['k'].a}, {@code
     * m['k'].f} (added to the map's value struct after the state's rows were written) and {@code r.b}.
     */
    @Test
    void structInsideAMapValue() throws Exception {
        String table = "ls.%s.mv".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, m MAP<STRING, STRUCT<a: BIGINT, b: STRING>>,".formatted(table)
                + " r STRUCT<a: BIGINT, b: STRING>) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')");
        testing.sql("INSERT INTO %s VALUES %s, %s, %s".formatted(table, oldRow(1, 1), oldRow(2, 2), oldRow(3, 3)));
        testing.tiering().tier(SparkTables.load(NS, "mv"));
        // the tail: key 1 gets row 11's values, 4 is new, 3 is deleted; then m's values get a field f
        testing.sql("INSERT INTO %s VALUES %s, %s".formatted(table, oldRow(1, 11), oldRow(4, 4)));
        testing.sql("DELETE FROM %s WHERE id = 3".formatted(table));
        testing.sql("ALTER TABLE %s ADD COLUMN m.value.f STRING".formatted(table));
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, newRow(5, 5)));

        Function<String, Dataset<Row>> stream = output -> testing.spark()
                .readStream()
                .option("stream.output", output)
                .table("ls.%s.`mv$changes`".formatted(NS))
                .selectExpr("_change_type", "id", "m['k'].a", "m['k'].f", "r.b");
        Map<String, Path> checkpoints = new ConcurrentHashMap<>();
        for (String output : OUTPUTS) {
            checkpoints.put(output, Files.createTempDirectory("stream-shapes-mv-" + output));
            run(stream.apply(output), "mv-" + output, checkpoints.get(output));
        }
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, newRow(1, 12)));
        testing.sql("DELETE FROM %s WHERE id = 2".formatted(table));
        for (String output : OUTPUTS) {
            run(stream.apply(output), "mv-" + output, checkpoints.get(output));
        }

        for (String output : OUTPUTS) {
            String stateType = output.equals("changelog") ? "insert" : "upsert";
            List<List<Object>> expected = new ArrayList<>(List.of(
                    row(stateType, 1L, 11L, null, "rb11"),
                    // row 2's map holds a null struct under 'k'
                    row(stateType, 2L, null, null, "rb2"),
                    row(stateType, 4L, 4L, null, "rb4"),
                    row(stateType, 5L, 5L, "f5", "rb5")));
            if (output.equals("changelog")) {
                expected.add(row("update_before", 1L, 11L, null, "rb11"));
                expected.add(row("update_after", 1L, 12L, "f12", "rb12"));
                expected.add(row("delete", 2L, null, null, "rb2"));
            } else {
                expected.add(row("upsert", 1L, 12L, "f12", "rb12"));
                // a delete of the log carries only its key
                expected.add(row("delete", 2L, null, null, null));
            }
            assertThat(collected("mv-" + output))
                    .as("%s: the state batch, then the log batch", output)
                    .isEqualTo(sorted(expected));
            assertThat(READ_SCHEMAS.get("mv-" + output))
                    .as("%s: each batch's read schema", output)
                    .hasSize(2)
                    .allSatisfy(
                            schema -> assertThat(schema.apply("r").dataType().simpleString())
                                    .isEqualTo("struct<b:string>"));
        }
    }

    /** Row {@code id} with the values of {@code v}, before {@code m}'s values have {@code f}; row 2's is null. */
    private static String oldRow(int id, int v) {
        String value = id == 2
                ? "CAST(NULL AS STRUCT<a: BIGINT, b: STRING>)"
                : "named_struct('a', %sL, 'b', 'b%s')".formatted(v, v);
        return "(%sL, map('k', %s), named_struct('a', %sL, 'b', 'rb%s'))".formatted(id, value, v, v);
    }

    /** Row {@code id} with the values of {@code v}, after {@code m}'s values got {@code f}. */
    private static String newRow(int id, int v) {
        return "(%sL, map('k', named_struct('a', %sL, 'b', 'b%s', 'f', 'f%s')), named_struct('a', %sL, 'b', 'rb%s'))"
                .formatted(id, v, v, v, v, v);
    }

    /**
     * Watermarks next to a struct that the projection narrows, in two shapes: the event time is a field of the
     * struct ({@code r.ts AS ts}, the watermark over the narrowing projection), and the event time is a top-level
     * column with the watermark under a projection of {@code r}'s fields (Spark's column pruning puts a projection
     * of the used columns under the watermark).
     */
    @Test
    void watermarksOverAndUnderAProjectionThatNarrowsAStruct() throws Exception {
        String table = "ls.%s.wm".formatted(NS);
        testing.sql("CREATE TABLE %s (id BIGINT, ts TIMESTAMP,".formatted(table)
                + " r STRUCT<ts: TIMESTAMP, a: BIGINT, b: STRING, c: STRUCT<d: DOUBLE, e: STRING>>)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='1')");
        testing.sql("INSERT INTO %s VALUES %s, %s, %s".formatted(table, wmRow(1, 1), wmRow(2, 2), wmRow(3, 3)));
        testing.tiering().tier(SparkTables.load(NS, "wm"));
        testing.sql("INSERT INTO %s VALUES %s, %s".formatted(table, wmRow(1, 11), wmRow(4, 4)));
        testing.sql("DELETE FROM %s WHERE id = 3".formatted(table));

        Map<String, Function<String, Dataset<Row>>> shapes = Map.of(
                "wm-field",
                output -> changes(output, "wm")
                        .selectExpr("_change_type", "id", "r.ts AS ts", "r.a", "r.c.e")
                        .withWatermark("ts", "1 hour")
                        .selectExpr("_change_type", "id", "CAST(ts AS STRING)", "a", "e"),
                "wm-top",
                output -> changes(output, "wm")
                        .withWatermark("ts", "1 hour")
                        .selectExpr("_change_type", "id", "CAST(ts AS STRING)", "r.a", "r.c.e"));
        Map<String, Path> checkpoints = new ConcurrentHashMap<>();
        for (String shape : shapes.keySet()) {
            for (String output : OUTPUTS) {
                String name = shape + "-" + output;
                checkpoints.put(name, Files.createTempDirectory("stream-shapes-" + name));
                run(shapes.get(shape).apply(output), name, checkpoints.get(name));
            }
        }
        testing.sql("INSERT INTO %s VALUES %s".formatted(table, wmRow(1, 12)));
        testing.sql("DELETE FROM %s WHERE id = 2".formatted(table));
        for (String shape : shapes.keySet()) {
            for (String output : OUTPUTS) {
                String name = shape + "-" + output;
                run(shapes.get(shape).apply(output), name, checkpoints.get(name));
            }
        }

        for (String shape : shapes.keySet()) {
            for (String output : OUTPUTS) {
                String name = shape + "-" + output;
                String stateType = output.equals("changelog") ? "insert" : "upsert";
                List<List<Object>> expected = new ArrayList<>(List.of(
                        wmExpected(stateType, 1, 11), wmExpected(stateType, 2, 2), wmExpected(stateType, 4, 4)));
                if (output.equals("changelog")) {
                    expected.add(wmExpected("update_before", 1, 11));
                    expected.add(wmExpected("update_after", 1, 12));
                    expected.add(wmExpected("delete", 2, 2));
                } else {
                    expected.add(wmExpected("upsert", 1, 12));
                    expected.add(row("delete", 2L, null, null, null));
                }
                assertThat(collected(name))
                        .as("%s: the state batch, then the log batch", name)
                        .isEqualTo(sorted(expected));
                String narrowed = shape.equals("wm-field")
                        ? "struct<ts:timestamp,a:bigint,c:struct<e:string>>"
                        : "struct<a:bigint,c:struct<e:string>>";
                assertThat(READ_SCHEMAS.get(name))
                        .as("%s: each batch's read schema", name)
                        .hasSize(2)
                        .allSatisfy(schema -> assertThat(
                                        schema.apply("r").dataType().simpleString())
                                .isEqualTo(narrowed));
            }
        }
    }

    private Dataset<Row> changes(String output, String table) {
        return testing.spark()
                .readStream()
                .option("stream.output", output)
                .table("ls.%s.`%s$changes`".formatted(NS, table));
    }

    /** Row {@code id} with the values of {@code v} ({@code ts} and {@code r.ts} alike): row 2's {@code r.c} is null. */
    private static String wmRow(int id, int v) {
        String c = id == 2
                ? "CAST(NULL AS STRUCT<d: DOUBLE, e: STRING>)"
                : "named_struct('d', %s.5D, 'e', 'e%s')".formatted(v, v);
        String ts = "TIMESTAMP '2026-12-01 10:%02d:00'".formatted(v);
        return "(%sL, %s, named_struct('ts', %s, 'a', %sL, 'b', 'b%s', 'c', %s))".formatted(id, ts, ts, v, v, c);
    }

    private static List<Object> wmExpected(String type, int id, int v) {
        return row(type, (long) id, "2026-12-01 10:%02d:00".formatted(v), (long) v, id == 2 ? null : "e" + v);
    }

    /** Runs the stream with AvailableNow to its end into collector {@code name}, keeping each batch's read schema. */
    private void run(Dataset<Row> stream, String name, Path checkpoint) throws Exception {
        READ_SCHEMAS.computeIfAbsent(name, ignored -> new CopyOnWriteArrayList<>());
        StreamCollector.onScans(
                name,
                testing.spark(),
                scan -> READ_SCHEMAS.get(name).add(scan.scan().readSchema()));
        StreamCollector.runToEnd(stream, name, checkpoint);
    }

    private static List<List<Object>> collected(String name) {
        return sorted(StreamCollector.rowsAsLists(name));
    }

    private static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> copy = new ArrayList<>(rows);
        copy.sort(ROW_ORDER);
        return copy;
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }
}
