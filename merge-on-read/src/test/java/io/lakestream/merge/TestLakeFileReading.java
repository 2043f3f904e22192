package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The vectorized lake reader on lake files that stock engines may produce: position deletes, evolved schemas, many row groups. */
class TestLakeFileReading {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "score", Types.IntegerType.get()),
            Types.NestedField.optional(4, "price", Types.DecimalType.of(9, 2)),
            Types.NestedField.optional(5, "ratio", Types.FloatType.get()));

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private ExecutorService threads;
    private LakestreamTable table;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        threads = Executors.newFixedThreadPool(2);
        table = warehouse.create(
                "t", TableSpec.builder(SCHEMA).primaryKey("id").bucketCount(2).build());
    }

    @AfterEach
    void tearDown() {
        threads.shutdownNow();
        warehouse.close();
    }

    @Test
    void manyRowGroupsAndByteRangeSplitsReadEveryRowOnce() {
        table.lake()
                .updateProperties()
                .set("write.parquet.row-group-size-bytes", "4096")
                .set("write.parquet.page-size-bytes", "1024")
                .set("read.split.target-size", "8192")
                .commit();
        writeRows(0, 3000);
        tier();
        var plan = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE));
        assertThat(plan.splits().size()).as("byte-range splits").isGreaterThan(2);
        List<List<Object>> rows =
                UnionReads.read(table, ReadOptions.of(ReadMode.LAKE), List.of("id", "name"), warehouse.allocator());
        assertThat(rows).hasSize(3000);
        assertThat(rows.stream().map(row -> row.get(0))).doesNotHaveDuplicates();
        assertThat(rows).contains(List.of(1234L, "name-1234"));
    }

    @Test
    void positionDeletesWrittenByAnotherEngineAreApplied() throws Exception {
        writeRows(0, 100);
        tier();
        Table lake = table.lake();
        lake.refresh();
        // delete the first two rows of one data file, as an engine's merge-on-read DELETE would
        DataFile dataFile;
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            dataFile = tasks.iterator().next().file();
        }
        List<Long> deletedIds = new ArrayList<>();
        // ids of the first two rows of that file, in file order, read with Iceberg's own reader
        try (CloseableIterable<Record> records = Parquet.read(lake.io().newInputFile(dataFile.location()))
                .project(lake.schema())
                .createReaderFunc(fileSchema ->
                        org.apache.iceberg.data.parquet.GenericParquetReaders.buildReader(lake.schema(), fileSchema))
                .build()) {
            for (Record record : records) {
                deletedIds.add((Long) record.getField("id"));
                if (deletedIds.size() == 2) {
                    break;
                }
            }
        }
        PositionDeleteWriter<Record> writer = Parquet.writeDeletes(lake.io()
                        .newOutputFile(
                                directory.resolve("pos-deletes.parquet").toUri().toString()))
                .withSpec(lake.specs().get(dataFile.specId()))
                .withPartition(dataFile.partition())
                .overwrite()
                .buildPositionWriter();
        try (writer) {
            writer.write(PositionDelete.<Record>create().set(dataFile.location(), 0L));
            writer.write(PositionDelete.<Record>create().set(dataFile.location(), 1L));
        }
        DeleteFile deletes = writer.toDeleteFile();
        long tiered = lake.currentSnapshot().snapshotId();
        lake.newRowDelta().addDeletes(deletes).commit();

        List<List<Object>> lakeRows =
                UnionReads.read(table, ReadOptions.of(ReadMode.LAKE), List.of("id"), warehouse.allocator());
        assertThat(lakeRows).hasSize(98).doesNotContain(List.of(deletedIds.get(0)), List.of(deletedIds.get(1)));
        // a union read refuses a lake another engine changed: the log knows nothing of these deletes
        assertThatThrownBy(() -> UnionReads.read(table, ReadOptions.UNION, List.of("id"), warehouse.allocator()))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LAKE_LAYOUT_MISMATCH))
                .hasMessageContaining("was not written by Lakestream");

        // position deletes in a snapshot Lakestream recognizes as its own are applied by the union reader too
        lake.manageSnapshots().rollbackTo(tiered).commit();
        RowDelta own = lake.newRowDelta().addDeletes(deletes);
        LakePosition.summary(
                        LakePosition.current(lake).offsets(),
                        LakePosition.current(lake).logVersion())
                .forEach(own::set);
        own.commit();
        List<List<Object>> unionRows =
                UnionReads.read(warehouse.load("t"), ReadOptions.UNION, List.of("id"), warehouse.allocator());
        assertThat(unionRows).hasSize(98);
    }

    @Test
    void evolvedLakeSchemaReadsByFieldId() {
        writeRows(0, 10);
        tier();
        // a renamed and an added column keep the log readable: columns are resolved by field id
        table.lake()
                .updateSchema()
                .renameColumn("name", "label")
                .addColumn("extra", Types.StringType.get())
                .commit();
        List<List<Object>> rows = UnionReads.read(
                warehouse.load("t"),
                ReadOptions.UNION,
                List.of("id", "label", "score", "ratio", "price", "extra"),
                warehouse.allocator());
        List<Object> expected = new ArrayList<>(List.of(3L, "name-3", 3, 1.5f, new java.math.BigDecimal("3.25")));
        expected.add(null);
        assertThat(rows).hasSize(10).contains(expected);

        // promoted types: the lake files read promoted, but the log holds the old types, so a union read refuses
        warehouse
                .load("t")
                .lake()
                .updateSchema()
                .updateColumn("score", Types.LongType.get())
                .updateColumn("ratio", Types.DoubleType.get())
                .updateColumn("price", Types.DecimalType.of(12, 2))
                .commit();
        LakestreamTable evolved = warehouse.load("t");
        List<List<Object>> lakeRows = UnionReads.read(
                evolved,
                ReadOptions.of(ReadMode.LAKE),
                List.of("id", "label", "score", "ratio", "price", "extra"),
                warehouse.allocator());
        List<Object> promoted = new ArrayList<>(List.of(3L, "name-3", 3L, 1.5d, new java.math.BigDecimal("3.25")));
        promoted.add(null);
        assertThat(lakeRows).hasSize(10).contains(promoted);
        assertThatThrownBy(() -> UnionReads.read(evolved, ReadOptions.UNION, List.of("id"), warehouse.allocator()))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LAKE_LAYOUT_MISMATCH))
                .hasMessageContaining("column 'score' changed type from int to long");
    }

    @Test
    void lateMaterializationReadsTheSameRowsAsAFullReadThenSelection() {
        table.lake()
                .updateProperties()
                .set("write.parquet.row-group-size-bytes", "8192")
                .set("write.parquet.page-size-bytes", "1024")
                .commit();
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = 0; id < 20_000; id++) {
                Map<String, Object> row = new HashMap<>();
                row.put("id", id);
                row.put("name", id % 7 == 0 ? null : "name-" + id);
                row.put("score", id % 5 == 0 ? null : (int) id);
                row.put("price", id % 11 == 0 ? null : java.math.BigDecimal.valueOf(id * 100 + 25, 2));
                row.put("ratio", id % 3 == 0 ? null : (float) id);
                writer.upsert(row);
            }
            writer.commit();
        }
        tier();
        Schema readSchema = table.definition().schema();
        var plan = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE));
        // which rows survive: none of some batches, all of others, scattered rows and runs elsewhere
        java.util.function.LongPredicate keep =
                id -> (id / 8192) % 4 == 1 || ((id / 8192) % 4 != 2 && id % 13 % 4 != 0);
        for (boolean[] early : List.of(
                new boolean[] {true, false, false, false, false},
                new boolean[] {true, false, true, false, true},
                new boolean[] {false, false, false, false, false})) {
            List<List<Object>> expected = new ArrayList<>();
            List<List<Object>> actual = new ArrayList<>();
            long positions = 0;
            for (var split : plan.splits()) {
                for (var file : split.lakeFiles()) {
                    try (LakeFileReader reader = new LakeFileReader(
                            table.lake().io(),
                            file,
                            readSchema,
                            readSchema,
                            Expressions.alwaysTrue(),
                            warehouse.allocator())) {
                        while (reader.hasNext()) {
                            try (LakeBatch batch = reader.next()) {
                                for (int row = 0; row < batch.root().getRowCount(); row++) {
                                    if (keep.test(batch.firstRowPosition() + row)) {
                                        expected.add(values(batch.root(), row));
                                    }
                                }
                            }
                        }
                    }
                    try (LakeFileReader reader = new LakeFileReader(
                            table.lake().io(),
                            file,
                            readSchema,
                            readSchema,
                            Expressions.alwaysTrue(),
                            warehouse.allocator())) {
                        Selection selection = Selection.all(0);
                        while (reader.hasNext()) {
                            try (VectorSchemaRoot batch = reader.nextSelected(early, selection, (root, first, rows) -> {
                                if (early[0]) {
                                    // the early column is readable; the others are not decoded yet
                                    assertThat(root.getVector(0).getValueCount())
                                            .isEqualTo(root.getRowCount());
                                }
                                rows.retain(row -> keep.test(first + row));
                            })) {
                                positions += selection.size();
                                assertThat(batch.getRowCount()).isEqualTo(selection.size());
                                for (int row = 0; row < batch.getRowCount(); row++) {
                                    actual.add(values(batch, row));
                                }
                            }
                        }
                    }
                }
            }
            assertThat(actual)
                    .as("early columns %s", java.util.Arrays.toString(early))
                    .isEqualTo(expected);
            assertThat(positions).isEqualTo(expected.size());
            assertThat(expected).isNotEmpty();
            assertThat(expected.stream().filter(row -> row.contains(null))).isNotEmpty();
        }
    }

    private static List<Object> values(VectorSchemaRoot root, int row) {
        List<Object> values = new ArrayList<>();
        for (var vector : root.getFieldVectors()) {
            Object value = vector.getObject(row);
            values.add(value instanceof org.apache.arrow.vector.util.Text text ? text.toString() : value);
        }
        return values;
    }

    private void writeRows(int from, int to) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = from; id < to; id++) {
                Map<String, Object> row = new HashMap<>();
                row.put("id", id);
                row.put("name", "name-" + id);
                row.put("score", (int) id);
                row.put("price", java.math.BigDecimal.valueOf(id * 100 + 25, 2));
                row.put("ratio", 1.5f);
                writer.upsert(row);
            }
            writer.commit();
        }
    }

    private void tier() {
        TieringConfig config = TieringConfig.builder()
                .retention(Duration.ofDays(1))
                .compactionDeleteFiles(1)
                .build();
        new TableTiering(config, warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC()).tier(table);
    }
}
