package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Spark streaming query writes a changelog into a primary-key table through the Lakestream sink;
 * Trino's union read (lake plus log tail) shows exactly the state the changes lead to, before and
 * after the tiering service moved part of it into the lake.
 */
final class TestCrossEngineStreamingSink {
    private static final String CHANGES = "_change_type STRING, id BIGINT, name STRING, score INT";

    private final CrossEngine engines = CrossEngine.get();

    @Test
    void trinoReadsWhatASparkStreamWrote() throws IOException {
        String s = engines.createSchema("stream_sink");
        engines.spark("CREATE TABLE " + s + ".users (id BIGINT, name STRING, score INT)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        Path input = Files.createTempDirectory("cross-engine-stream");
        Path checkpoint = Files.createTempDirectory("cross-engine-stream-checkpoint");
        String query = "SELECT id, name, score FROM " + s + ".users ORDER BY id";

        Files.write(
                input.resolve("part-0.json"),
                List.of(change("insert", 1, "ann", 10), change("insert", 2, "bob", 20), change("insert", 3, "cy", 30)));
        engines.sparkStream(input, CHANGES, s + ".users", checkpoint);
        assertThat(engines.trino(query)).isEqualTo(rows(row(1L, "ann", 10), row(2L, "bob", 20), row(3L, "cy", 30)));

        engines.tier("stream_sink", "users");
        // the next batch changes lake rows: an update (its before image is skipped), a delete, an insert
        Files.write(
                input.resolve("part-1.json"),
                List.of(
                        change("update_before", 2, "bob", 20),
                        change("update_after", 2, "bo", 21),
                        change("delete", 3, null, null),
                        change("insert", 4, "dee", 40)));
        engines.sparkStream(input, CHANGES, s + ".users", checkpoint);
        List<List<Object>> expected = rows(row(1L, "ann", 10), row(2L, "bo", 21), row(4L, "dee", 40));
        assertThat(engines.trino(query)).isEqualTo(expected);
        assertThat(engines.spark(query)).isEqualTo(expected);
        // the lake still holds the first batch until the next tiering round
        assertThat(engines.trino("SELECT id, name FROM " + s + ".\"users$lake\" ORDER BY id"))
                .isEqualTo(rows(row(1L, "ann"), row(2L, "bob"), row(3L, "cy")));

        engines.tier("stream_sink", "users");
        assertThat(engines.trino(query)).isEqualTo(expected);
    }

    private static String change(String type, long id, String name, Integer score) {
        return "{\"_change_type\":\"%s\",\"id\":%s,\"name\":%s,\"score\":%s}"
                .formatted(type, id, name == null ? "null" : "\"" + name + "\"", score);
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    @SafeVarargs
    private static List<List<Object>> rows(List<Object>... rows) {
        return List.of(rows);
    }
}
