package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Streams that keep running across an {@code ALTER TABLE}. A stream read keeps the schema it started with: an added
 * column is not shown and a renamed column keeps its data under the name the stream started with, while a dropped or
 * widened column, or one made nullable, fails the query with {@code STREAMING_SCHEMA_MISMATCH}, after which the query restarted on its
 * checkpoint goes on with the new schema, every row delivered exactly once (the oracle: the rows the test wrote). A
 * streaming write keeps writing with the schema it started with, and its rows read correctly with the new schema;
 * restarted, it is checked against the new schema.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStreamSchemaChange {
    private static final String NS = "ssc";
    private static final Trigger FAST = Trigger.ProcessingTime("50 milliseconds");
    private static final Comparator<List<Object>> BY_ID = Comparator.comparing(row -> (Long) row.getFirst());

    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    /** The kinds of change, each with the statement and a row written after it (id 4, then id 5 after a restart). */
    private enum Change {
        ADD("ADD COLUMNS (n STRING)", "(%s, %s, 'b%s', 'c%s', 'n%s')"),
        RENAME("RENAME COLUMN b TO name", "(%s, %s, 'b%s', 'c%s')"),
        DROP("DROP COLUMN c", "(%s, %s, 'b%s')"),
        WIDEN("ALTER COLUMN a TYPE BIGINT", "(%s, %s, 'b%s', 'c%s')"),
        // on a table created with a NOT NULL; the rows written after it have a NULL there
        NULLABLE("ALTER COLUMN a DROP NOT NULL", "(%1$s, NULL, 'b%1$s', 'c%1$s')");

        private final String statement;
        private final String newRow;

        Change(String statement, String newRow) {
            this.statement = statement;
            this.newRow = newRow;
        }

        /** Whether a stream that started before the change can go on reading without losing or inventing data. */
        boolean lossless() {
            return this == ADD || this == RENAME;
        }

        String newRow(long id) {
            return newRow.formatted(id, id * 10, id, id, id);
        }

        /** Row {@code id} as the table's columns read it after the change (every row has the values newRow writes). */
        List<Object> afterChange(long id) {
            return switch (this) {
                case ADD -> row(id, (int) id * 10, "b" + id, "c" + id, id >= 4 ? "n" + id : null);
                case RENAME -> row(id, (int) id * 10, "b" + id, "c" + id);
                case DROP -> row(id, (int) id * 10, "b" + id);
                case WIDEN -> row(id, id * 10, "b" + id, "c" + id);
                case NULLABLE -> row(id, id >= 4 ? null : (int) id * 10, "b" + id, "c" + id);
            };
        }
    }

    /** Row {@code id} as the columns the table was created with read it. */
    private static List<Object> beforeChange(long id) {
        return row(id, (int) id * 10, "b" + id, "c" + id);
    }

    @Test
    void appendOnlyStreamAcrossAnAddedColumn() throws Exception {
        streamAcross(Change.ADD, false);
    }

    @Test
    void appendOnlyStreamAcrossARenamedColumn() throws Exception {
        streamAcross(Change.RENAME, false);
    }

    @Test
    void appendOnlyStreamAcrossADroppedColumn() throws Exception {
        streamAcross(Change.DROP, false);
    }

    @Test
    void appendOnlyStreamAcrossAWidenedColumn() throws Exception {
        streamAcross(Change.WIDEN, false);
    }

    @Test
    void appendOnlyStreamAcrossAColumnMadeNullable() throws Exception {
        streamAcross(Change.NULLABLE, false);
    }

    @Test
    void changelogStreamAcrossAnAddedColumn() throws Exception {
        streamAcross(Change.ADD, true);
    }

    @Test
    void changelogStreamAcrossARenamedColumn() throws Exception {
        streamAcross(Change.RENAME, true);
    }

    @Test
    void changelogStreamAcrossADroppedColumn() throws Exception {
        streamAcross(Change.DROP, true);
    }

    @Test
    void changelogStreamAcrossAWidenedColumn() throws Exception {
        streamAcross(Change.WIDEN, true);
    }

    @Test
    void changelogStreamAcrossAColumnMadeNullable() throws Exception {
        streamAcross(Change.NULLABLE, true);
    }

    /**
     * Rows 1 and 2 before the stream starts, row 3 while it runs, then the change and row 4 (tiered on the primary-key
     * table, so the lake holds rows written with the new schema too); the running query either goes on or fails. Then
     * row 5, and the query restarted on its checkpoint (a new stream, with the new schema) runs to the end.
     */
    private void streamAcross(Change change, boolean primaryKey) throws Exception {
        String table = (primaryKey ? "pk_" : "ao_") + change.name().toLowerCase(java.util.Locale.ROOT);
        String name = "ssc-" + table;
        testing.sql(
                "CREATE TABLE ls.ssc.%s (id BIGINT NOT NULL, a INT%s, b STRING, c STRING) TBLPROPERTIES (%s, 'bucket.num'='2')"
                        .formatted(
                                table,
                                change == Change.NULLABLE ? " NOT NULL" : "",
                                primaryKey ? "'primary-key'='id'" : "'bucket.key'='id'"));
        testing.sql("INSERT INTO ls.ssc.%s VALUES %s, %s".formatted(table, oldRow(1), oldRow(2)));
        Path checkpoint = Files.createTempDirectory("lakestream-stream-schema-change");

        StreamingQuery running = StreamCollector.start(stream(table, primaryKey), name, checkpoint, FAST);
        Throwable failure = null;
        try {
            running.processAllAvailable();
            testing.sql("INSERT INTO ls.ssc.%s VALUES %s".formatted(table, oldRow(3)));
            running.processAllAvailable();
            testing.sql("ALTER TABLE ls.ssc.%s %s".formatted(table, change.statement));
            testing.sql("INSERT INTO ls.ssc.%s VALUES %s".formatted(table, change.newRow(4)));
            if (primaryKey) {
                testing.tiering().tier(SparkTables.load(NS, table));
            }
            running.processAllAvailable();
        } catch (Exception e) {
            // Spark throws its StreamingQueryException without declaring it
            failure = e;
        } finally {
            running.stop();
        }
        List<List<Object>> beforeRestart = userColumns(StreamCollector.rowsAsLists(name), primaryKey);
        if (change.lossless()) {
            assertThat(failure).as("the running stream goes on").isNull();
            // the stream's own columns: no added column, a renamed one under its old name
            assertThat(beforeRestart)
                    .containsExactly(beforeChange(1), beforeChange(2), beforeChange(3), beforeChange(4));
        } else {
            assertThat(failure)
                    .as("the running stream fails at the change")
                    .isNotNull()
                    .hasStackTraceContaining("STREAMING_SCHEMA_MISMATCH")
                    .hasStackTraceContaining("Restart the query");
            assertThat(beforeRestart).containsExactly(beforeChange(1), beforeChange(2), beforeChange(3));
        }

        testing.sql("INSERT INTO ls.ssc.%s VALUES %s".formatted(table, change.newRow(5)));
        int delivered = beforeRestart.size();
        StreamCollector.runToEnd(stream(table, primaryKey), name, checkpoint);
        List<List<Object>> afterRestart = userColumns(StreamCollector.rowsAsLists(name), primaryKey)
                .subList(delivered, StreamCollector.rows(name).size());
        List<List<Object>> expected = new ArrayList<>();
        for (long id = delivered + 1; id <= 5; id++) {
            expected.add(change.afterChange(id));
        }
        // exactly once: what the first query delivered and what the restarted one delivered are rows 1 to 5
        assertThat(afterRestart).as("after the restart, with the new schema").isEqualTo(expected);
    }

    /**
     * The {@code changelog} output reads each changed key's before image from the table's state at the batch's start:
     * after a rename and an added column, and tiering, that state is in lake files written with the new schema, read
     * with the columns the stream started with (by field id, under the old names).
     */
    @Test
    void changelogOutputReadsBeforeImagesWrittenWithTheNewSchema() throws Exception {
        testing.sql("CREATE TABLE ls.ssc.cl (id BIGINT NOT NULL, a INT, b STRING, c STRING)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.ssc.cl VALUES %s, %s".formatted(oldRow(1), oldRow(2)));
        Path checkpoint = Files.createTempDirectory("lakestream-stream-schema-change-changelog");
        Dataset<Row> changelog = testing.spark()
                .readStream()
                .option("stream.output", "changelog")
                .table("ls.ssc.`cl$changes`");
        StreamingQuery running = StreamCollector.start(changelog, "ssc-cl", checkpoint, FAST);
        try {
            running.processAllAvailable();
            testing.sql("ALTER TABLE ls.ssc.cl RENAME COLUMN b TO name");
            testing.sql("ALTER TABLE ls.ssc.cl ADD COLUMNS (n STRING)");
            testing.sql("INSERT INTO ls.ssc.cl VALUES (3, 30, 'b3', 'c3', 'n3')");
            testing.tiering().tier(SparkTables.load(NS, "cl"));
            testing.sql("UPDATE ls.ssc.cl SET name = 'x1', n = 'n1' WHERE id = 1");
            running.processAllAvailable();
        } finally {
            running.stop();
        }
        List<List<Object>> rows = new ArrayList<>();
        for (List<Object> row : StreamCollector.rowsAsLists("ssc-cl")) {
            List<Object> kept = new ArrayList<>(List.of(row.getFirst()));
            kept.addAll(row.subList(4, row.size()));
            rows.add(kept);
        }
        assertThat(rows)
                .containsExactlyInAnyOrder(
                        row("insert", 1L, 10, "b1", "c1"),
                        row("insert", 2L, 20, "b2", "c2"),
                        row("insert", 3L, 30, "b3", "c3"),
                        row("update_before", 1L, 10, "b1", "c1"),
                        row("update_after", 1L, 10, "x1", "c1"));
    }

    /**
     * A streaming write into a table keeps running across each kind of change: the rows it writes after the change
     * (with the schema it started with) read correctly with the new schema. Restarted on its checkpoint, the write is
     * checked against the new schema: its input no longer matches, so it fails before writing anything.
     */
    @Test
    void streamingWriteAcrossEveryKindOfChange() throws Exception {
        // not NULLABLE: a write from the nullable source column into a NOT NULL one does not start
        for (Change change : List.of(Change.ADD, Change.RENAME, Change.DROP, Change.WIDEN)) {
            String source = "src_" + change.name().toLowerCase(java.util.Locale.ROOT);
            String target = "dst_" + change.name().toLowerCase(java.util.Locale.ROOT);
            testing.sql("CREATE TABLE ls.ssc.%s (id BIGINT NOT NULL, a INT, b STRING, c STRING)".formatted(source)
                    + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')");
            testing.sql("CREATE TABLE ls.ssc.%s (id BIGINT NOT NULL, a INT, b STRING, c STRING)".formatted(target)
                    + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
            testing.sql("INSERT INTO ls.ssc.%s VALUES %s, %s".formatted(source, oldRow(1), oldRow(2)));
            Path checkpoint = Files.createTempDirectory("lakestream-sink-schema-change");
            StreamingQuery write = sink(source, target, checkpoint);
            try {
                write.processAllAvailable();
                testing.sql("ALTER TABLE ls.ssc.%s %s".formatted(target, change.statement));
                testing.sql("INSERT INTO ls.ssc.%s VALUES %s, %s".formatted(source, oldRow(3), oldRow(4)));
                write.processAllAvailable();
            } finally {
                write.stop();
            }
            List<List<Object>> expected = new ArrayList<>();
            for (long id = 1; id <= 4; id++) {
                List<Object> row = new ArrayList<>(change.afterChange(id));
                if (change == Change.ADD) {
                    row.set(4, null);
                }
                expected.add(row);
            }
            assertThat(rows(testing.sql("SELECT * FROM ls.ssc.%s ORDER BY id".formatted(target))))
                    .as(change.name())
                    .isEqualTo(expected);
            testing.tiering().tier(SparkTables.load(NS, target));
            assertThat(rows(testing.sql("SELECT * FROM ls.ssc.%s ORDER BY id".formatted(target))))
                    .as(change.name() + ", tiered")
                    .isEqualTo(expected);

            testing.sql("INSERT INTO ls.ssc.%s VALUES %s".formatted(source, oldRow(5)));
            assertThatThrownBy(() -> {
                        StreamingQuery restarted = sink(source, target, checkpoint);
                        try {
                            restarted.processAllAvailable();
                        } finally {
                            restarted.stop();
                        }
                    })
                    .as(change.name())
                    .hasStackTraceContaining("STREAMING_SCHEMA_MISMATCH");
            assertThat(rows(testing.sql("SELECT count(*) FROM ls.ssc.%s".formatted(target))))
                    .containsExactly(List.of(4L));
        }
    }

    private StreamingQuery sink(String source, String target, Path checkpoint) throws Exception {
        return testing.spark()
                .readStream()
                .table("ls.ssc." + source)
                .writeStream()
                .option("checkpointLocation", checkpoint.toString())
                .trigger(FAST)
                .toTable("ls.ssc." + target);
    }

    private Dataset<Row> stream(String table, boolean primaryKey) {
        return primaryKey
                ? testing.spark().readStream().table("ls.ssc.`%s$changes`".formatted(table))
                : testing.spark().readStream().table("ls.ssc." + table);
    }

    /** The rows by id, without the change columns of a changelog (its first four). */
    private static List<List<Object>> userColumns(List<List<Object>> rows, boolean changelog) {
        List<List<Object>> result = new ArrayList<>();
        for (List<Object> row : rows) {
            result.add(new ArrayList<>(changelog ? row.subList(4, row.size()) : row));
        }
        result.sort(BY_ID);
        return result;
    }

    private static String oldRow(long id) {
        return "(%s, %s, 'b%s', 'c%s')".formatted(id, id * 10, id, id);
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }
}
