package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A fault at each step of a round (after data files, after delete files, inside the commit, after
 * the commit before retention, inside a compaction commit): the failed round leaves no duplicate and
 * loses nothing, the offsets never go backwards, files of a commit that did not happen are removed,
 * and the next round (a fresh service, as after a restart) converges on the oracle.
 */
class TestTieringFaults {
    @TempDir
    Path directory;

    /** Partition expiry's steps happen only on tables with a log per partition: TestPartitionExpiry injects those. */
    @ParameterizedTest
    @EnumSource(
            value = TieringStep.class,
            mode = EnumSource.Mode.EXCLUDE,
            names = {"PARTITIONS_EXPIRED_FROM_LOG", "EXPIRY_COMMITTING"})
    void faultAtStepLosesAndDuplicatesNothing(TieringStep faultStep) {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("faulty", 3);
            LakeOracle oracle = new LakeOracle(table);
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .retention(Duration.ZERO)
                    .compactionDeleteFiles(2)
                    .build();

            // A first round succeeds, so the faulty round has a base snapshot, deletes and something to compact.
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 60, "v1"));
            try (TieringService service = new TieringService(warehouse.catalog(), config)) {
                assertThat(service.tierTable(table.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            }
            OffsetMap before =
                    LakePosition.current(warehouse.load("faulty").lake()).offsets();
            oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 30, 60, "v2"));
            oracle.commit(warehouse.allocator(), TieringTests.deletes(0, 10));

            AtomicBoolean fired = new AtomicBoolean();
            TieringHooks fault = (identifier, step, bucket) -> {
                if (step == faultStep && fired.compareAndSet(false, true)) {
                    throw new IllegalStateException("injected fault at " + step);
                }
            };
            TieringResult faulty;
            try (TieringService service = new TieringService(warehouse.catalog(), config, fault, Clock.systemUTC())) {
                faulty = service.tierTable(table.identifier());
            }
            assertThat(fired).as("the fault was injected").isTrue();

            Table lake = warehouse.load("faulty").lake();
            OffsetMap after = LakePosition.current(lake).offsets();
            boolean committed = faultStep == TieringStep.COMMITTED || faultStep == TieringStep.COMPACTION_COMMITTING;
            if (faultStep == TieringStep.COMPACTION_COMMITTING) {
                // Compaction failures do not fail tiering: they are reported and retried next round.
                assertThat(faulty.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                assertThat(faulty.error())
                        .hasValueSatisfying(error -> assertThat(error).contains("injected"));
            } else {
                assertThat(faulty.outcome()).isEqualTo(TieringResult.Outcome.FAILED);
                assertThat(faulty.error())
                        .hasValueSatisfying(error -> assertThat(error).contains("injected"));
            }
            assertThat(after).isEqualTo(committed ? oracle.ends() : before);
            // The lake is consistent with its own offsets right after the fault.
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(after));
            // Files of a commit that did not happen were removed; a landed commit's files are referenced.
            assertThat(TieringTests.orphanDataFiles(lake)).isEmpty();
            if (faultStep == TieringStep.COMMITTED) {
                // Retention did not run in the failed round ...
                assertThat(table.log().latestSnapshot().buckets())
                        .anySatisfy(bucket -> assertThat(bucket.segments()).isNotEmpty());
            }

            // A restarted service converges.
            try (TieringService service = new TieringService(warehouse.catalog(), config)) {
                TieringResult result = service.tierTable(table.identifier());
                assertThat(result.outcome())
                        .isEqualTo(committed ? TieringResult.Outcome.UP_TO_DATE : TieringResult.Outcome.TIERED);
            }
            lake = warehouse.load("faulty").lake();
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(oracle.ends());
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
            // ... and the next round caught up with it.
            assertThat(table.log().latestSnapshot().buckets())
                    .allSatisfy(bucket -> assertThat(bucket.segments()).isEmpty());
            assertThat(TieringTests.orphanDataFiles(lake)).isEmpty();
        }
    }
}
