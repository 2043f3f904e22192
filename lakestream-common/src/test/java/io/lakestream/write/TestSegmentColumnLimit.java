package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.SegmentFileReader;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Arrow holds at most 1 GiB of one variable-width column in a record batch ({@link
 * SegmentWriter#MAX_COLUMN_BYTES}). Checked the same way with a small limit, so no test allocates
 * gigabytes: values that together pass the limit start new record batches (nothing is refused), and a
 * single value over it is an INVALID_ROW that says what to do, with nothing committed.
 */
class TestSegmentColumnLimit {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "text", Types.StringType.get()),
            Types.NestedField.optional(3, "blob", Types.BinaryType.get()));
    private static final int LIMIT = 1_000;

    @TempDir
    Path directory;

    @Test
    void valuesPassingTheLimitTogetherStartNewRecordBatches() throws Exception {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "big", TableSpec.builder(SCHEMA).bucketCount(1).build());
            List<String> texts = new ArrayList<>();
            List<Integer> blobLengths = new ArrayList<>();
            try (LakestreamWriter writer =
                    new LakestreamWriter(table, warehouse.allocator(), Clock.systemUTC(), 8192, LIMIT)) {
                for (int id = 0; id < 40; id++) {
                    // 300-byte texts: three fit a batch; blobs of varying size, some rows null
                    String text = id % 7 == 6
                            ? null
                            : Character.toString('a' + id % 26).repeat(300);
                    int blobLength = (id * 137) % 900;
                    Map<String, Object> row = new HashMap<>();
                    row.put("id", (long) id);
                    row.put("text", text);
                    row.put("blob", new byte[blobLength]);
                    writer.append(row);
                    texts.add(text);
                    blobLengths.add(blobLength);
                }
                writer.commit();
            }

            List<String> readTexts = new ArrayList<>();
            List<Integer> readBlobLengths = new ArrayList<>();
            int batches = 0;
            for (SegmentFile segment : table.log().latestSnapshot().bucket(0).segments()) {
                Path file = LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path()));
                try (SegmentFileReader reader =
                        new SegmentFileReader(FileChannel.open(file, StandardOpenOption.READ), warehouse.allocator())) {
                    for (ArrowBlock block : reader.getRecordBlocks()) {
                        reader.loadRecordBatch(block);
                        VectorSchemaRoot root = reader.getVectorSchemaRoot();
                        VarCharVector text = (VarCharVector) root.getVector("text");
                        VarBinaryVector blob = (VarBinaryVector) root.getVector("blob");
                        assertThat(text.getOffsetBuffer().getInt((long) root.getRowCount() * 4))
                                .isLessThanOrEqualTo(LIMIT);
                        assertThat(blob.getOffsetBuffer().getInt((long) root.getRowCount() * 4))
                                .isLessThanOrEqualTo(LIMIT);
                        for (int row = 0; row < root.getRowCount(); row++) {
                            readTexts.add(text.isNull(row) ? null : new String(text.get(row), StandardCharsets.UTF_8));
                            readBlobLengths.add(blob.get(row).length);
                        }
                        batches++;
                    }
                }
            }
            assertThat(readTexts).isEqualTo(texts);
            assertThat(readBlobLengths).isEqualTo(blobLengths);
            assertThat(batches).isGreaterThan(10);
        }
    }

    @Test
    void aValueOverTheLimitIsAnInvalidRowAndNothingIsCommitted() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "big", TableSpec.builder(SCHEMA).bucketCount(1).build());
            for (boolean typed : List.of(false, true)) {
                LakestreamWriter writer =
                        new LakestreamWriter(table, warehouse.allocator(), Clock.systemUTC(), 8192, LIMIT);
                writer.append(Map.of("id", 1L, "text", "small"));
                if (typed) {
                    writer.row().setLong(0, 2L);
                    writer.row().setBytes(2, new byte[LIMIT + 1], 0, LIMIT + 1);
                    writer.appendRow();
                } else {
                    writer.append(Map.of("id", 2L, "text", "x".repeat(LIMIT + 1)));
                }
                String column = typed ? "blob" : "text";
                assertThatThrownBy(writer::commit)
                        .isInstanceOfSatisfying(
                                LakestreamException.class,
                                e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_ROW))
                        .hasMessage(
                                "[INVALID_ROW] Invalid row: column '%s' holds a value of %s bytes, more than a column of a log record batch can hold (%s bytes, Arrow's buffer limit); store such large objects elsewhere (e.g. in files) and write a reference to them",
                                column, LIMIT + 1, LIMIT);
                writer.close();
            }
            assertThat(table.log().latestSnapshot().version()).isZero();
        }
    }
}
