package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.Seeds;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random inserts, updates and deletes over many buckets, tiering at random points with small,
 * random per-round caps (so ranges are tiered in pieces) and eager compaction and retention. After
 * every round the lake, read with Iceberg's own generic reader, equals the oracle's state at the
 * offsets the lake records, and the offsets never go backwards.
 */
@ExtendWith(Seeds.class)
class TestTieringRandomized {
    private static final Schema COMPOSITE_KEY_SCHEMA = new Schema(
            Types.NestedField.required(1, "tenant", Types.IntegerType.get()),
            Types.NestedField.required(2, "id", Types.LongType.get()),
            Types.NestedField.optional(3, "name", Types.StringType.get()));

    @TempDir
    Path directory;

    @Test
    void primaryKeyTableWithSingleColumnKey() {
        runRandomized(
                "pk_single",
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(7)
                        .build(),
                11);
    }

    @Test
    void primaryKeyTableWithCompositeKey() {
        runRandomized(
                "pk_composite",
                TableSpec.builder(COMPOSITE_KEY_SCHEMA)
                        .primaryKey("tenant", "id")
                        .bucketCount(5)
                        .build(),
                12);
    }

    @Test
    void appendOnlyTableWithBucketKey() {
        runRandomized(
                "append_bucketed",
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .bucketKey("id")
                        .bucketCount(6)
                        .build(),
                13);
    }

    @Test
    void primaryKeyTableCompactedWithoutSorting() {
        // tiering.compaction.sort-max-records = 0: compaction writes rows as read, and the lake stays right
        runRandomized(
                "pk_unsorted",
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .primaryKey("id")
                        .bucketCount(4)
                        .build(),
                14,
                0);
    }

    private void runRandomized(String name, TableSpec spec, long seed) {
        runRandomized(name, spec, seed, TieringConfig.defaults().compactionSortMaxRecords());
    }

    private void runRandomized(String name, TableSpec spec, long seed, long sortMaxRecords) {
        Random random = Seeds.random(seed);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(name, spec);
            LakeOracle oracle = new LakeOracle(table);
            boolean primaryKey = table.definition().hasPrimaryKey();
            OffsetMap previous = OffsetMap.EMPTY;
            int tieredRounds = 0;
            int compactions = 0;
            int compactedFiles = 0;
            for (int step = 0; step < 30; step++) {
                oracle.commit(warehouse.allocator(), randomChanges(random, primaryKey, spec.schema()));
                if (random.nextInt(2) != 0) {
                    continue;
                }
                TieringConfig config = TieringConfig.builder()
                        .maxRecordsPerBucket(1 + random.nextInt(25))
                        .writerThreads(2)
                        .retention(Duration.ZERO)
                        .compactionDeleteFiles(3)
                        .compactionSmallFiles(4)
                        .compactionSortMaxRecords(sortMaxRecords)
                        .build();
                try (TieringService service = new TieringService(warehouse.catalog(), config)) {
                    TieringResult result = service.tierTable(table.identifier());
                    assertThat(result.outcome())
                            .as(result.error().orElse(""))
                            .isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
                    assertThat(result.error()).isEmpty();
                    tieredRounds++;
                    compactions += result.bucketsCompacted().size();
                }
                Table lake = warehouse.load(name).lake();
                OffsetMap offsets = LakePosition.current(lake).offsets();
                for (int bucket = 0; bucket < spec.bucketCount(); bucket++) {
                    assertThat(offsets.offset(bucket)).isGreaterThanOrEqualTo(previous.offset(bucket));
                }
                previous = offsets;
                assertThat(LakeOracle.readLake(lake, table.definition().schema()))
                        .isEqualTo(oracle.stateAt(offsets));
                assertPartitionsMatchBuckets(table, lake);
                if (primaryKey && sortMaxRecords > 0) {
                    compactedFiles += assertCompactedFilesInKeyOrder(table, lake);
                }
            }
            // Catch up completely: the lake then equals the whole log.
            try (TieringService service = new TieringService(
                    warehouse.catalog(),
                    TieringConfig.builder().retention(Duration.ZERO).build())) {
                service.tierTable(table.identifier());
            }
            Table lake = warehouse.load(name).lake();
            OffsetMap offsets = LakePosition.current(lake).offsets();
            OffsetMap ends = oracle.ends();
            for (int bucket = 0; bucket < spec.bucketCount(); bucket++) {
                assertThat(offsets.offset(bucket)).isEqualTo(ends.offset(bucket));
            }
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(ends));
            assertThat(tieredRounds).isGreaterThanOrEqualTo(5);
            // Low thresholds: compaction ran and the lake still matched the oracle after it.
            assertThat(compactions).isPositive();
            // and wrote a primary-key bucket's rows in key order (KeyOrderedRows)
            assertThat(compactedFiles > 0).isEqualTo(primaryKey && sortMaxRecords > 0);
            // Retention removed every fully tiered segment.
            assertThat(table.log().latestSnapshot().buckets())
                    .allSatisfy(bucket -> assertThat(bucket.segments()).isEmpty());
        }
    }

    /** Every data file sits in the lake partition of the bucket its rows hash to. */
    private static void assertPartitionsMatchBuckets(LakestreamTable table, Table lake) {
        if (lake.currentSnapshot() == null) {
            return;
        }
        Set<Integer> partitions = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                partitions.add(task.file().partition().get(0, Integer.class));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        assertThat(partitions)
                .allSatisfy(partition ->
                        assertThat(partition).isBetween(0, table.definition().bucketCount() - 1));
    }

    /** The rows of every live data file compaction wrote ascend by primary key; returns how many files. */
    private static int assertCompactedFilesInKeyOrder(LakestreamTable table, Table lake) {
        if (lake.currentSnapshot() == null) {
            return 0;
        }
        List<String> key = table.definition().primaryKey();
        int files = 0;
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                String location = task.file().location();
                if (!location.contains("compaction-")) {
                    continue;
                }
                files++;
                List<List<Object>> keys = new ArrayList<>();
                try (CloseableIterable<Record> rows = Parquet.read(lake.io().newInputFile(location))
                        .project(lake.schema())
                        .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(lake.schema(), fileSchema))
                        .build()) {
                    for (Record row : rows) {
                        keys.add(key.stream().map(row::getField).toList());
                    }
                }
                assertThat(keys).as(location).isSortedAccordingTo(TestTieringRandomized::compareKeys);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return files;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareKeys(List<Object> left, List<Object> right) {
        for (int i = 0; i < left.size(); i++) {
            int order = ((Comparable) left.get(i)).compareTo(right.get(i));
            if (order != 0) {
                return order;
            }
        }
        return 0;
    }

    private static List<LakeOracle.Change> randomChanges(Random random, boolean primaryKey, Schema schema) {
        int count = 1 + random.nextInt(30);
        List<LakeOracle.Change> changes = new ArrayList<>(count);
        boolean composite = schema.findField("tenant") != null;
        for (int i = 0; i < count; i++) {
            long id = random.nextInt(primaryKey ? 40 : 1_000_000);
            List<Object> row = new ArrayList<>();
            if (composite) {
                row.add(random.nextInt(3));
                row.add(id);
                row.add(random.nextInt(5) == 0 ? null : "n" + random.nextInt(1000));
            } else {
                row.add(id);
                row.add(random.nextInt(5) == 0 ? null : "n" + random.nextInt(1000));
                row.add(random.nextInt(5) == 0 ? null : random.nextInt(100));
            }
            ChangeType type;
            if (!primaryKey) {
                type = ChangeType.INSERT;
            } else if (random.nextInt(4) == 0) {
                type = ChangeType.DELETE;
                for (int column = composite ? 2 : 1; column < row.size(); column++) {
                    row.set(column, null);
                }
            } else {
                type = ChangeType.UPSERT;
            }
            changes.add(new LakeOracle.Change(type, row));
        }
        return changes;
    }
}
