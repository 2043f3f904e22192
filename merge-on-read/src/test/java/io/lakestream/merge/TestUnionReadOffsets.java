package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The optional offset column of the union read: the offset of a log row's change, null for a lake row. */
class TestUnionReadOffsets {
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
    void primaryKeyRowsCarryTheOffsetOfTheirLastChange() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("pk", 2);
        write(table, writer -> {
            writer.upsert(row(1, "a", 10));
            writer.upsert(row(2, "b", 20));
            writer.upsert(row(3, "c", 30));
        });
        tier(table);
        write(table, writer -> {
            writer.upsert(row(2, "b1", 21));
            writer.upsert(row(2, "b2", 22));
            writer.delete(Map.of("id", 3L));
            writer.upsert(row(4, "d", 40));
        });

        Map<Long, Long> lastOffsets = lastChangeOffsets(table);
        Map<Long, Long> offsets = readOffsets(table);
        // the lake row has none; the log rows have the offset of their key's last change
        Map<Long, Long> expected = new HashMap<>();
        expected.put(1L, null);
        expected.put(2L, lastOffsets.get(2L));
        expected.put(4L, lastOffsets.get(4L));
        assertThat(offsets).isEqualTo(expected);
        assertThat(offsets.get(2L)).isNotNull();

        // once tiered every row comes from the lake
        tier(table);
        Map<Long, Long> allLake = new HashMap<>();
        allLake.put(1L, null);
        allLake.put(2L, null);
        allLake.put(4L, null);
        assertThat(readOffsets(table)).isEqualTo(allLake);
    }

    @Test
    void appendOnlyLogRowsCarryTheirOffset() {
        LakestreamTable table = warehouse.createAppendOnlyTable("events", 1);
        write(table, writer -> {
            writer.append(row(1, "a", 10));
            writer.append(row(2, "b", 20));
        });
        tier(table);
        write(table, writer -> writer.append(row(3, "c", 30)));
        Map<Long, Long> expected = new HashMap<>();
        expected.put(1L, null);
        expected.put(2L, null);
        expected.put(3L, 2L);
        assertThat(readOffsets(table)).isEqualTo(expected);
    }

    @Test
    void changesModeRefusesTheOffsetColumn() {
        LakestreamTable table = warehouse.createPrimaryKeyTable("changes", 1);
        write(table, writer -> writer.upsert(row(1, "a", 10)));
        UnionSplit split = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.CHANGES))
                .splits()
                .getFirst();
        assertLakestreamError(
                () -> new UnionSplitReader(
                        table,
                        split,
                        List.of("id"),
                        Expressions.alwaysTrue(),
                        MergeConfig.DEFAULT,
                        new MergeCounters(),
                        warehouse.allocator(),
                        true),
                LakestreamError.INVALID_READ_OPTIONS,
                "returns offsets in its column _offset");
    }

    /** id -> offset column of a union read with offsets. */
    private Map<Long, Long> readOffsets(LakestreamTable table) {
        Map<Long, Long> offsets = new HashMap<>();
        List<String> columns = List.of("id", "name");
        for (UnionSplit split : UnionReadPlanner.plan(table, ReadOptions.UNION).splits()) {
            try (UnionSplitReader reader = new UnionSplitReader(
                    table,
                    split,
                    columns,
                    Expressions.alwaysTrue(),
                    MergeConfig.DEFAULT,
                    new MergeCounters(),
                    warehouse.allocator(),
                    true)) {
                assertThat(reader.outputFields().getLast()).isEqualTo(UnionSplitReader.OFFSET_FIELD);
                while (reader.hasNext()) {
                    try (VectorSchemaRoot batch = reader.next()) {
                        assertThat(batch.getFieldVectors()).hasSize(columns.size() + 1);
                        BigIntVector ids = (BigIntVector) batch.getVector(0);
                        BigIntVector offsetColumn = (BigIntVector) batch.getVector(columns.size());
                        for (int row = 0; row < batch.getRowCount(); row++) {
                            assertThat(offsets).doesNotContainKey(ids.get(row));
                            offsets.put(ids.get(row), offsetColumn.isNull(row) ? null : offsetColumn.get(row));
                        }
                    }
                }
            }
        }
        return offsets;
    }

    /** id -> offset of the key's last change, from the changes read mode. */
    private Map<Long, Long> lastChangeOffsets(LakestreamTable table) {
        Map<Long, Long> offsets = new HashMap<>();
        List<List<Object>> changes =
                UnionReads.read(table, ReadOptions.of(ReadMode.CHANGES), List.of("id"), warehouse.allocator());
        // rows: change type, bucket, offset, commit time, id; one key stays in one bucket
        for (List<Object> change : new ArrayList<>(changes)) {
            offsets.merge((Long) change.get(4), (Long) change.get(2), Math::max);
        }
        return offsets;
    }

    private void write(LakestreamTable table, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }

    private void tier(LakestreamTable table) {
        new TableTiering(TieringConfig.defaults(), warehouse.allocator(), threads, TieringHooks.NONE, Clock.systemUTC())
                .tier(table);
    }
}
