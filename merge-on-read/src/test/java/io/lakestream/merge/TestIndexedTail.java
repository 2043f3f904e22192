package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.LongStream;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A tail indexed once serves both halves of a merge on an engine's own lake reader. */
@ExtendWith(Seeds.class)
class TestIndexedTail {
    private static final List<String> COLUMNS = List.of("id", "name", "score");

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private ExecutorService threads;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        threads = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        warehouse.close();
    }

    @Test
    void changedKeysAndWinnersMatchTheTailReadOnItsOwn() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("pk", 1);
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = 0; id < 100; id++) {
                writer.upsert(Map.of("id", id, "name", "lake-" + id, "score", (int) id));
            }
            writer.commit();
        }
        new TableTiering(TieringConfig.defaults(), warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC())
                .tier(table);
        // random upserts (some of a key several times) and deletes, of lake keys and new ones
        Random random = Seeds.random(5);
        Set<Long> changed = new HashSet<>();
        // the oracle: each changed key's last change as written (null for a delete)
        Map<Long, List<Object>> lastChange = new HashMap<>();
        for (int commit = 0; commit < 3; commit++) {
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                for (int i = 0; i < 40; i++) {
                    long id = random.nextInt(150);
                    changed.add(id);
                    if (random.nextInt(4) == 0) {
                        writer.delete(Map.of("id", id));
                        lastChange.put(id, null);
                    } else {
                        String name = "tail-" + commit + "-" + i;
                        int score = random.nextInt(200);
                        writer.upsert(Map.of("id", id, "name", name, "score", score));
                        lastChange.put(id, List.of(id, name, score));
                    }
                }
                writer.commit();
            }
        }

        UnionSplit split =
                UnionReadPlanner.plan(table, ReadOptions.UNION).splits().getFirst();
        LogRange range = split.logRange().orElseThrow();
        IndexedTail tail =
                IndexedTail.build(table, table.log().snapshot(split.logVersion()), range, warehouse.allocator());

        // the changed keys are exactly the keys the tail names
        ChangedLongKeys keys = (ChangedLongKeys) tail.changedKeys();
        assertThat(keys.size()).isEqualTo(changed.size());
        long[] ids = LongStream.range(0, 150).toArray();
        int[] positions = new int[ids.length];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = i;
        }
        int kept = keys.retainUnchanged(ids, positions, ids.length);
        Set<Long> unchanged = new HashSet<>();
        for (int i = 0; i < kept; i++) {
            unchanged.add(ids[positions[i]]);
        }
        assertThat(unchanged).hasSize(150 - changed.size()).doesNotContainAnyElementsOf(changed);

        // the winners, filtered, and the counters equal those of the tail-only split read on its own
        UnionSplit tailOnly = new UnionSplit(
                split.bucket(),
                split.mode(),
                List.of(),
                split.logRange(),
                split.logVersion(),
                split.mergeByKey(),
                Optional.empty());
        Expression filter = Expressions.greaterThanOrEqual("score", 100);
        MergeCounters indexedCounters = new MergeCounters();
        MergeCounters ownCounters = new MergeCounters();
        List<List<Object>> fromIndex;
        List<List<Object>> onItsOwn;
        try (UnionSplitReader reader = UnionSplitReader.tailWinners(
                table, tailOnly, tail, COLUMNS, filter, indexedCounters, warehouse.allocator(), false)) {
            fromIndex = UnionReads.drain(reader, table, COLUMNS);
        }
        try (UnionSplitReader reader = new UnionSplitReader(
                table, tailOnly, COLUMNS, filter, MergeConfig.DEFAULT, ownCounters, warehouse.allocator())) {
            onItsOwn = UnionReads.drain(reader, table, COLUMNS);
        }
        List<List<Object>> winners = lastChange.values().stream()
                .filter(row -> row != null && (int) row.get(2) >= 100)
                .toList();
        assertThat(winners).isNotEmpty();
        assertThat(fromIndex).containsExactlyInAnyOrderElementsOf(winners);
        assertThat(onItsOwn).containsExactlyInAnyOrderElementsOf(winners);
        assertThat(indexedCounters.logRows()).isEqualTo(ownCounters.logRows()).isEqualTo(120);
        assertThat(indexedCounters.logRowsSuperseded()).isEqualTo(ownCounters.logRowsSuperseded());

        // the index belongs to its tail: the split with its lake files is refused
        assertThatThrownBy(() -> UnionSplitReader.tailWinners(
                        table, split, tail, COLUMNS, filter, new MergeCounters(), warehouse.allocator(), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not the tail-only split");
    }
}
