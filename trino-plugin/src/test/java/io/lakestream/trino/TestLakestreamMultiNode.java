package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.SCHEMA;
import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.write.LakestreamWriter;
import io.trino.Session;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import io.trino.testing.QueryRunner.MaterializedResultWithPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The connector on a Trino cluster: a coordinator that schedules but runs no splits
 * ({@code node-scheduler.include-coordinator=false}, as in production) and two workers, each with its
 * own connector instance and caches. Proves from the coordinator's record of each query's tasks that
 * the splits of one union read, and the writers of one {@code INSERT}, run on different workers; that
 * union reads, {@code INSERT}, {@code DELETE}, {@code UPDATE} and {@code MERGE} return an oracle's rows
 * (built from what the test wrote); and that every worker's caches (loaded tables and log handles, the
 * lake key cache) stay correct when another node (the Java writer, tiering, compaction, a drop and
 * re-create, each through a catalog of its own) commits between two queries.
 *
 * <p>The runner's nodes share one JVM (Trino's {@code DistributedQueryRunner}): they have separate
 * catalogs, connectors and caches, talk through HTTP and serialize every handle and split, but share
 * static state. The random seed is {@code -Dlakestream.test.seed}.
 */
@ExtendWith(Seeds.class)
final class TestLakestreamMultiNode extends AbstractTestQueryFramework {
    private static final long SEED = Long.getLong("lakestream.test.seed", 20_3L);
    private static final int BUCKETS = 8;

    // another node: its own catalog over the same warehouse, with its own caches
    private LakestreamTestTables otherNode;
    private final ExecutorService tieringThreads = Executors.newFixedThreadPool(2);

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        Path warehouse = Files.createTempDirectory("lakestream-trino-multi-node");
        LakestreamQueryRunner.Builder builder = LakestreamQueryRunner.builder(warehouse)
                .setWorkerCount(2)
                .addCoordinatorProperty("node-scheduler.include-coordinator", "false");
        // reads right after another node tiered must read its lake (the worker key caches are what is tested),
        // not the recent lake the coordinator pinned before (which would leave no lake keys to cache)
        LakestreamQueryRunner.EXACT_LAKE_READS.forEach(builder::addConnectorProperty);
        QueryRunner runner = builder.build();
        otherNode = new LakestreamTestTables(warehouse);
        return runner;
    }

    @AfterAll
    void closeOtherNode() throws Exception {
        tieringThreads.shutdownNow();
        otherNode.close();
    }

    @Test
    void splitsOfOneUnionReadRunOnEveryWorker() {
        assertUpdate("CREATE TABLE spread (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = "
                + BUCKETS + ")");
        assertUpdate("INSERT INTO spread SELECT x, x * 10 FROM UNNEST(sequence(1, 400)) t(x)", 400);
        otherNode.tier("spread");
        // a log tail over lake keys and new keys, and deletes of lake rows: every bucket is a merge
        assertUpdate("INSERT INTO spread SELECT x, x * 100 FROM UNNEST(sequence(350, 450)) t(x)", 101);
        assertUpdate("DELETE FROM spread WHERE id <= 20", 20);
        Map<Long, Long> oracle = new TreeMap<>();
        for (long id = 21; id <= 450; id++) {
            oracle.put(id, id < 350 ? id * 10 : id * 100);
        }

        readOnEveryWorker("spread", BUCKETS, oracle);
    }

    /**
     * Random rounds of {@code INSERT ... SELECT}, {@code DELETE}, {@code UPDATE} and {@code MERGE} (their
     * scans spread over both workers, the writers of an insert too), with tiering and compaction by another
     * node between them; after every round the union read equals the oracle, and each statement is one
     * log commit.
     */
    @Test
    void writesFromEveryWorkerMatchTheOracle() {
        Random random = Seeds.random(SEED);
        assertUpdate(
                "CREATE TABLE target (id bigint, v bigint, tag varchar) WITH (primary_key = ARRAY['id'], bucket_count = "
                        + BUCKETS + ")");
        // append-only, spread over the buckets: the source of inserts and merges, scanned by both workers
        assertUpdate("CREATE TABLE source (round integer, id bigint, v bigint) WITH (bucket_count = " + BUCKETS + ")");
        Map<Long, Row> oracle = new TreeMap<>();
        Session writersOnScanNodes = Session.builder(getSession())
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("redistribute_writes", "false")
                .build();

        for (int i = 0; i < 12; i++) {
            int round = i;
            String context = "seed " + SEED + ", round " + round;
            long before = logVersion("target");
            // each statement kind once first (insert, delete, update, merge), then at random
            int operation = round < 4 ? round : random.nextInt(4);
            switch (operation) {
                case 0 -> {
                    Map<Long, Long> batch = sourceBatch(random, round);
                    MaterializedResultWithPlan insert = getDistributedQueryRunner()
                            .executeWithPlan(
                                    writersOnScanNodes,
                                    "INSERT INTO target SELECT id, v, 'i%s' FROM source WHERE round = %s"
                                            .formatted(round, round));
                    assertThat(insert.result().getUpdateCount()).hasValue(batch.size());
                    batch.forEach((id, v) -> oracle.put(id, new Row(v, "i" + round)));
                    if (round == 0) {
                        // the staged segments of both workers' writers went into one commit
                        assertThat(tasks().rowsWritten(insert.queryId()).keySet())
                                .as(context)
                                .isEqualTo(tasks().workers());
                    }
                }
                case 1 -> {
                    long modulus = 5 + random.nextInt(5);
                    long remainder = random.nextInt((int) modulus);
                    long deleted = oracle.values().stream()
                            .filter(row -> row.v() % modulus == remainder)
                            .count();
                    assertUpdate("DELETE FROM target WHERE v %% %s = %s".formatted(modulus, remainder), deleted);
                    oracle.values().removeIf(row -> row.v() % modulus == remainder);
                }
                case 2 -> {
                    long low = random.nextInt(400);
                    long high = low + random.nextInt(150);
                    List<Long> updated = oracle.keySet().stream()
                            .filter(id -> id >= low && id <= high)
                            .toList();
                    assertUpdate(
                            "UPDATE target SET v = v + 1000, tag = 'u%s' WHERE id BETWEEN %s AND %s"
                                    .formatted(round, low, high),
                            updated.size());
                    updated.forEach(id -> oracle.put(id, new Row(oracle.get(id).v() + 1000, "u" + round)));
                }
                default -> {
                    Map<Long, Long> batch = sourceBatch(random, round);
                    // matched with an even source value: delete; other matched: update; not matched: insert
                    assertUpdate(
                            ("MERGE INTO target t USING (SELECT id, v FROM source WHERE round = %s) s ON t.id = s.id "
                                            + "WHEN MATCHED AND s.v %% 2 = 0 THEN DELETE "
                                            + "WHEN MATCHED THEN UPDATE SET v = s.v, tag = 'm%s' "
                                            + "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v, 'm%s')")
                                    .formatted(round, round, round),
                            batch.size());
                    batch.forEach((id, v) -> {
                        if (oracle.containsKey(id) && v % 2 == 0) {
                            oracle.remove(id);
                        } else {
                            oracle.put(id, new Row(v, "m" + round));
                        }
                    });
                }
            }
            long commits = logVersion("target") - before;
            assertThat(commits)
                    .as(context + ": one log commit per statement (none if it changed no row)")
                    .isLessThanOrEqualTo(1);
            switch (random.nextInt(3)) {
                case 0 -> otherNode.tier("target");
                case 1 -> tierAndCompact("target");
                default -> {}
            }
            assertThat(rows("SELECT id, v, tag FROM target"))
                    .as(context)
                    .containsExactlyInAnyOrderElementsOf(oracle.entrySet().stream()
                            .map(entry -> List.<Object>of(
                                    entry.getKey(),
                                    entry.getValue().v(),
                                    entry.getValue().tag()))
                            .toList());
        }
    }

    /**
     * Every worker reads the table (so each holds its lake metadata, log handle and lake keys); then
     * another node commits, and the next read on every worker returns the new state: log commits of the
     * Java writer, a tiering snapshot, a compaction that replaces lake files (whose keys the workers had
     * cached), time travel back over all of it, and a drop and re-create under the same name.
     */
    @Test
    void workerCachesSeeCommitsOfOtherNodes() {
        assertUpdate("CREATE TABLE cached (id bigint, v bigint) WITH (primary_key = ARRAY['id'], bucket_count = "
                + BUCKETS + ")");
        assertUpdate("INSERT INTO cached SELECT x, x FROM UNNEST(sequence(1, 300)) t(x)", 300);
        Map<Long, Long> oracle = new TreeMap<>();
        for (long id = 1; id <= 300; id++) {
            oracle.put(id, id);
        }
        otherNode.tier("cached");
        // a tail in every bucket, so every split below merges and fills the key cache of the worker reading it
        write("cached", writer -> {
            for (long id = 1; id <= 40; id++) {
                writer.upsert(Map.of("id", id, "v", -id));
            }
        });
        for (long id = 1; id <= 40; id++) {
            oracle.put(id, -id);
        }
        readOnEveryWorker("cached", BUCKETS, oracle);
        long firstVersion = logVersion("cached");
        Map<Long, Long> atFirstVersion = new TreeMap<>(oracle);

        // log commits of another node: upserts over lake keys, new keys, deletes
        write("cached", writer -> {
            for (long id = 250; id <= 350; id++) {
                writer.upsert(Map.of("id", id, "v", id * 2));
            }
            for (long id = 2; id <= 11; id++) {
                writer.delete(Map.of("id", id));
            }
        });
        for (long id = 250; id <= 350; id++) {
            oracle.put(id, id * 2);
        }
        for (long id = 2; id <= 11; id++) {
            oracle.remove(id);
        }
        Metrics afterCommit = readOnEveryWorker("cached", BUCKETS, oracle);
        // two reads after the commit: if the first took every split to the worker that had not cached its file,
        // both workers have cached every file for the second (the scheduler does not keep a bucket on one worker)
        assertThat(QueryTasksPerNode.count(afterCommit, LakestreamMetrics.LAKE_KEY_CACHE_HITS))
                .as("the workers merged the new tail with the lake keys they had cached")
                .isPositive();

        // a tiering snapshot of another node (a new lake metadata file), then more log commits
        otherNode.tier("cached");
        readOnEveryWorker("cached", BUCKETS, oracle);
        assertThat(rows("SELECT id, v FROM \"cached$lake\"")).containsExactlyInAnyOrderElementsOf(asRows(oracle));
        write("cached", writer -> writer.upsert(Map.of("id", 20L, "v", 0L)));
        oracle.put(20L, 0L);
        readOnEveryWorker("cached", BUCKETS, oracle);

        // compaction replaces the lake files whose keys the workers cached; the tail stays in the log
        tierAndCompact("cached");
        write("cached", writer -> writer.upsert(Map.of("id", 21L, "v", 0L)));
        oracle.put(21L, 0L);
        readOnEveryWorker("cached", BUCKETS, oracle);

        // time travel on every worker, back over the tiering and compaction
        assertThat(rows("SELECT id, v FROM cached FOR VERSION AS OF " + firstVersion))
                .containsExactlyInAnyOrderElementsOf(asRows(atFirstVersion));

        // dropped and re-created by another node: same name and location, other columns and buckets
        TableIdentifier identifier = TableIdentifier.of(SCHEMA, "cached");
        otherNode.catalog().dropTable(identifier);
        otherNode
                .catalog()
                .createTable(
                        identifier,
                        TableSpec.builder(new Schema(
                                        Types.NestedField.required(1, "id", Types.LongType.get()),
                                        Types.NestedField.optional(2, "name", Types.StringType.get())))
                                .primaryKey(List.of("id"))
                                .bucketCount(BUCKETS / 2)
                                .build());
        write("cached", writer -> {
            for (long id = 1; id <= 40; id++) {
                writer.upsert(Map.of("id", id, "name", "n" + id));
            }
        });
        MaterializedResultWithPlan reborn =
                getDistributedQueryRunner().executeWithPlan(getSession(), "SELECT id, name FROM cached");
        assertThat(reborn.result().getMaterializedRows().stream()
                        .map(MaterializedRow::getFields)
                        .toList())
                .containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.rangeClosed(1, 40)
                        .mapToObj(id -> List.<Object>of(id, "n" + id))
                        .toList());
        assertThat(tasks().lakestreamSplits(reborn.queryId()).values().stream()
                        .mapToLong(Long::longValue)
                        .sum())
                .isEqualTo(BUCKETS / 2);
    }

    /**
     * Reads the table on the cluster and checks the rows against the oracle, that every worker (and not the
     * coordinator) read some of its splits, and that each bucket's split was read once; then twice the same
     * with the key not selected (the merge takes lake keys from the workers' key caches). Returns the
     * connector metrics of those two reads.
     */
    private Metrics readOnEveryWorker(String table, int buckets, Map<Long, Long> oracle) {
        MaterializedResultWithPlan read =
                getDistributedQueryRunner().executeWithPlan(getSession(), "SELECT id, v FROM " + table);
        assertThat(read.result().getMaterializedRows().stream()
                        .map(MaterializedRow::getFields)
                        .toList())
                .containsExactlyInAnyOrderElementsOf(asRows(oracle));
        Map<String, Long> splits = tasks().lakestreamSplits(read.queryId());
        assertThat(splits.keySet())
                .as("the nodes that read splits of " + table)
                .isEqualTo(tasks().workers())
                .doesNotContain(tasks().coordinator());
        assertThat(splits.values().stream().mapToLong(Long::longValue).sum())
                .as("one split per bucket, each read once")
                .isEqualTo(buckets);

        Metrics metrics = Metrics.EMPTY;
        for (int repeat = 0; repeat < 2; repeat++) {
            MaterializedResultWithPlan sums =
                    getDistributedQueryRunner().executeWithPlan(getSession(), "SELECT count(*), sum(v) FROM " + table);
            assertThat(sums.result().getMaterializedRows().getFirst().getFields())
                    .containsExactly(
                            (long) oracle.size(),
                            oracle.values().stream().mapToLong(Long::longValue).sum());
            assertThat(tasks().lakestreamSplits(sums.queryId()).keySet()).isEqualTo(tasks().workers());
            metrics = metrics.mergeWith(tasks().connectorMetrics(sums.queryId()));
        }
        return metrics;
    }

    /** Distinct random keys with random values, inserted into {@code source} for this round. */
    private Map<Long, Long> sourceBatch(Random random, int round) {
        Map<Long, Long> batch = new TreeMap<>();
        int size = 20 + random.nextInt(60);
        while (batch.size() < size) {
            batch.put((long) random.nextInt(500), (long) random.nextInt(10_000));
        }
        assertUpdate(
                "INSERT INTO source VALUES "
                        + batch.entrySet().stream()
                                .map(entry -> "(%s, %s, %s)".formatted(round, entry.getKey(), entry.getValue()))
                                .collect(joining(", ")),
                batch.size());
        return batch;
    }

    private List<List<Object>> rows(String sql) {
        return computeActual(sql).getMaterializedRows().stream()
                .map(MaterializedRow::getFields)
                .toList();
    }

    private static List<List<Object>> asRows(Map<Long, Long> oracle) {
        return oracle.entrySet().stream()
                .map(entry -> List.<Object>of(entry.getKey(), entry.getValue()))
                .toList();
    }

    /** Commits changes through the Java writer of the other node. */
    private void write(String table, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(otherNode.load(table), otherNode.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }

    /** The other node tiers the table and compacts every bucket with a delete file. */
    private void tierAndCompact(String table) {
        TieringResult result = new TableTiering(
                        TieringConfig.builder().compactionDeleteFiles(1).build(),
                        otherNode.allocator(),
                        tieringThreads,
                        TieringHooks.NONE,
                        Clock.systemUTC())
                .tier(otherNode.load(table));
        assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
    }

    private long logVersion(String table) {
        return otherNode.load(table).log().latestSnapshot().version();
    }

    private QueryTasksPerNode tasks() {
        return new QueryTasksPerNode(getDistributedQueryRunner());
    }

    private record Row(long v, String tag) {}
}
