package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.io.LocalSync;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.RecordingLogFileSystem;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acknowledged means durable: through the real Java writer, every segment a log commit references is
 * forced and its directory synced before the commit is published, and the commit's directory is synced
 * after (a {@link RecordingLogFileSystem} over the local file system records the order).
 */
class TestLogDurability {
    @TempDir
    Path directory;

    @Test
    void javaWriterCommitsReferenceOnlyDurableSegments() throws Exception {
        RecordingLogFileSystem recording = new RecordingLogFileSystem(new LocalLogFileSystem());
        try (LakestreamCatalog catalog = TestingWarehouse.openCatalog(directory, LocalSync.FSYNC, recording);
                BufferAllocator allocator = new RootAllocator()) {
            LakestreamTable table = catalog.createTable(
                    TableIdentifier.of(TestingWarehouse.NAMESPACE, "t"),
                    TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                            .primaryKey("id")
                            .bucketCount(4)
                            .build());

            // several commits of several buckets, segments of several record batches (batches of 16 rows)
            for (int commit = 0; commit < 3; commit++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, allocator, Clock.systemUTC(), 16)) {
                    for (long id = 0; id < 200; id++) {
                        writer.upsert(row(id, "v" + commit));
                    }
                    writer.commit("commit-" + commit);
                }
            }
            // the distributed path of Spark and Trino: tasks prepare segments, a coordinator commits them all
            List<StagedSegment> staged = new ArrayList<>();
            for (int task = 0; task < 2; task++) {
                LakestreamWriter writer = new LakestreamWriter(table, allocator);
                for (long id = task * 100; id < task * 100 + 100; id++) {
                    writer.upsert(row(id, "task" + task));
                }
                staged.addAll(writer.prepare());
            }
            table.log().commit(staged, java.util.Optional.empty());
            // a retention commit publishes too
            table.log().removeSegments(new OffsetMap(Map.of(0, 200L, 1, 200L, 2, 200L, 3, 200L)), Long.MAX_VALUE);

            recording.assertCommitsDurable(table.log().paths(), 5);
            assertThat(table.log().latestSnapshot().version()).isEqualTo(5);
        }
    }

    private static Map<String, Object> row(long id, String name) {
        Map<String, Object> row = new HashMap<>();
        row.put("id", id);
        row.put("name", name);
        row.put("score", (int) id);
        return row;
    }
}
