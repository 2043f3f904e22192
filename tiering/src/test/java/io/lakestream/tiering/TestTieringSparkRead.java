package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.IsolatedStockIcebergSpark;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A stock engine we did not write reads the lake: Spark with the Iceberg runtime, through an Iceberg
 * JDBC catalog on the same warehouse. Its result equals the oracle at the lake's offsets, with
 * equality deletes of primary-key tables applied by Spark's own Iceberg reader.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(Seeds.class)
class TestTieringSparkRead {
    private Path directory;
    private TestingWarehouse warehouse;
    private IsolatedStockIcebergSpark spark;

    @BeforeAll
    void startSpark() throws Exception {
        directory = Files.createTempDirectory("tiering-spark");
        warehouse = new TestingWarehouse(directory);
        CatalogConfig config = CatalogConfig.embedded(directory);
        // The JDBC catalog keys tables by catalog name, so Spark's catalog has the same name as ours; the
        // runtime is on this module's test class path
        spark = new IsolatedStockIcebergSpark(
                List.of(),
                IsolatedStockIcebergSpark.jdbcCatalog(
                        LakestreamCatalog.DEFAULT_NAME,
                        config.icebergProperties().get("uri"),
                        directory.toString()));
    }

    @AfterAll
    void stopSpark() throws Exception {
        if (spark != null) {
            spark.close();
        }
        if (warehouse != null) {
            warehouse.close();
        }
    }

    @Test
    void sparkReadsPrimaryKeyLakeAsTheOracle() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("pk_spark", 4);
        assertSparkMatchesOracleWhileTiering(table, true);
    }

    @Test
    void sparkReadsAppendOnlyLakeAsTheOracle() {
        LakestreamTable table = warehouse.create(
                "append_spark",
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA).bucketCount(3).build());
        assertSparkMatchesOracleWhileTiering(table, false);
    }

    @Test
    void sparkPrunesBucketsLikeTheBucketFunction() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("pruned_spark", 8);
        LakeOracle oracle = new LakeOracle(table);
        oracle.commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 200, "p"));
        tier(table);
        // A key predicate prunes to one bucket partition: a wrong partition value would lose the row.
        for (long id : new long[] {0, 17, 123, 199}) {
            List<List<Object>> rows = spark.query("SELECT id, name FROM lakestream.db.pruned_spark WHERE id = " + id);
            assertThat(rows).containsExactly(List.of(id, "p" + id));
        }
    }

    private void assertSparkMatchesOracleWhileTiering(LakestreamTable table, boolean primaryKey) {
        LakeOracle oracle = table.bucketFunction().isPresent() ? new LakeOracle(table) : null;
        Random random = Seeds.random(7);
        long nextAppendId = 0;
        List<List<Object>> appended = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            if (primaryKey) {
                oracle.commit(warehouse.allocator(), randomKeyChanges(random));
            } else {
                // No bucket key: rows spread round robin, so compare whole rounds (everything is tiered).
                List<LakeOracle.Change> rows = TieringTests.rows(ChangeType.INSERT, nextAppendId, 50, "r");
                nextAppendId += 50;
                try (var writer = new io.lakestream.write.LakestreamWriter(table, warehouse.allocator())) {
                    for (LakeOracle.Change change : rows) {
                        writer.append(java.util.Map.of(
                                "id",
                                change.row().get(0),
                                "name",
                                change.row().get(1),
                                "score",
                                change.row().get(2)));
                        appended.add(change.row());
                    }
                    writer.commit();
                }
            }
            tier(table);
            OffsetMap offsets = LakePosition.current(
                            warehouse.load(table.identifier().name()).lake())
                    .offsets();
            List<List<Object>> expected = primaryKey ? oracle.stateAt(offsets) : LakeOracle.sorted(appended);
            assertThat(sparkRows(table.identifier().name())).isEqualTo(expected);
        }
    }

    private void tier(LakestreamTable table) {
        try (TieringService service = new TieringService(warehouse.catalog(), TieringConfig.defaults())) {
            TieringResult result = service.tierTable(table.identifier());
            assertThat(result.outcome()).as(result.error().orElse("")).isEqualTo(TieringResult.Outcome.TIERED);
        }
    }

    private List<List<Object>> sparkRows(String name) {
        spark.query("REFRESH TABLE lakestream.db." + name);
        return LakeOracle.sorted(spark.query("SELECT id, name, score FROM lakestream.db." + name));
    }

    private static List<LakeOracle.Change> randomKeyChanges(Random random) {
        List<LakeOracle.Change> changes = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            long id = random.nextInt(50);
            List<Object> row = new ArrayList<>();
            row.add(id);
            if (random.nextInt(4) == 0) {
                row.add(null);
                row.add(null);
                changes.add(new LakeOracle.Change(ChangeType.DELETE, row));
            } else {
                row.add("v" + random.nextInt(1000));
                row.add(random.nextInt(5) == 0 ? null : random.nextInt(100));
                changes.add(new LakeOracle.Change(ChangeType.UPSERT, row));
            }
        }
        return changes;
    }
}
