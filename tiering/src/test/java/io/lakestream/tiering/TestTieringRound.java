package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a distributed runner of {@link TieringRound} may do and the round must survive: run a task twice
 * (a retried or speculative attempt, one of which fails and cleans up), or hand back results that are not
 * exactly the plan's tasks (a lost or repeated result). The lake never gets a range without its files, nor
 * a range twice.
 */
class TestTieringRound {
    @TempDir
    Path directory;

    /**
     * Two attempts of one task: the second fails after writing its files and deletes them; the first attempt's
     * files, which the driver commits, must survive it.
     */
    @Test
    void failedAttemptDeletesOnlyItsOwnFiles() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("attempts", 1);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 50, "a"));
            TieringPlan plan = TieringPlanner.plan(
                    "attempts", LakePosition.current(table.lake()), table.log().latestSnapshot(), Long.MAX_VALUE);
            BucketTask task = plan.tasks().getFirst();

            BucketFiles first = new BucketRangeWriter(
                            table, plan.log(), warehouse.allocator(), 1 << 20, TieringHooks.NONE)
                    .write(task, Optional.of("a1"));
            TieringHooks failAfterWriting = (identifier, step, bucket) -> {
                if (step == TieringStep.DELETE_FILES_WRITTEN) {
                    throw new IllegalStateException("attempt 2 lost its executor");
                }
            };
            assertThatThrownBy(() -> new BucketRangeWriter(
                                    table, plan.log(), warehouse.allocator(), 1 << 20, failAfterWriting)
                            .write(task, Optional.of("a2")))
                    .hasMessageContaining("attempt 2");

            assertThat(first.locations())
                    .isNotEmpty()
                    .allMatch(
                            location -> table.lake().io().newInputFile(location).exists());
            LakeCommitter.Result result = new LakeCommitter(TieringHooks.NONE).commit(table, plan, List.of(first));
            assertThat(result.outcome()).isEqualTo(LakeCommitter.Outcome.COMMITTED);
            Table lake = warehouse.load("attempts").lake();
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
        }
    }

    @Test
    void resultsMissingATaskAreNotCommitted() {
        assertRefused(files -> new ArrayList<>(files.subList(1, files.size())));
    }

    @Test
    void aTaskReturnedTwiceIsNotCommitted() {
        assertRefused(files -> {
            List<BucketFiles> twice = new ArrayList<>(files.subList(1, files.size()));
            twice.add(files.get(1));
            return twice;
        });
    }

    /** A runner whose results are altered: the round fails, the lake and its offsets stay, the files it got are gone. */
    private void assertRefused(UnaryOperator<List<BucketFiles>> alter) {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("refused", 3);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 90, "a"));
            LocalBucketTaskRunner local =
                    new LocalBucketTaskRunner(warehouse.allocator(), threads, 1 << 20, TieringHooks.NONE);
            List<String> written = new ArrayList<>();
            BucketTaskRunner altering = (loaded, plan) -> {
                List<BucketFiles> files = local.write(loaded, plan);
                assertThat(files).hasSize(3);
                List<BucketFiles> altered = alter.apply(files);
                // a lost result's files cannot be known to the committer: they are left to the orphan sweep
                altered.forEach(bucket -> written.addAll(bucket.locations()));
                return altered;
            };
            Long before = snapshotId(table.lake());
            assertThatThrownBy(() -> new TieringRound(Long.MAX_VALUE, altering, TieringHooks.NONE).run(table))
                    .hasMessageContaining("TIERING_FAILED")
                    .hasMessageContaining("nothing was committed");

            Table lake = warehouse.load("refused").lake();
            assertThat(snapshotId(lake)).isEqualTo(before);
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(OffsetMap.EMPTY);
            assertThat(written)
                    .isNotEmpty()
                    .noneMatch(location -> lake.io().newInputFile(location).exists());
        } finally {
            threads.shutdownNow();
        }
    }

    private static Long snapshotId(Table lake) {
        lake.refresh();
        return lake.currentSnapshot() == null ? null : lake.currentSnapshot().snapshotId();
    }
}
