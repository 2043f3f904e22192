package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.Seeds;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import scala.collection.immutable.Seq;

/**
 * Projection and filter pushdown into streams ({@link LakestreamStreamPushdown}), through a real SparkSession: a
 * stream with {@code select} and {@code where} returns exactly what the same stream without them returns with the
 * selection applied afterwards, across the {@code full} start's seam (the lake and log state, then the log), while
 * its scan returns fewer rows and values (counted by the scan's own metrics: Spark's {@code numOutputRows} and
 * {@code returnedValues}, rows times columns handed to Spark). Append-only rows and the {@code log}, {@code upsert}
 * and {@code changelog} outputs of a primary-key table; on the outputs per key only the key filter is pushed.
 * Seeds fixed ({@code -Dlakestream.test.seed=N} overrides), named in every assertion.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamPushdown {
    private static final String NS = "stream_pushdown";
    private static final long DEFAULT_SEED = 20261202L;

    private final SparkTesting testing = SparkTesting.get();
    private final ChangelogStreamTables tables = new ChangelogStreamTables(testing, NS);

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void appendOnlyStreamReadsOnlyTheSelectedColumnsAndRows() throws Exception {
        long seed = Seeds.seed(DEFAULT_SEED);
        Random random = new Random(seed);
        List<Map<String, Object>> written = new ArrayList<>();
        Runnable commit = eventCommits("events", random, written);
        for (int i = 0; i < 3; i++) {
            commit.run();
        }
        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "events"));
        commit.run(); // a log tail after the lake: the state read is a union read
        Path all = Files.createTempDirectory("pushdown-all");
        Path pushed = Files.createTempDirectory("pushdown-pushed");
        String context = "seed " + seed;

        // the full start (state), then, on the same checkpoints, the log after it
        run(testing.spark().readStream().table("ls.%s.events".formatted(NS)), "events-all-" + seed, all);
        run(
                selected(testing.spark().readStream().table("ls.%s.events".formatted(NS))),
                "events-pushed-" + seed,
                pushed);
        commit.run();
        commit.run();
        run(testing.spark().readStream().table("ls.%s.events".formatted(NS)), "events-all-" + seed, all);
        run(
                selected(testing.spark().readStream().table("ls.%s.events".formatted(NS))),
                "events-pushed-" + seed,
                pushed);

        List<List<Object>> expected = selected(written);
        List<List<Object>> unpushed = StreamCollector.rows("events-all-" + seed).stream()
                .filter(row -> "a".equals(row.getAs("kind")) && row.<Integer>getAs("score") >= 50)
                .map(row -> List.<Object>of(row.getAs("id"), row.getAs("score")))
                .sorted(ROW_ORDER)
                .toList();
        List<List<Object>> rows = selectedRows("events-pushed-" + seed);
        assertThat(unpushed)
                .as("%s: the unpushed stream, selected afterwards, equals the rows written", context)
                .isEqualTo(expected);
        assertThat(rows)
                .as("%s: the pushed stream equals the unpushed one", context)
                .isEqualTo(unpushed);
        assertThat(StreamCollector.batches("events-pushed-" + seed))
                .as("%s: state batch, then log batch", context)
                .hasSize(2);

        long[] allWork =
                new long[] {StreamScanWork.rows("events-all-" + seed), StreamScanWork.values("events-all-" + seed)};
        long[] pushedWork =
                new long[] {StreamScanWork.rows("events-pushed-" + seed), StreamScanWork.values("events-pushed-" + seed)
                };
        assertThat(allWork[0])
                .as("%s: rows the unpushed scan returned", context)
                .isEqualTo(written.size());
        assertThat(allWork[1])
                .as("%s: values the unpushed scan returned (4 columns)", context)
                .isEqualTo(4L * written.size());
        assertThat(pushedWork[0])
                .as("%s: rows the pushed scan returned (only the kept ones)", context)
                .isEqualTo(expected.size());
        assertThat(pushedWork[1])
                .as("%s: values the pushed scan returned (id and score only)", context)
                .isEqualTo(2L * expected.size());
    }

    /**
     * On a Spark that lacks an internal the rule needs ({@link StreamPlanInternals}), streams install no rule: the
     * same selected stream as above, in a session no stream has installed the rule in, returns the same rows while
     * its scan returns every row and column (Spark selects), across the {@code full} start's seam.
     */
    @Test
    void withoutTheRuleAStreamReadsEveryRowAndColumnAndReturnsTheSameRows() throws Exception {
        long seed = Seeds.seed(DEFAULT_SEED);
        Random random = new Random(seed);
        List<Map<String, Object>> written = new ArrayList<>();
        Runnable commit = eventCommits("unpushed", random, written);
        commit.run();
        commit.run();
        SparkTables.tierAll(testing.tiering(), SparkTables.load(NS, "unpushed"));
        commit.run();
        SparkSession session = testing.spark().newSession();
        Path checkpoint = Files.createTempDirectory("pushdown-off");
        String name = "unpushed-" + seed;
        String stream = "ls.%s.unpushed".formatted(NS);
        try (AutoCloseable withoutInternals = LakestreamStreamPushdown.lookUpWith(() -> {
            // as on a Spark whose session API lacks what the rule calls
            StreamPlanInternals.method(SparkSession.class, "experimentalMethods", Seq.class);
            throw new AssertionError("unreachable: the method does not exist");
        })) {
            run(selected(session.readStream().table(stream)), name, checkpoint);
            commit.run();
            run(selected(session.readStream().table(stream)), name, checkpoint);
        }

        String context = "seed " + seed;
        assertThat(selectedRows(name))
                .as("%s: the stream without pushdown equals the rows written, selected", context)
                .isEqualTo(selected(written));
        assertThat(StreamCollector.batches(name))
                .as("%s: state batch, then log batch", context)
                .hasSize(2);
        assertThat(StreamScanWork.rows(name))
                .as("%s: rows the scan returned (every row written)", context)
                .isEqualTo(written.size());
        assertThat(StreamScanWork.values(name))
                .as("%s: values the scan returned (4 columns)", context)
                .isEqualTo(4L * written.size());
    }

    @Test
    void primaryKeyOutputsTakeTheFiltersThatAreExactOnThem() throws Exception {
        long seed = Seeds.seed(DEFAULT_SEED);
        Random random = new Random(seed);
        tables.createPrimaryKeyTable("users");
        LakestreamTable table = tables.load("users");
        Runnable commit = () -> {
            try (LakestreamWriter writer =
                    new LakestreamWriter(table, testing.warehouse().allocator())) {
                for (int i = 0; i < 30; i++) {
                    long id = random.nextInt(40);
                    if (random.nextInt(5) == 0) {
                        writer.delete(Map.of("id", id));
                    } else {
                        writer.upsert(
                                Map.of("id", id, "name", "n" + random.nextInt(1000), "score", random.nextInt(100)));
                    }
                }
                writer.commit();
            }
        };
        for (int i = 0; i < 3; i++) {
            commit.run();
        }
        SparkTables.tierAll(testing.tiering(), table);
        commit.run();
        for (String output : List.of("log", "upsert", "changelog")) {
            String all = "users-" + output + "-all-" + seed;
            String pushed = "users-" + output + "-pushed-" + seed;
            Path allCheckpoint = Files.createTempDirectory("pushdown-" + output);
            Path pushedCheckpoint = Files.createTempDirectory("pushdown-pushed-" + output);
            Map<String, String> options = Map.of("stream.output", output);
            run(tables.changelog("users", options), all, allCheckpoint);
            run(keySelected(tables.changelog("users", options)), pushed, pushedCheckpoint);
            commit.run();
            commit.run();
            run(tables.changelog("users", options), all, allCheckpoint);
            run(keySelected(tables.changelog("users", options)), pushed, pushedCheckpoint);
            // the next output streams from here: its full start is the state after these commits
            String context = "seed " + seed + ", stream.output " + output;

            Function<Row, List<Object>> selection =
                    row -> java.util.Arrays.asList(row.getAs("_change_type"), row.getAs("id"), row.getAs("score"));
            List<List<Object>> unpushed = StreamCollector.rows(all).stream()
                    .filter(row -> row.<Long>getAs("id") < 20
                            && row.getAs("score") != null
                            && row.<Integer>getAs("score") > 30)
                    .map(selection)
                    .sorted(ROW_ORDER)
                    .toList();
            List<List<Object>> rows = StreamCollector.rows(pushed).stream()
                    .map(selection)
                    .sorted(ROW_ORDER)
                    .toList();
            assertThat(rows)
                    .as("%s: the pushed stream equals the unpushed one", context)
                    .isEqualTo(unpushed);
            assertThat(unpushed).as("%s: rows to compare", context).isNotEmpty();
            assertThat(StreamScanWork.rows(pushed))
                    .as("%s: rows the pushed scan returned (the key filter is pushed)", context)
                    .isLessThan(StreamScanWork.rows(all));
            long keptKeys = StreamCollector.rows(all).stream()
                    .filter(row -> row.<Long>getAs("id") < 20)
                    .count();
            if (output.equals("log")) {
                // every row of the log is a change of its own: both filters are exact on it
                assertThat(StreamScanWork.rows(pushed))
                        .as("%s: rows the pushed scan returned", context)
                        .isEqualTo(unpushed.size());
            } else {
                // per key, only the key filter may go first: the score filter stays after the derivation
                assertThat(StreamScanWork.rows(pushed))
                        .as("%s: rows the pushed scan returned", context)
                        .isEqualTo(keptKeys);
            }
        }
    }

    private static final java.util.Comparator<List<Object>> ROW_ORDER =
            (a, b) -> a.toString().compareTo(b.toString());

    /**
     * Creates the append-only table {@code name} {@code (id, kind, note, score)} of 2 buckets; the commit returned
     * writes 40 random rows into it each time it runs, and {@code written} gets them.
     */
    private Runnable eventCommits(String name, Random random, List<Map<String, Object>> written) {
        testing.sql(
                "CREATE TABLE ls.%s.%s (id BIGINT, kind STRING, note STRING, score INT) TBLPROPERTIES ('bucket.num'='2')"
                        .formatted(NS, name));
        LakestreamTable table = SparkTables.load(NS, name);
        long[] nextId = {0};
        return () -> {
            try (LakestreamWriter writer =
                    new LakestreamWriter(table, testing.warehouse().allocator())) {
                for (int i = 0; i < 40; i++) {
                    Map<String, Object> row = new HashMap<>();
                    row.put("id", nextId[0]++);
                    row.put("kind", random.nextBoolean() ? "a" : "b");
                    row.put("note", "note-" + random.nextInt(1000));
                    row.put("score", random.nextInt(100));
                    writer.append(row);
                    written.add(row);
                }
                writer.commit();
            }
        };
    }

    /** The rows written that {@link #selected(Dataset)} keeps, as it returns them: {@code (id, score)}. */
    private static List<List<Object>> selected(List<Map<String, Object>> written) {
        Predicate<Map<String, Object>> kept = row -> "a".equals(row.get("kind")) && (int) row.get("score") >= 50;
        return written.stream()
                .filter(kept)
                .map(row -> List.<Object>of(row.get("id"), row.get("score")))
                .sorted(ROW_ORDER)
                .toList();
    }

    /** The rows {@code (id, score)} a stream of {@link #selected(Dataset)} delivered to collector {@code name}. */
    private static List<List<Object>> selectedRows(String name) {
        return StreamCollector.rows(name).stream()
                .map(row -> List.<Object>of(row.get(0), row.get(1)))
                .sorted(ROW_ORDER)
                .toList();
    }

    private static Dataset<Row> selected(Dataset<Row> events) {
        return events.where("kind = 'a' AND score >= 50").select("id", "score");
    }

    private static Dataset<Row> keySelected(Dataset<Row> changes) {
        // a filter on a change column stays in Spark (the table schema has no such column)
        return changes.where("id < 20 AND score > 30 AND _change_type <> 'none'")
                .select("_change_type", "id", "score");
    }

    private static void run(Dataset<Row> stream, String name, Path checkpoint) throws Exception {
        StreamScanWork.runToEnd(stream, name, checkpoint, "append");
    }
}
