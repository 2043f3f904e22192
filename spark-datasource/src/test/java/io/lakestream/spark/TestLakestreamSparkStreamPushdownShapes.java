package io.lakestream.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.upper;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.Seeds;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Pushdown into streams ({@link LakestreamStreamPushdown}) through the plan shapes users write, through a real
 * SparkSession: a watermark, a filter over a projection with aliases and expressions, stacked filters, {@code
 * dropDuplicates} and an aggregation with a filter over them, and a projection with aliases on a primary-key table's
 * {@code upsert} output. Each shape runs from a {@code full} start (a state batch over lake and log, then a log batch)
 * and must return exactly the rows the test wrote, transformed as Spark defines the shape, while its scan returns only
 * the rows and columns the part of the plan between the scan and the first node that changes row semantics needs
 * (Spark's {@code numOutputRows} and the scan's {@code returnedValues}, counted). Filters on the event-time column of a
 * watermark, and filters over a deduplication or an aggregation, must stay in Spark: the counts show they were not
 * pushed. Seed fixed ({@code -Dlakestream.test.seed=N} overrides), named in every assertion.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamPushdownShapes {
    private static final String NS = "stream_pushdown_shapes";
    private static final long DEFAULT_SEED = 20261203L;
    private static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant EVENT_TIME_CUT = BASE.plusSeconds(3600);
    private static final Comparator<List<Object>> ROW_ORDER = Comparator.comparing(Object::toString);

    private final SparkTesting testing = SparkTesting.get();

    /** One row the test wrote to the append-only table, with the phase (0: before the stream's start) it was written in. */
    private record Event(int phase, long id, String kind, String note, int score, Instant ts) {}

    /**
     * A plan shape over the append-only table's stream.
     *
     * @param outputMode Spark's output mode of the query
     * @param scanned which written rows the scan must return (the filters that may be pushed)
     * @param columns how many columns the scan must return per row
     * @param expected the shape's output from the rows it read (written before it ran), in phase order
     * @param followsLog whether it also runs after the second phase (a log batch after its state batch)
     */
    private record Shape(
            String name,
            boolean followsLog,
            UnaryOperator<Dataset<Row>> plan,
            String outputMode,
            java.util.function.Predicate<Event> scanned,
            int columns,
            Function<List<Event>, List<List<Object>>> expected) {}

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void appendOnlyShapesPushWhatSitsBetweenTheScanAndTheFirstStatefulNode() throws Exception {
        long seed = Seeds.seed(DEFAULT_SEED);
        Random random = new Random(seed);
        testing.sql(
                "CREATE TABLE ls.%s.events (id BIGINT, kind STRING, note STRING, score INT, ts TIMESTAMP) TBLPROPERTIES ('bucket.num'='2')"
                        .formatted(NS));
        LakestreamTable table = SparkTables.load(NS, "events");
        List<Event> written = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            commit(table, random, written, 0, ids(i * 30, 30));
        }
        SparkTables.tierAll(testing.tiering(), table);
        commit(table, random, written, 0, ids(90, 30)); // a log tail after the lake: the state read is a union read

        List<Shape> shapes = shapes();
        Map<String, Path> checkpoints = new LinkedHashMap<>();
        for (Shape shape : shapes) {
            checkpoints.put(shape.name(), Files.createTempDirectory("shape-" + shape.name()));
            run(shape, seed, checkpoints);
        }
        List<Event> firstPhase = List.copyOf(written);
        // a log batch after the state batch, with ids of the first phase again (duplicates for dropDuplicates)
        List<Long> again = new ArrayList<>(ids(0, 120));
        Collections.shuffle(again, random);
        commit(table, random, written, 1, again.subList(0, 25));
        commit(table, random, written, 1, again.subList(25, 50));
        for (Shape shape : shapes) {
            if (shape.followsLog()) {
                run(shape, seed, checkpoints);
            }
        }

        for (Shape shape : shapes) {
            String name = collector(shape, seed);
            String context = "seed %s, shape %s".formatted(seed, shape.name());
            List<Event> read = shape.followsLog() ? written : firstPhase;
            assertThat(StreamCollector.batches(name))
                    .as("%s: state batch%s", context, shape.followsLog() ? ", then log batch" : "")
                    .hasSize(shape.followsLog() ? 2 : 1);
            List<Row> output = shape.outputMode().equals("complete")
                    ? StreamCollector.batches(name).getLast().rows()
                    : StreamCollector.rows(name);
            assertThat(sorted(output.stream().map(TestLakestreamSparkStreamPushdownShapes::values)))
                    .as("%s: the stream's rows equal the rows written, transformed", context)
                    .isEqualTo(sorted(shape.expected().apply(read).stream()));
            long scanned = read.stream().filter(shape.scanned()).count();
            assertThat(StreamScanWork.rows(name))
                    .as("%s: rows the scan returned (the pushed filters only)", context)
                    .isEqualTo(scanned);
            assertThat(StreamScanWork.values(name))
                    .as("%s: values the scan returned (%s columns per row)", context, shape.columns())
                    .isEqualTo(shape.columns() * scanned);
            assertThat(scanned).as("%s: the pushdown saved rows", context).isLessThan(read.size());
        }
    }

    @Test
    void upsertOutputTakesTheKeyFilterThroughAliasesAndStackedFilters() throws Exception {
        long seed = Seeds.seed(DEFAULT_SEED);
        Random random = new Random(seed);
        ChangelogStreamTables tables = new ChangelogStreamTables(testing, NS);
        tables.createPrimaryKeyTable("users");
        LakestreamTable table = tables.load("users");
        // the oracle: each key's last change, its score or empty for a delete
        Map<Long, OptionalInt> last = new TreeMap<>();
        Runnable commit = () -> {
            try (LakestreamWriter writer =
                    new LakestreamWriter(table, testing.warehouse().allocator())) {
                for (int i = 0; i < 30; i++) {
                    long id = random.nextInt(40);
                    if (random.nextInt(5) == 0) {
                        writer.delete(Map.of("id", id));
                        last.put(id, OptionalInt.empty());
                    } else {
                        int score = random.nextInt(100);
                        writer.upsert(Map.of("id", id, "name", "n" + random.nextInt(1000), "score", score));
                        last.put(id, OptionalInt.of(score));
                    }
                }
                writer.commit();
            }
        };
        commit.run();
        commit.run();
        SparkTables.tierAll(testing.tiering(), table);
        commit.run();
        commit.run();
        // every change in the log in one log batch (the per-key derivation), no state batch
        String name = "users-upsert-shaped-" + seed;
        StreamScanWork.runToEnd(
                tables.changelog("users", Map.of("stream.output", "upsert", "startup.mode", "earliest"))
                        .select(
                                col("_change_type"),
                                col("id").as("key"),
                                col("score").plus(1).as("s1"))
                        .where("key < 20")
                        .where("s1 > 31"),
                name,
                Files.createTempDirectory("shape-upsert"),
                "append");

        String context = "seed " + seed + ", upsert output";
        assertThat(StreamCollector.batches(name))
                .as("%s: one log batch", context)
                .hasSize(1);
        List<List<Object>> expected = last.entrySet().stream()
                .filter(change -> change.getKey() < 20
                        && change.getValue().isPresent()
                        && change.getValue().getAsInt() + 1 > 31)
                .map(change -> List.<Object>of(
                        "upsert", change.getKey(), change.getValue().getAsInt() + 1))
                .sorted(ROW_ORDER)
                .toList();
        assertThat(sorted(StreamCollector.rows(name).stream().map(TestLakestreamSparkStreamPushdownShapes::values)))
                .as("%s: the last change of each key, shaped", context)
                .isEqualTo(expected);
        assertThat(expected).as("%s: rows to compare", context).isNotEmpty();
        long keys = last.keySet().stream().filter(id -> id < 20).count();
        assertThat(StreamScanWork.rows(name))
                .as(
                        "%s: rows the scan returned (the key filter only: the score filter stays after the derivation)",
                        context)
                .isEqualTo(keys)
                .isLessThan(last.size());
        assertThat(StreamScanWork.values(name))
                .as("%s: values the scan returned (the 4 change columns, id and score; not name)", context)
                .isEqualTo(6 * keys);
    }

    private static List<Shape> shapes() {
        return List.of(
                // filters stacked around a watermark: the ones on other columns go below it into the scan, the one
                // on the event-time column stays above it (it would change the watermark Spark computes from the rows
                // it sees)
                new Shape(
                        "watermark",
                        false,
                        events -> events.where("kind = 'a'")
                                .withWatermark("ts", "10 minutes")
                                .where("note <> 'n0'")
                                .where(col("ts").geq(lit(Timestamp.from(EVENT_TIME_CUT))))
                                .select("id", "ts"),
                        "append",
                        event -> event.kind().equals("a") && !event.note().equals("n0"),
                        2,
                        events -> events.stream()
                                .filter(event -> event.kind().equals("a")
                                        && !event.note().equals("n0")
                                        && !event.ts().isBefore(EVENT_TIME_CUT))
                                .map(event -> List.<Object>of(event.id(), event.ts()))
                                .toList()),
                // stacked filters over a projection with aliases and expressions: the filter on the renamed column is
                // pushed, the one on an expression (upper) stays; so does everything after a nondeterministic conjunct
                // (always true here, but its values depend on the rows it sees; Spark folds a bare rand() < 2 to true);
                // the scan reads the columns the
                // expressions use
                new Shape(
                        "aliases",
                        false,
                        events -> events.select(
                                        col("id"),
                                        col("score").as("points"),
                                        upper(col("kind")).as("k"),
                                        col("score").plus(col("id")).as("total"),
                                        col("note"))
                                .where("points >= 50 AND rand(7) * 2 < 3 AND note <> 'n0'")
                                .where("k = 'A'")
                                .drop("note"),
                        "append",
                        event -> event.score() >= 50,
                        4,
                        events -> events.stream()
                                .filter(event -> event.score() >= 50
                                        && event.kind().equals("a")
                                        && !event.note().equals("n0"))
                                .map(event ->
                                        List.<Object>of(event.id(), event.score(), "A", event.score() + event.id()))
                                .toList()),
                // the filter below dropDuplicates is pushed; the one above it stays (pushed, it would keep a later
                // duplicate that passes instead of dropping the first one that does not)
                new Shape(
                        "dropDuplicates",
                        true,
                        events -> events.where("kind = 'a'")
                                .dropDuplicates("id")
                                .where("score >= 50")
                                .select("id", "score"),
                        "append",
                        event -> event.kind().equals("a"),
                        2,
                        events -> {
                            Set<Long> seen = new HashSet<>();
                            List<List<Object>> rows = new ArrayList<>();
                            for (Event event : events) {
                                if (event.kind().equals("a") && seen.add(event.id()) && event.score() >= 50) {
                                    rows.add(List.of(event.id(), event.score()));
                                }
                            }
                            return rows;
                        }),
                // an aggregation with a filter below it (pushed) and one over its result (stays)
                new Shape(
                        "aggregation",
                        false,
                        events -> events.where("kind = 'a'")
                                .groupBy("note")
                                .agg(sum("score").as("total"), count(lit(1)).as("n"))
                                .where("total > 150"),
                        "complete",
                        event -> event.kind().equals("a"),
                        2,
                        events -> {
                            Map<String, long[]> groups = new TreeMap<>();
                            events.stream()
                                    .filter(event -> event.kind().equals("a"))
                                    .forEach(event -> {
                                        long[] group = groups.computeIfAbsent(event.note(), note -> new long[2]);
                                        group[0] += event.score();
                                        group[1]++;
                                    });
                            return groups.entrySet().stream()
                                    .filter(group -> group.getValue()[0] > 150)
                                    .map(group ->
                                            List.<Object>of(group.getKey(), group.getValue()[0], group.getValue()[1]))
                                    .toList();
                        }));
    }

    private void run(Shape shape, long seed, Map<String, Path> checkpoints) throws Exception {
        StreamScanWork.runToEnd(
                shape.plan().apply(stream()),
                collector(shape, seed),
                checkpoints.get(shape.name()),
                shape.outputMode());
    }

    private Dataset<Row> stream() {
        return testing.spark().readStream().table("ls.%s.events".formatted(NS));
    }

    private static String collector(Shape shape, long seed) {
        return "shapes-" + shape.name() + "-" + seed;
    }

    private void commit(LakestreamTable table, Random random, List<Event> written, int phase, List<Long> ids) {
        try (LakestreamWriter writer =
                new LakestreamWriter(table, testing.warehouse().allocator())) {
            for (long id : ids) {
                Event event = new Event(
                        phase,
                        id,
                        random.nextBoolean() ? "a" : "b",
                        "n" + random.nextInt(4),
                        random.nextInt(100),
                        BASE.plusSeconds(60L * random.nextInt(120)));
                writer.append(Map.of(
                        "id", event.id(),
                        "kind", event.kind(),
                        "note", event.note(),
                        "score", event.score(),
                        "ts", event.ts()));
                written.add(event);
            }
            writer.commit();
        }
    }

    private static List<Long> ids(long from, int count) {
        List<Long> ids = new ArrayList<>();
        for (long id = from; id < from + count; id++) {
            ids.add(id);
        }
        return ids;
    }

    /** A row's values, timestamps as instants (as the test wrote them). */
    private static List<Object> values(Row row) {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < row.length(); i++) {
            Object value = row.get(i);
            values.add(value instanceof Timestamp timestamp ? timestamp.toInstant() : value);
        }
        return values;
    }

    private static List<List<Object>> sorted(java.util.stream.Stream<List<Object>> rows) {
        return rows.sorted(ROW_ORDER).toList();
    }
}
