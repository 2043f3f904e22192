package io.lakestream.reader;

import static io.lakestream.testing.LakestreamAssertions.assertLakestreamError;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A segment a writer staged but did not commit can be read (e.g. for the keys a write is about to publish). */
class TestStagedSegmentReading {
    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTable table;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        table = warehouse.createPrimaryKeyTable("t", 2);
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void readsEveryRowOfAStagedSegmentInOrder() {
        List<StagedSegment> staged = stage(20);
        List<Long> ids = new ArrayList<>();
        for (StagedSegment segment : staged) {
            try (LogRangeReader reader = LogRangeReader.staged(
                    table.log(), segment, table.definition().primaryKeyFields(), warehouse.allocator())) {
                while (reader.hasNext()) {
                    try (LogBatch batch = reader.next()) {
                        BigIntVector id = (BigIntVector) batch.column(0);
                        for (int row = 0; row < batch.rowCount(); row++) {
                            ids.add(id.get(row));
                        }
                    }
                }
            }
        }
        assertThat(ids)
                .containsExactlyInAnyOrderElementsOf(
                        java.util.stream.LongStream.range(0, 20).boxed().toList());
        // nothing was committed by reading
        assertThat(table.log().latestSnapshot().version()).isZero();
    }

    @Test
    void missingStagedSegmentIsNamedAsSuch() throws Exception {
        StagedSegment segment = stage(3).getFirst();
        Files.delete(LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path())));
        assertLakestreamError(
                () -> {
                    try (LogRangeReader reader = LogRangeReader.staged(
                            table.log(), segment, table.definition().primaryKeyFields(), warehouse.allocator())) {
                        reader.hasNext();
                    }
                },
                LakestreamError.STAGED_SEGMENT_MISSING,
                segment.path());
    }

    private List<StagedSegment> stage(int rows) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator(), Clock.systemUTC(), 4)) {
            for (long id = 0; id < rows; id++) {
                writer.upsert(Map.of("id", id, "name", "n" + id, "score", (int) id));
            }
            return writer.prepare();
        }
    }
}
