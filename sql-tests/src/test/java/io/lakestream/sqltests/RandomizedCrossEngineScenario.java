package io.lakestream.sqltests;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Random changes to a primary-key table {@code pk} and an append-only table {@code log} from both engines
 * (SQL INSERT) and the Java writer (deletes), with real tiering rounds at random points. After every round
 * both engines' union reads, unfiltered and with a random filter, must equal an in-memory oracle built from
 * what the scenario wrote (and so each other).
 *
 * <p>The same scenario runs on any catalog both engines know under one name: the embedded warehouse
 * ({@link TestCrossEngineRandomized}) and a warehouse on S3 with a PostgreSQL catalog ({@link
 * TestCrossEngineRandomizedOnS3}). The Java writer and the tiering service reach the tables through
 * {@code javaCatalog}, the Java API's view of the same catalog.
 */
final class RandomizedCrossEngineScenario {
    private static final int KEYS = 24;
    private static final List<String> WORDS = List.of("a", "b", "c", "it's", "");

    private final CrossEngine engines;
    private final String catalogName;
    private final LakestreamCatalog javaCatalog;
    private final int rounds;

    RandomizedCrossEngineScenario(CrossEngine engines, String catalogName, LakestreamCatalog javaCatalog, int rounds) {
        this.engines = requireNonNull(engines, "engines is null");
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.javaCatalog = requireNonNull(javaCatalog, "javaCatalog is null");
        this.rounds = rounds;
    }

    /** What the tables hold after a run, by the oracle. */
    record Outcome(String schema, List<List<Object>> primaryKeyRows, List<List<Object>> appendedRows) {
        Outcome {
            requireNonNull(schema, "schema is null");
            primaryKeyRows = List.copyOf(primaryKeyRows);
            appendedRows = List.copyOf(appendedRows);
        }
    }

    /** Runs the scenario in a new schema named after {@code seed}, drawing from {@code random}. */
    Outcome run(long seed, Random random) {
        String schemaName = "randomized_" + Long.toHexString(seed & 0xffffffL);
        String s = catalogName + "." + schemaName;
        engines.trino("CREATE SCHEMA " + s);
        engines.trino("CREATE TABLE " + s + ".pk (id bigint, v bigint, w varchar)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 3)");
        engines.spark("CREATE TABLE " + s + ".log (id BIGINT NOT NULL, v BIGINT, w STRING)"
                + " TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='2')");

        Map<Long, List<Object>> state = new TreeMap<>();
        List<List<Object>> appended = new ArrayList<>();
        List<String> history = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            boolean sparkWrites = random.nextBoolean();
            // upserts: distinct keys in one statement (which of two rows with one key wins is not defined)
            Map<Long, List<Object>> batch = new LinkedHashMap<>();
            int size = 1 + random.nextInt(6);
            while (batch.size() < size) {
                long id = random.nextInt(KEYS);
                batch.put(
                        id,
                        Arrays.asList(
                                id, random.nextInt(5) == 0 ? null : (long) random.nextInt(100) - 50, word(random)));
            }
            run(sparkWrites, "INSERT INTO " + s + ".pk VALUES " + values(batch.values(), sparkWrites));
            batch.forEach(state::put);
            history.add((sparkWrites ? "spark" : "trino") + " upsert " + batch.keySet());

            boolean appendWithSpark = random.nextBoolean();
            run(appendWithSpark, "INSERT INTO " + s + ".log VALUES " + values(batch.values(), appendWithSpark));
            appended.addAll(batch.values());
            history.add((appendWithSpark ? "spark" : "trino") + " append " + batch.size());

            if (random.nextInt(3) == 0) {
                List<Map<String, ?>> keys = new ArrayList<>();
                for (int i = 0; i < 1 + random.nextInt(3); i++) {
                    long id = random.nextInt(KEYS);
                    keys.add(Map.of("id", id));
                    state.remove(id);
                }
                engines.delete(table(schemaName, "pk"), keys);
                history.add("delete " + keys);
            }
            if (random.nextInt(3) == 0) {
                engines.tier(table(schemaName, "pk"));
                history.add("tier pk");
            }
            if (random.nextInt(3) == 0) {
                engines.tier(table(schemaName, "log"));
                history.add("tier log");
            }

            String context = "seed " + seed + ", round " + round + ", history " + history;
            List<String> expected = Values.format(new ArrayList<>(state.values()), false);
            String all = "SELECT id, v, w FROM " + s + ".pk";
            assertThat(Values.format(engines.trino(all), false))
                    .as("Trino, " + context)
                    .isEqualTo(expected);
            assertThat(Values.format(engines.spark(all), false))
                    .as("Spark, " + context)
                    .isEqualTo(expected);

            long bound = random.nextInt(100) - 50;
            String filtered = "SELECT id, v, w FROM " + s + ".pk WHERE v < " + bound + " OR w = 'b'";
            List<String> expectedFiltered = Values.format(
                    state.values().stream()
                            .filter(row -> (row.get(1) != null && (long) row.get(1) < bound) || "b".equals(row.get(2)))
                            .toList(),
                    false);
            assertThat(Values.format(engines.trino(filtered), false))
                    .as("Trino filter, " + context)
                    .isEqualTo(expectedFiltered);
            assertThat(Values.format(engines.spark(filtered), false))
                    .as("Spark filter, " + context)
                    .isEqualTo(expectedFiltered);

            String log = "SELECT id, v, w FROM " + s + ".log";
            List<String> expectedLog = Values.format(appended, false);
            assertThat(Values.format(engines.trino(log), false))
                    .as("Trino append-only, " + context)
                    .isEqualTo(expectedLog);
            assertThat(Values.format(engines.spark(log), false))
                    .as("Spark append-only, " + context)
                    .isEqualTo(expectedLog);
        }
        assertThat(history).anyMatch(step -> step.startsWith("spark")).anyMatch(step -> step.startsWith("trino"));
        return new Outcome(schemaName, new ArrayList<>(state.values()), appended);
    }

    /** The table as the Java writer and the tiering service see it. */
    LakestreamTable table(String schema, String table) {
        return javaCatalog.loadTable(TableIdentifier.of(schema, table));
    }

    private void run(boolean spark, String sql) {
        if (spark) {
            engines.spark(sql);
        } else {
            engines.trino(sql);
        }
    }

    private static String word(Random random) {
        int pick = random.nextInt(WORDS.size() + 1);
        return pick == WORDS.size() ? null : WORDS.get(pick);
    }

    /** VALUES rows for one engine; a quote in a string literal is {@code \'} in Spark SQL and {@code ''} in Trino. */
    private static String values(Collection<List<Object>> rows, boolean spark) {
        return rows.stream()
                .map(row -> "(" + row.get(0) + ", "
                        + (row.get(1) == null ? "CAST(NULL AS BIGINT)" : row.get(1)) + ", "
                        + (row.get(2) == null
                                ? (spark ? "CAST(NULL AS STRING)" : "CAST(NULL AS varchar)")
                                : "'" + ((String) row.get(2)).replace("'", spark ? "\\'" : "''") + "'")
                        + ")")
                .collect(Collectors.joining(", "));
    }
}
