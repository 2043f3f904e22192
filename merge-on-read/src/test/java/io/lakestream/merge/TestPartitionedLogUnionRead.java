package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine-neutral union read of a primary-key table whose log is one log per (partition, bucket): random upserts
 * and deletes over several commits read back exactly as an oracle of what was written says, in full and with a
 * filter on the partition column (which prunes the other partitions' logs).
 */
class TestPartitionedLogUnionRead {
    private static final long SEED = Long.getLong("lakestream.test.seed", 77L);
    private static final List<String> COLUMNS = PartitionedScores.COLUMNS;

    @TempDir
    Path directory;

    @Test
    void primaryKeyChangesAcrossPartitionsReadBackExactly() {
        Random random = new Random(SEED);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            Map<List<Object>, List<Object>> oracle = new HashMap<>();
            for (int commit = 0; commit < 4; commit++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                    PartitionedScores.writeRandomChanges(writer, random, 300, 200, oracle);
                    writer.commit();
                }
            }
            assertThat(table.log().latestSnapshot().partitions()).hasSize(PartitionedScores.REGIONS.size());

            List<List<Object>> all = UnionReads.read(table, ReadOptions.UNION, COLUMNS, warehouse.allocator());
            assertThat(all)
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .containsExactlyInAnyOrderElementsOf(oracle.values());

            List<List<Object>> eu = UnionReads.read(
                    table,
                    ReadOptions.of(ReadMode.UNION).withFilter(Expressions.equal("region", "eu")),
                    COLUMNS,
                    warehouse.allocator());
            List<List<Object>> expectedEu = new ArrayList<>();
            oracle.values().stream().filter(row -> row.get(1).equals("eu")).forEach(expectedEu::add);
            // pruned to the eu partition's logs: no row of another partition is even read
            assertThat(eu).as("seed %s", SEED).containsExactlyInAnyOrderElementsOf(expectedEu);
        }
    }
}
