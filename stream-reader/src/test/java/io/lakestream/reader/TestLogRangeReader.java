package io.lakestream.reader;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PinnedStreamLog;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StreamLog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLogRangeReader {
    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTable table;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        table = warehouse.createAppendOnlyTable("events", 1);
        // three commits of 10 rows, record batches of 4 rows: segments [0,10) [10,20) [20,30)
        for (int commit = 0; commit < 3; commit++) {
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), Clock.systemUTC(), 4)) {
                for (int i = 0; i < 10; i++) {
                    long id = commit * 10L + i;
                    writer.append(Map.of("id", id, "name", "row-" + id, "score", (int) id * 2));
                }
                writer.commit();
            }
        }
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void everyRangeReturnsExactlyItsOffsets() {
        LogSnapshot snapshot = table.log().latestSnapshot();
        for (long from = 0; from <= 30; from += 3) {
            for (long to = from; to <= 30; to += 7) {
                assertThat(readIds(snapshot, from, to, table.definition().schema()))
                        .as("[%s, %s)", from, to)
                        .isEqualTo(range(from, to));
            }
        }
    }

    @Test
    void batchesCarryTheirFirstOffsetAndProjection() {
        LogSnapshot snapshot = table.log().latestSnapshot();
        List<Types.NestedField> projection = List.of(
                table.definition().schema().findField("score"),
                table.definition().schema().findField("id"));
        try (LogRangeReader reader =
                new LogRangeReader(table.log(), snapshot, 0, 5, 25, projection, warehouse.allocator())) {
            long expectedOffset = 5;
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    assertThat(batch.firstOffset()).isEqualTo(expectedOffset);
                    assertThat(batch.root().getFieldVectors()).hasSize(4);
                    assertThat(batch.column(0).getField().getName()).isEqualTo("score");
                    for (int row = 0; row < batch.rowCount(); row++) {
                        long id = ((BigIntVector) batch.column(1)).get(row);
                        assertThat(id).isEqualTo(batch.firstOffset() + row);
                        assertThat(batch.column(0).getObject(row)).isEqualTo((int) id * 2);
                    }
                    expectedOffset += batch.rowCount();
                }
            }
            assertThat(expectedOffset).isEqualTo(25);
        }
    }

    @Test
    void columnsAreResolvedByFieldIdAcrossSchemaChanges() {
        table.lake()
                .updateSchema()
                .renameColumn("name", "label")
                .addColumn("extra", Types.IntegerType.get())
                .commit();
        LakestreamTable evolved = warehouse.load("events");
        try (LakestreamWriter writer = new LakestreamWriter(evolved, warehouse.allocator())) {
            writer.append(Map.of("id", 30L, "label", "new", "extra", 5));
            writer.commit();
        }
        Schema schema = evolved.definition().schema();
        List<ChangeRecord> changes = new ArrayList<>();
        LogSnapshot snapshot = evolved.log().latestSnapshot();
        try (ChangelogReader reader =
                new ChangelogReader(evolved.log(), snapshot, 0, 8, 31, schema, warehouse.allocator())) {
            reader.forEachRemaining(changes::add);
        }
        assertThat(changes).hasSize(23);
        assertThat(changes.getFirst().row().getField("label")).isEqualTo("row-8");
        assertThat(changes.getFirst().row().getField("extra")).isNull();
        assertThat(changes.getLast().row().getField("label")).isEqualTo("new");
        assertThat(changes.getLast().row().getField("extra")).isEqualTo(5);
    }

    @Test
    void rangeRemovedByRetentionIsAClearError() {
        LogSnapshot pinned = table.log().latestSnapshot();
        assertThat(table.log().removeSegments(new OffsetMap(Map.of(0, 20L)), Long.MAX_VALUE))
                .isEqualTo(2);
        LogSnapshot latest = table.log().latestSnapshot();
        assertLakestreamError(
                () -> new LogRangeReader(table.log(), latest, 0, 5, 25, List.of(), warehouse.allocator()),
                LakestreamError.LOG_RANGE_REMOVED,
                "Offsets [5, 20) of bucket 0");
        // A reader that pinned the old version finds the files gone: also reported as removed, not as corruption.
        assertLakestreamError(
                () -> readIds(pinned, 0, 30, table.definition().schema()),
                LakestreamError.LOG_RANGE_REMOVED,
                "removed by retention");
        assertThat(readIds(latest, 20, 30, table.definition().schema())).isEqualTo(range(20, 30));
    }

    /**
     * A query pins the log (engines read through a {@link PinnedStreamLog}), then retention removes the tiered
     * segments it planned to read: the read is told its range was removed and to re-run, not that the log is
     * corrupt. A segment the newest log still holds but whose file is gone stays corruption.
     */
    @Test
    void pinnedReadWhoseSegmentsRetentionRemovedIsToldToRerun() throws Exception {
        PinnedStreamLog pinned =
                new PinnedStreamLog(table.log(), table.log().latestSnapshot().version());
        LogSnapshot snapshot = pinned.latestSnapshot();
        assertThat(table.log().removeSegments(new OffsetMap(Map.of(0, 20L)), Long.MAX_VALUE))
                .isEqualTo(2);
        assertLakestreamError(
                () -> readBatches(pinned, snapshot, 0, 30),
                LakestreamError.LOG_RANGE_REMOVED,
                "Offsets [0, 10) of bucket 0 in log %s were removed by retention while this read ran (the log now starts at 20; retention removes only changes the lake already holds). Re-run the query"
                        .formatted(table.log().paths().root()));

        SegmentFile third = snapshot.bucket(0).segments().get(2);
        Files.delete(LocalLogFileSystem.toPath(table.log().paths().resolve(third.path())));
        assertLakestreamError(
                () -> readBatches(pinned, snapshot, 20, 30),
                LakestreamError.LOG_CORRUPT,
                "offsets [20, 30)) is missing");
    }

    @Test
    void rangeBeyondTheEndIsRejected() {
        LogSnapshot snapshot = table.log().latestSnapshot();
        assertLakestreamError(
                () -> new LogRangeReader(table.log(), snapshot, 0, 10, 31, List.of(), warehouse.allocator()),
                LakestreamError.LOG_RANGE_INVALID,
                "Cannot read offsets [10, 31) of bucket 0: at log version 3 the bucket holds [0, 30)");
    }

    @Test
    void missingSegmentNamesFileAndOffsets() throws Exception {
        LogSnapshot snapshot = table.log().latestSnapshot();
        SegmentFile second = snapshot.bucket(0).segments().get(1);
        Files.delete(LocalLogFileSystem.toPath(table.log().paths().resolve(second.path())));
        assertLakestreamError(
                () -> readIds(snapshot, 0, 30, table.definition().schema()),
                LakestreamError.LOG_CORRUPT,
                "Log segment %s (bucket 0, offsets [10, 20)) is missing"
                        .formatted(table.log().paths().resolve(second.path())));
    }

    /**
     * A read that pinned the log before its table was dropped (or dropped and re-created at the same location)
     * finds its segments gone: that is the table's drop, not a corrupt log, and the reader says so.
     */
    @Test
    void segmentsOfADroppedTableAreReportedAsTheDrop() {
        StreamLog pinned =
                new PinnedStreamLog(table.log(), table.log().latestSnapshot().version());
        LogSnapshot snapshot = pinned.latestSnapshot();
        TableIdentifier identifier = TableIdentifier.of(TestingWarehouse.NAMESPACE, "events");
        warehouse.catalog().dropTable(identifier);
        assertLakestreamError(
                () -> readBatches(pinned, snapshot, 0, 30),
                LakestreamError.TABLE_DROPPED,
                "was dropped while this read ran");

        warehouse.createAppendOnlyTable("events", 1);
        assertLakestreamError(
                () -> readBatches(pinned, snapshot, 0, 30), LakestreamError.TABLE_DROPPED, "Re-run the query");
    }

    @Test
    void truncatedSegmentIsCorrupt() throws Exception {
        LogSnapshot snapshot = table.log().latestSnapshot();
        SegmentFile first = snapshot.bucket(0).segments().getFirst();
        Path file = LocalLogFileSystem.toPath(table.log().paths().resolve(first.path()));
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2), StandardOpenOption.TRUNCATE_EXISTING);
        assertLakestreamError(
                () -> readIds(snapshot, 0, 10, table.definition().schema()),
                LakestreamError.LOG_CORRUPT,
                "offsets [0, 10)) cannot be read");
    }

    /** Reads a range of bucket 0 through {@code log}; returns the batches' row counts. */
    private List<Integer> readBatches(StreamLog log, LogSnapshot snapshot, long from, long to) {
        List<Integer> rowCounts = new ArrayList<>();
        try (LogRangeReader reader = new LogRangeReader(log, snapshot, 0, from, to, List.of(), warehouse.allocator())) {
            reader.forEachRemaining(batch -> {
                rowCounts.add(batch.rowCount());
                batch.close();
            });
        }
        return rowCounts;
    }

    private List<Long> readIds(LogSnapshot snapshot, long from, long to, Schema schema) {
        List<Long> ids = new ArrayList<>();
        Map<Long, Long> offsets = new HashMap<>();
        try (ChangelogReader reader =
                new ChangelogReader(table.log(), snapshot, 0, from, to, schema, warehouse.allocator())) {
            reader.forEachRemaining(change -> {
                long id = (Long) change.row().getField("id");
                ids.add(id);
                offsets.put(id, change.offset());
            });
        }
        // ids were written equal to their offsets
        offsets.forEach((id, offset) -> assertThat(offset).isEqualTo(id));
        return ids;
    }

    private static List<Long> range(long from, long to) {
        List<Long> values = new ArrayList<>();
        for (long i = from; i < to; i++) {
            values.add(i);
        }
        return values;
    }
}
