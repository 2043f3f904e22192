package io.lakestream.reader;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.SegmentFile;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Log segments compressed with ZSTD (the default of new tables) and uncompressed ones, alone and in one range. */
class TestLogSegmentCompression {
    /** A few thousand rows per commit, values repeating as real tables' do: compressible. */
    private static final int ROWS = 4000;

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void newTablesCompressWithZstdUnlessTheyChooseNone() throws IOException {
        LakestreamTable byDefault = warehouse.createAppendOnlyTable("by_default", 1);
        LakestreamTable none = create("none", "none");
        assertThat(byDefault.lake().properties()).containsEntry(LogCompression.PROPERTY, "zstd");
        assertThat(none.lake().properties()).containsEntry(LogCompression.PROPERTY, "none");

        write(byDefault, 0);
        write(none, 0);
        long compressed = onlySegmentSize(byDefault);
        long uncompressed = onlySegmentSize(none);
        // the same rows: the zstd segment is a fraction of the uncompressed one, whose size is what Arrow writes
        assertThat(compressed).isLessThan(uncompressed / 3);
        assertThat(readRows(byDefault, 0, ROWS)).isEqualTo(readRows(none, 0, ROWS));
        assertThat(readRows(byDefault, 0, ROWS)).isEqualTo(expectedRows(0, ROWS));
    }

    /**
     * A table switched from {@code none} to {@code zstd} (and back) holds both kinds in one bucket; one range over
     * them reads every row, whatever the table's property says now.
     */
    @Test
    void oneRangeReadsCompressedAndUncompressedSegments() throws IOException {
        write(create("mixed", "none"), 0);
        alter("mixed", Optional.of("zstd"));
        write(warehouse.load("mixed"), ROWS);
        alter("mixed", Optional.of("NONE"));
        LakestreamTable table = warehouse.load("mixed");
        write(table, 2 * ROWS);

        List<SegmentFile> segments = table.log().latestSnapshot().bucket(0).segments();
        assertThat(segments).hasSize(3);
        assertThat(segments.get(1).sizeBytes()).isLessThan(segments.get(0).sizeBytes() / 3);
        assertThat(segments.get(2).sizeBytes()).isEqualTo(segments.get(0).sizeBytes());
        // an uncompressed segment is what every segment was before: a reader without codecs (an older Lakestream) reads
        // it; a compressed one needs the codec
        assertThat(rowsWithoutCodecs(table, segments.get(0))).isEqualTo(ROWS);
        assertThatThrownBy(() -> rowsWithoutCodecs(table, segments.get(1))).hasMessageContaining("ZSTD");

        assertThat(readRows(table, 0, 3 * ROWS)).isEqualTo(expectedRows(0, 3 * ROWS));
        // ranges starting and ending inside segments of either kind
        assertThat(readRows(table, ROWS - 7, 2 * ROWS + 11)).isEqualTo(expectedRows(ROWS - 7, 2 * ROWS + 11));
    }

    @Test
    void resettingThePropertyChoosesTheDefault() {
        create("reset", "none");
        alter("reset", Optional.empty());
        assertThat(warehouse.load("reset").lake().properties()).containsEntry(LogCompression.PROPERTY, "zstd");
    }

    /** A table created before the property existed has none, and keeps writing what its readers can read. */
    @Test
    void tablesWithoutThePropertyWriteUncompressed() throws IOException {
        warehouse
                .createAppendOnlyTable("older", 1)
                .lake()
                .updateProperties()
                .remove(LogCompression.PROPERTY)
                .commit();
        LakestreamTable table = warehouse.load("older");
        write(table, 0);
        assertThat(rowsWithoutCodecs(table, onlySegment(table))).isEqualTo(ROWS);
        assertThat(readRows(table, 0, ROWS)).isEqualTo(expectedRows(0, ROWS));
    }

    @Test
    void unknownCompressionsAreRefused() {
        assertLakestreamError(
                () -> create("lz4", "lz4"),
                LakestreamError.INVALID_TABLE_DEFINITION,
                "lakestream.log.compression = 'lz4' is not a log compression; use one of ['none', 'zstd']");
        assertThat(warehouse.catalog().listTables(TestingWarehouse.NAMESPACE)).isEmpty();

        create("altered", "zstd");
        assertLakestreamError(
                () -> alter("altered", Optional.of("gzip")),
                LakestreamError.INVALID_TABLE_DEFINITION,
                "Table db.altered: lakestream.log.compression = 'gzip' is not a log compression");
        assertThat(warehouse.load("altered").lake().properties()).containsEntry(LogCompression.PROPERTY, "zstd");

        // set behind Lakestream's back (a stock engine's ALTER): the writer refuses before it writes anything
        LakestreamTable table = warehouse.load("altered");
        table.lake().updateProperties().set(LogCompression.PROPERTY, "snappy").commit();
        LakestreamTable changed = warehouse.load("altered");
        assertLakestreamError(
                () -> new LakestreamWriter(changed, warehouse.allocator()).close(),
                LakestreamError.INVALID_TABLE_DEFINITION,
                "lakestream.log.compression = 'snappy' is not a log compression");
    }

    /** A damaged compressed batch is a corrupt segment, reported with its file and offsets like any other. */
    @Test
    void aDamagedCompressedSegmentIsCorrupt() throws IOException {
        LakestreamTable table = create("damaged", "zstd");
        write(table, 0);
        Path file = LocalLogFileSystem.toPath(
                table.log().paths().resolve(onlySegment(table).path()));
        ArrowBlock firstBatch;
        try (ArrowFileReader reader =
                new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), warehouse.allocator())) {
            firstBatch = reader.getRecordBlocks().getFirst();
        }
        // overwrite the second half of the first batch's body (its compressed buffers) with a pattern
        long bodyStart = firstBatch.getOffset() + firstBatch.getMetadataLength();
        long bodyLength = firstBatch.getBodyLength();
        byte[] garbage = new byte[(int) (bodyLength / 2)];
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = (byte) (i * 31 + 7);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(java.nio.ByteBuffer.wrap(garbage), bodyStart + bodyLength - garbage.length);
        }
        // every buffer of the failed batch is released (Arrow's own loader leaks those it decompressed for a column
        // when a later buffer of that column fails)
        try (BufferAllocator allocator = new RootAllocator()) {
            assertLakestreamError(
                    () -> readRows(table, 0, ROWS, allocator),
                    LakestreamError.LOG_CORRUPT,
                    "(bucket 0, offsets [0, %s)) has an unreadable record batch".formatted(ROWS));
            assertThat(allocator.getAllocatedMemory()).isZero();
        }
    }

    private LakestreamTable create(String name, String compression) {
        return warehouse.create(
                name,
                TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                        .bucketCount(1)
                        .properties(Map.of(LogCompression.PROPERTY, compression))
                        .build());
    }

    private void alter(String name, Optional<String> compression) {
        warehouse
                .catalog()
                .alterTable(
                        TableIdentifier.of(TestingWarehouse.NAMESPACE, name),
                        List.of(new SchemaChange.SetLogCompression(compression)));
    }

    /** One commit of {@link #ROWS} rows, ids from {@code firstId}. */
    private void write(LakestreamTable table, long firstId) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = firstId; id < firstId + ROWS; id++) {
                writer.append(Map.of("id", id, "name", name(id), "score", (int) (id % 10)));
            }
            writer.commit();
        }
    }

    private static String name(long id) {
        return "customer-" + (id % 50);
    }

    private static List<String> expectedRows(long from, long to) {
        List<String> rows = new ArrayList<>();
        for (long id = from; id < to; id++) {
            rows.add(id + "," + name(id));
        }
        return rows;
    }

    private List<String> readRows(LakestreamTable table, long from, long to) {
        return readRows(table, from, to, warehouse.allocator());
    }

    private List<String> readRows(LakestreamTable table, long from, long to, BufferAllocator allocator) {
        LogSnapshot snapshot = table.log().latestSnapshot();
        List<String> rows = new ArrayList<>();
        try (LogRangeReader reader = new LogRangeReader(
                table.log(), snapshot, 0, from, to, table.definition().schema().columns(), allocator)) {
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    BigIntVector ids = (BigIntVector) batch.root().getVector(2);
                    VarCharVector names = (VarCharVector) batch.root().getVector(3);
                    for (int i = 0; i < batch.root().getRowCount(); i++) {
                        rows.add(ids.get(i) + "," + names.getObject(i));
                    }
                }
            }
        }
        return rows;
    }

    /** Rows of a segment read with Arrow's plain reader, which knows no codec. */
    private long rowsWithoutCodecs(LakestreamTable table, SegmentFile segment) throws IOException {
        Path file = LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path()));
        long rows = 0;
        try (ArrowFileReader reader =
                new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), warehouse.allocator())) {
            while (reader.loadNextBatch()) {
                rows += reader.getVectorSchemaRoot().getRowCount();
            }
        }
        return rows;
    }

    private static SegmentFile onlySegment(LakestreamTable table) {
        List<SegmentFile> segments = table.log().latestSnapshot().bucket(0).segments();
        assertThat(segments).hasSize(1);
        return segments.getFirst();
    }

    private static long onlySegmentSize(LakestreamTable table) throws IOException {
        SegmentFile segment = onlySegment(table);
        long onDisk = Files.size(LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path())));
        assertThat(segment.sizeBytes()).isEqualTo(onDisk);
        return onDisk;
    }
}
