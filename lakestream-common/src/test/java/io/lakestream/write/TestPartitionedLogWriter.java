package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.bucket.BucketFunction;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionLog;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.SegmentFileReader;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer routes each row of a partitioned table to the log of its (partition, bucket): checked against an oracle
 * of the rows the test wrote (which partition path and bucket each must land in, in write order), for random rows
 * over several commits, on an append-only table partitioned by {@code day(ts), region} and a primary-key table
 * partitioned by a key column (deletes carry only the key, and land in the key's partition).
 */
class TestPartitionedLogWriter {
    private static final long SEED = Long.getLong("lakestream.test.seed", 21L);
    private static final String[] REGIONS = {"eu", "us", "ap", null};

    @TempDir
    Path directory;

    @Test
    void appendOnlyRowsLandInTheirPartitionAndBucketInWriteOrder() throws IOException {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "region", Types.StringType.get()),
                Types.NestedField.optional(3, "ts", Types.TimestampType.withoutZone()));
        Random random = new Random(SEED);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "events",
                    TableSpec.builder(schema)
                            .bucketKey("id")
                            .bucketCount(3)
                            .partitioning(List.of("day(ts)", "region"))
                            .partitionedLog(true)
                            .build());
            BucketFunction buckets = table.bucketFunction().orElseThrow();
            Map<String, List<String>> expected = new TreeMap<>();
            for (int commit = 0; commit < 3; commit++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                    int rows = 500 + random.nextInt(1500);
                    for (int i = 0; i < rows; i++) {
                        long id = random.nextInt(10_000);
                        String region = REGIONS[random.nextInt(REGIONS.length)];
                        LocalDateTime ts = LocalDateTime.of(2026, 12, 1 + random.nextInt(4), random.nextInt(24), 0);
                        Map<String, Object> row = new HashMap<>();
                        row.put("id", id);
                        row.put("region", region);
                        row.put("ts", ts);
                        writer.append(row);
                        String path = "ts_day=%s/region=%s".formatted(ts.toLocalDate(), region);
                        expected.computeIfAbsent(path + "#" + buckets.bucket(id), k -> new ArrayList<>())
                                .add(ChangeType.INSERT + ":" + id);
                    }
                    writer.commit();
                }
            }
            assertThat(logContent(table))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(expected);
        }
    }

    @Test
    void primaryKeyChangesAndDeletesLandInTheKeysPartition() throws IOException {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "region", Types.StringType.get()),
                Types.NestedField.optional(3, "score", Types.IntegerType.get()));
        Random random = new Random(SEED + 1);
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.create(
                    "scores",
                    TableSpec.builder(schema)
                            .primaryKey("id", "region")
                            .bucketCount(2)
                            .partitioning(List.of("region"))
                            .partitionedLog(true)
                            .build());
            BucketFunction buckets = table.bucketFunction().orElseThrow();
            Map<String, List<String>> expected = new TreeMap<>();
            for (int commit = 0; commit < 3; commit++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                    int rows = 300 + random.nextInt(700);
                    for (int i = 0; i < rows; i++) {
                        long id = random.nextInt(500);
                        String region = REGIONS[random.nextInt(REGIONS.length - 1)];
                        Map<String, Object> row = new HashMap<>();
                        row.put("id", id);
                        row.put("region", region);
                        ChangeType change = random.nextInt(4) == 0 ? ChangeType.DELETE : ChangeType.UPSERT;
                        if (change == ChangeType.DELETE) {
                            writer.delete(row);
                        } else {
                            row.put("score", random.nextInt(100));
                            writer.upsert(row);
                        }
                        expected.computeIfAbsent(
                                        "region=%s#%s".formatted(region, buckets.bucket(id, region)),
                                        k -> new ArrayList<>())
                                .add(change + ":" + id);
                    }
                    writer.commit();
                }
            }
            assertThat(logContent(table))
                    .as("seed %s (-Dlakestream.test.seed)", SEED)
                    .isEqualTo(expected);
        }
    }

    /** Per {@code <partition path>#<bucket>}: the change type and id of every row, in offset order. */
    private static Map<String, List<String>> logContent(LakestreamTable table) throws IOException {
        LogSnapshot snapshot = table.log().latestSnapshot();
        for (int bucket = 0; bucket < snapshot.bucketCount(); bucket++) {
            assertThat(snapshot.bucket(bucket).segments()).isEmpty();
        }
        assertThat(snapshot.partitions())
                .extracting(PartitionLog::id)
                .containsExactlyElementsOf(java.util.stream.IntStream.range(
                                0, snapshot.partitions().size())
                        .boxed()
                        .toList());
        Map<String, List<String>> content = new TreeMap<>();
        for (PartitionLog partition : snapshot.partitions()) {
            for (int bucket = 0; bucket < partition.buckets().size(); bucket++) {
                for (SegmentFile segment : partition.bucket(bucket).segments()) {
                    assertThat(segment.partition()).contains(partition.path());
                    assertThat(segment.partitionId()).contains(partition.id());
                    assertThat(segment.path()).startsWith("p/" + partition.path() + "/bucket-%04d/".formatted(bucket));
                    List<String> rows =
                            content.computeIfAbsent(partition.path() + "#" + bucket, k -> new ArrayList<>());
                    readRows(table, segment, rows);
                }
            }
        }
        return content;
    }

    private static void readRows(LakestreamTable table, SegmentFile segment, List<String> rows) throws IOException {
        Path file = LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path()));
        try (org.apache.arrow.memory.RootAllocator allocator = new org.apache.arrow.memory.RootAllocator();
                SegmentFileReader reader =
                        new SegmentFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator)) {
            for (ArrowBlock block : reader.getRecordBlocks()) {
                reader.loadRecordBatch(block);
                VectorSchemaRoot root = reader.getVectorSchemaRoot();
                TinyIntVector changeTypes = (TinyIntVector) root.getVector(0);
                BigIntVector ids = (BigIntVector) root.getVector("id");
                for (int row = 0; row < root.getRowCount(); row++) {
                    rows.add(ChangeType.fromCode(changeTypes.get(row)) + ":" + ids.get(row));
                }
            }
        }
    }
}
