package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A derived table kept by a Spark stream: the changelog of a primary-key table ({@code t$changes}, a Lakestream
 * streaming source) streamed into another primary-key table through the Lakestream streaming sink, in runs of
 * {@code Trigger.AvailableNow} on one checkpoint, while Trino and the Java writer change the source and tiering
 * runs between the runs. After every run Trino's union read of the derived table equals an oracle built from
 * the changes the test made. In each of the stream's outputs ({@code stream.output}): {@code log} (upserts and
 * deletes as logged), {@code upsert} (the last change per key per batch) and {@code changelog} (insert,
 * update_before / update_after, delete; the sink skips the before images). The seed is printed on failure; {@code -Dlakestream.test.seed=N} replays one.
 */
final class TestCrossEngineDerivedStream {
    private static final long DEFAULT_SEED = 20261201L;
    private static final int ROUNDS = 4;
    private static final int KEYS = 20;

    private final CrossEngine engines = CrossEngine.get();

    @ParameterizedTest
    @ValueSource(strings = {"log", "upsert", "changelog"})
    void aStreamKeepsADerivedTableEqualToItsSource(String output) throws IOException {
        long seed = Seeds.seed(DEFAULT_SEED);
        Random random = new Random(seed);
        String schema = "derived_stream_" + output;
        String s = engines.createSchema(schema);
        engines.trino("CREATE TABLE " + s + ".source (id bigint, name varchar, score integer)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        engines.spark("CREATE TABLE " + s + ".derived (id BIGINT, name STRING, score INT)"
                + " TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2')");
        Path checkpoint = Files.createTempDirectory("cross-engine-derived-stream");
        Map<Long, List<Object>> oracle = new TreeMap<>();
        List<String> history = new ArrayList<>();

        for (int round = 0; round < ROUNDS; round++) {
            // upserts through Trino, distinct keys in one statement
            Map<Long, List<Object>> upserts = new TreeMap<>();
            int size = 1 + random.nextInt(6);
            while (upserts.size() < size) {
                long id = random.nextInt(KEYS);
                upserts.put(id, Arrays.asList(id, "n" + random.nextInt(100), random.nextInt(1000)));
            }
            StringBuilder values = new StringBuilder();
            for (List<Object> row : upserts.values()) {
                values.append(values.isEmpty() ? "" : ", ")
                        .append("(%d, '%s', %d)".formatted(row.get(0), row.get(1), row.get(2)));
            }
            engines.trino("INSERT INTO " + s + ".source VALUES " + values);
            oracle.putAll(upserts);
            history.add("round " + round + ": trino upsert " + upserts.keySet());

            // deletes through the Java writer, of keys that may or may not exist
            List<Map<String, ?>> deletes = new ArrayList<>();
            for (int i = random.nextInt(3); i > 0; i--) {
                long id = random.nextInt(KEYS);
                deletes.add(Map.of("id", id));
                oracle.remove(id);
            }
            if (!deletes.isEmpty()) {
                engines.delete(schema, "source", deletes);
                history.add("round " + round + ": java delete " + deletes);
            }
            if (random.nextBoolean()) {
                engines.tier(schema, "source");
                history.add("round " + round + ": tier source");
            }

            engines.sparkStreamTable(
                    s + ".`source$changes`", Map.of("stream.output", output), s + ".derived", checkpoint);
            if (random.nextBoolean()) {
                engines.tier(schema, "derived");
                history.add("round " + round + ": tier derived");
            }
            List<List<Object>> expected = new ArrayList<>(oracle.values());
            assertThat(engines.trino("SELECT id, name, score FROM " + s + ".derived ORDER BY id"))
                    .as("seed %d (-Dlakestream.test.seed=%d), stream.output %s, after %s", seed, seed, output, history)
                    .isEqualTo(expected);
        }
        assertThat(engines.trino("SELECT id, name, score FROM " + s + ".derived ORDER BY id"))
                .as("seed %d, stream.output %s: the derived table equals its source", seed, output)
                .isEqualTo(engines.trino("SELECT id, name, score FROM " + s + ".source ORDER BY id"));
    }
}
