package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.MutableClock;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestUnionReadEdgeCases {
    private static final List<String> ALL = List.of("id", "name", "score");

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private ExecutorService threads;
    private LakestreamTable table;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        threads = Executors.newFixedThreadPool(2);
        table = warehouse.createPrimaryKeyTable("t", 2);
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        warehouse.close();
    }

    @Test
    void emptyTable() {
        assertThat(read(ReadOptions.UNION)).isEmpty();
        assertThat(read(ReadOptions.of(ReadMode.LAKE))).isEmpty();
        assertThat(UnionReadPlanner.plan(table, ReadOptions.UNION).splits()).isEmpty();
    }

    @Test
    void emptyLakeReadsTheLog() {
        write(writer -> {
            writer.upsert(row(1, "a", 10));
            writer.upsert(row(2, "b", 20));
        });
        assertThat(read(ReadOptions.UNION)).containsExactlyInAnyOrder(List.of(1L, "a", 10), List.of(2L, "b", 20));
        assertThat(read(ReadOptions.of(ReadMode.LAKE))).isEmpty();
    }

    @Test
    void emptyLogTailTakesTheFastPath() {
        write(writer -> writer.upsert(row(1, "a", 10)));
        tier();
        ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.UNION);
        assertThat(plan.splits()).isNotEmpty().allMatch(UnionSplit::isLakeOnly);
        MergeCounters counters = new MergeCounters();
        assertThat(UnionReads.read(
                        table,
                        plan,
                        ALL,
                        Expressions.alwaysTrue(),
                        MergeConfig.DEFAULT,
                        counters,
                        warehouse.allocator()))
                .containsExactly(List.of(1L, "a", 10));
        assertThat(counters.mergePasses()).isZero();
    }

    @Test
    void bucketWithOnlyDeletesAndDeleteOfAbsentKey() {
        write(writer -> writer.upsert(row(1, "a", 10)));
        tier();
        write(writer -> {
            writer.delete(Map.of("id", 1L));
            writer.delete(Map.of("id", 12345L));
        });
        assertThat(read(ReadOptions.UNION)).isEmpty();
        assertThat(read(ReadOptions.of(ReadMode.LAKE))).containsExactly(List.of(1L, "a", 10));
    }

    @Test
    void deleteThenReinsertInTheSameTail() {
        write(writer -> writer.upsert(row(1, "old", 1)));
        tier();
        write(writer -> {
            writer.delete(Map.of("id", 1L));
            writer.upsert(row(1, "new", 2));
        });
        assertThat(read(ReadOptions.UNION)).containsExactly(List.of(1L, "new", 2));
        tier();
        assertThat(read(ReadOptions.UNION)).containsExactly(List.of(1L, "new", 2));
        assertThat(read(ReadOptions.of(ReadMode.LAKE))).containsExactly(List.of(1L, "new", 2));
    }

    @Test
    void manyUpdatesOfOneKeyInOneRange() {
        write(writer -> {
            for (int version = 0; version < 500; version++) {
                writer.upsert(row(7, "v" + version, version));
            }
        });
        assertThat(read(ReadOptions.UNION)).containsExactly(List.of(7L, "v499", 499));
    }

    @Test
    void newVersionFailingTheFilterHidesTheOldVersionThatPasses() {
        write(writer -> writer.upsert(row(1, "a", 10)));
        tier();
        write(writer -> writer.upsert(row(1, "a", 99)));
        assertThat(read(ReadOptions.UNION.withFilter(Expressions.lessThan("score", 50))))
                .isEmpty();
        assertThat(read(ReadOptions.UNION.withFilter(Expressions.greaterThan("score", 50))))
                .containsExactly(List.of(1L, "a", 99));
    }

    @Test
    void keyColumnsAreReadEvenWhenNotProjected() {
        write(writer -> writer.upsert(row(1, "a", 10)));
        tier();
        write(writer -> writer.upsert(row(1, "b", 11)));
        ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.UNION);
        assertThat(UnionReads.read(
                        table,
                        plan,
                        List.of("name"),
                        Expressions.alwaysTrue(),
                        MergeConfig.DEFAULT,
                        new MergeCounters(),
                        warehouse.allocator()))
                .containsExactly(List.of("b"));
    }

    @Test
    void equalityOnTheKeyPlansOneBucket() {
        write(writer -> {
            for (int id = 0; id < 20; id++) {
                writer.upsert(row(id, "n", id));
            }
        });
        ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.UNION.withFilter(Expressions.equal("id", 5L)));
        assertThat(plan.splits()).hasSize(1);
        assertThat(plan.splits().getFirst().bucket().getAsInt())
                .isEqualTo(table.bucketFunction().orElseThrow().bucket(5L));
        assertThat(read(ReadOptions.UNION.withFilter(Expressions.equal("id", 5L))))
                .containsExactly(List.of(5L, "n", 5));
    }

    @Test
    void timeTravelByTimestamp() {
        // the log dates commits with this clock: one second between the commits, without waiting
        MutableClock clock = new MutableClock(Instant.now().plusSeconds(60).truncatedTo(ChronoUnit.SECONDS));
        table = TestingWarehouse.withLogClock(table, clock);
        write(writer -> writer.upsert(row(1, "first", 1)));
        long first = clock.millis();
        clock.advance(Duration.ofSeconds(1));
        write(writer -> writer.upsert(row(1, "second", 2)));
        assertThat(table.log().latestSnapshot().committedAtMillis()).isEqualTo(first + 1000);
        long between = first + 500;
        tier();
        assertThat(read(ReadOptions.UNION.asOfTimestamp(between))).containsExactly(List.of(1L, "first", 1));
        assertThat(read(ReadOptions.UNION)).containsExactly(List.of(1L, "second", 2));
        assertThat(read(ReadOptions.UNION.atLogVersion(0))).isEmpty();
    }

    @Test
    void freshnessShowsTheLag() {
        write(writer -> {
            for (int id = 0; id < 10; id++) {
                writer.upsert(row(id, "n", id));
            }
        });
        ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.UNION);
        assertThat(plan.freshness().stream()
                        .mapToLong(bucket -> bucket.recordsBehind())
                        .sum())
                .isEqualTo(10);
        assertThat(plan.freshness())
                .allMatch(bucket -> bucket.recordsBehind() == 0
                        || bucket.oldestUntieredCommitMillis().isPresent());
        tier();
        ReadPlan after = UnionReadPlanner.plan(table, ReadOptions.UNION);
        assertThat(after.freshness())
                .hasSameSizeAs(plan.freshness())
                .allMatch(bucket -> bucket.recordsBehind() == 0
                        && bucket.oldestUntieredCommitMillis().isEmpty());
    }

    @Test
    void clearErrors() {
        write(writer -> writer.upsert(row(1, "a", 1)));
        assertLakestreamError(
                () -> UnionReadPlanner.plan(table, ReadOptions.UNION.atLogVersion(9)),
                LakestreamError.INVALID_READ_OPTIONS,
                "Log version 9 of table db.t does not exist: versions go from 0 to 1");
        assertLakestreamError(
                () -> UnionReadPlanner.plan(table, ReadOptions.UNION.asOfTimestamp(1000)),
                LakestreamError.INVALID_READ_OPTIONS,
                "did not exist at 1970-01-01T00:00:01Z");
        assertLakestreamError(
                () -> UnionReadPlanner.plan(table, ReadOptions.UNION.changesAfter(0)),
                LakestreamError.INVALID_READ_OPTIONS,
                "Only the 'changes' read mode takes a start version");
        assertLakestreamError(
                () -> ReadMode.parse("fresh"),
                LakestreamError.INVALID_READ_OPTIONS,
                "Unknown read mode 'fresh': use union, lake or changes");
    }

    @Test
    void untieredRangeRemovedByRetentionIsAClearError() {
        write(writer -> writer.upsert(row(1, "a", 1)));
        write(writer -> writer.upsert(row(2, "b", 2)));
        // retention misconfigured to run ahead of tiering
        table.log().removeSegments(table.log().latestSnapshot().endOffsets(), Long.MAX_VALUE);
        assertLakestreamError(
                () -> UnionReadPlanner.plan(table, ReadOptions.UNION),
                LakestreamError.LOG_RANGE_REMOVED,
                "were removed by retention before tiering put them in the lake");
        assertThat(read(ReadOptions.of(ReadMode.LAKE))).isEmpty();
    }

    @Test
    void lakeAheadOfTheLogIsAClearError() throws Exception {
        write(writer -> writer.upsert(row(1, "a", 1)));
        tier();
        // the log is replaced by an empty one: the lake now holds offsets the log does not have
        table.log().fileSystem().deleteRecursively(table.log().paths().root());
        LakestreamTable reloaded = warehouse.load("t");
        assertThat(reloaded.log().latestSnapshot().endOffsets().offsets().values())
                .allMatch(offset -> offset == 0);
        assertLakestreamError(
                () -> UnionReadPlanner.plan(reloaded, ReadOptions.UNION),
                LakestreamError.LAKE_AHEAD_OF_LOG,
                "the log was replaced or truncated");
        assertThat(UnionReads.read(reloaded, ReadOptions.of(ReadMode.LAKE), ALL, warehouse.allocator()))
                .containsExactly(List.of(1L, "a", 1));
    }

    private void write(Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }

    private void tier() {
        TieringConfig config =
                TieringConfig.builder().retention(Duration.ofDays(1)).build();
        new TableTiering(config, warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC()).tier(table);
    }

    private List<List<Object>> read(ReadOptions options) {
        return UnionReads.read(table, options, ALL, warehouse.allocator());
    }
}
