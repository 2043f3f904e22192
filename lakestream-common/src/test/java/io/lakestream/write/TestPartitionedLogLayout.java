package io.lakestream.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StagedSegment;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.TestingWarehouse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log never mixes layouts: whether a partitioned table's log is one log per bucket or per (partition, bucket) is
 * recorded in its identity record when the table is created, every writer (the public constructors, which Trino,
 * Spark and the Java API use) routes by that record, and a commit of segments of the other layout is refused.
 */
class TestPartitionedLogLayout {
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "region", Types.StringType.get()));

    @TempDir
    Path directory;

    @Test
    void tableCreatedWithAPartitionedLogIsWrittenPerPartition() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = create(warehouse, "partitioned", Optional.of(true));
            assertThat(identityRecord(table)).contains("\"partitionedLog\":true");
            writeTwoRegions(table, warehouse);

            LogSnapshot snapshot = table.log().latestSnapshot();
            assertThat(snapshot.partitions())
                    .extracting(partition -> partition.path())
                    .containsExactlyInAnyOrder("region=eu", "region=us");
            assertThat(snapshot.endOffsets().offsets())
                    .allSatisfy((bucket, end) -> assertThat(end).isZero());
            // a handle loaded later (another engine, another process) reads the layout from the record
            assertThat(warehouse.load("partitioned").log().isPartitionedLog()).isTrue();
            // $offsets: one row per (partition, bucket), with the partition path
            assertThat(UnionReadPlanner.freshness(table, ReadOptions.UNION))
                    .extracting(bucket -> bucket.partition().orElseThrow() + "#" + bucket.bucket())
                    .containsExactlyInAnyOrder("region=eu#0", "region=eu#1", "region=us#0", "region=us#1");
        }
    }

    @Test
    void partitionedTableGetsAPartitionedLogUnlessItsSpecSaysOtherwise() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            // what the engines' CREATE TABLE asks for: a spec that does not name the layout
            LakestreamTable table = create(warehouse, "by_default", Optional.empty());
            assertThat(identityRecord(table)).contains("\"partitionedLog\":true");
            writeTwoRegions(table, warehouse);
            assertThat(table.log().latestSnapshot().partitions())
                    .extracting(partition -> partition.path())
                    .containsExactlyInAnyOrder("region=eu", "region=us");
            // an unpartitioned table has no partitions to keep logs of: the default does not apply
            LakestreamTable unpartitioned = warehouse.create(
                    "unpartitioned", TableSpec.builder(SCHEMA).bucketCount(2).build());
            assertThat(identityRecord(unpartitioned)).doesNotContain("partitionedLog");
            assertThat(unpartitioned.log().isPartitionedLog()).isFalse();
        }
    }

    @Test
    void partitionedTableWithAPerBucketLogKeepsIt() throws IOException {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            // every partitioned table created before partitioned logs were the default has this record: no field
            LakestreamTable table = create(warehouse, "per_bucket", Optional.of(false));
            assertThat(identityRecord(table)).doesNotContain("partitionedLog");
            writeTwoRegions(table, warehouse);
            assertPerBucket(table, 2);
            assertThat(warehouse.load("per_bucket").log().isPartitionedLog()).isFalse();

            // a table from before identity records has none: loading it writes a per-bucket one, whatever the default
            table.log().fileSystem().delete(table.log().paths().identity());
            LakestreamTable adopted = warehouse.load("per_bucket");
            assertThat(identityRecord(adopted)).doesNotContain("partitionedLog");
            assertThat(adopted.log().isPartitionedLog()).isFalse();
            writeTwoRegions(adopted, warehouse);
            assertPerBucket(adopted, 4);
        }
    }

    private static void assertPerBucket(LakestreamTable table, long rows) {
        LogSnapshot snapshot = table.log().latestSnapshot();
        assertThat(snapshot.partitions()).isEmpty();
        assertThat(snapshot.endOffsets().offsets().values().stream()
                        .mapToLong(Long::longValue)
                        .sum())
                .isEqualTo(rows);
        // $offsets as for an unpartitioned table: one row per bucket, no partition
        assertThat(UnionReadPlanner.freshness(table, ReadOptions.UNION))
                .extracting(bucket -> bucket.partition().orElse("NULL") + "#" + bucket.bucket())
                .containsExactly("NULL#0", "NULL#1");
    }

    @Test
    void partitionSegmentsAreRefusedByAPerBucketLog() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = create(warehouse, "per_bucket", Optional.of(false));
            List<StagedSegment> staged = stage(table, warehouse).stream()
                    .map(segment -> withPartition(segment, Optional.of("region=eu")))
                    .toList();

            assertLayoutRefused(table, staged, "for partition region=eu");
        }
    }

    @Test
    void perBucketSegmentsAreRefusedByAPartitionedLog() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = create(warehouse, "partitioned", Optional.of(true));
            // e.g. staged by a writer of a version that does not read the identity record
            List<StagedSegment> staged = stage(table, warehouse).stream()
                    .map(segment -> withPartition(segment, Optional.empty()))
                    .toList();

            assertLayoutRefused(table, staged, "for a bucket without a partition");
        }
    }

    private static void assertLayoutRefused(LakestreamTable table, List<StagedSegment> staged, String expected) {
        long before = table.log().latestSnapshot().version();
        assertThatThrownBy(() -> table.log().commit(staged, Optional.empty()))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_LAYOUT_MISMATCH))
                .hasMessageContaining(expected)
                .hasMessageContaining("Nothing was committed");
        assertThat(table.log().latestSnapshot().version()).isEqualTo(before);
    }

    private static LakestreamTable create(TestingWarehouse warehouse, String name, Optional<Boolean> partitionedLog) {
        TableSpec.Builder spec = TableSpec.builder(SCHEMA).bucketCount(2).partitioning(List.of("region"));
        partitionedLog.ifPresent(spec::partitionedLog);
        return warehouse.create(name, spec.build());
    }

    private static void writeTwoRegions(LakestreamTable table, TestingWarehouse warehouse) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.append(Map.of("id", 1L, "region", "eu"));
            writer.append(Map.of("id", 2L, "region", "us"));
            writer.commit();
        }
    }

    private static List<StagedSegment> stage(LakestreamTable table, TestingWarehouse warehouse) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            writer.append(Map.of("id", 1L, "region", "eu"));
            return writer.prepare();
        }
    }

    private static StagedSegment withPartition(StagedSegment segment, Optional<String> partition) {
        return new StagedSegment(
                segment.bucket(),
                segment.path(),
                segment.rowCount(),
                segment.sizeBytes(),
                segment.minTimestampMicros(),
                segment.maxTimestampMicros(),
                partition);
    }

    private static String identityRecord(LakestreamTable table) throws IOException {
        byte[] record = table.log()
                .fileSystem()
                .readIfExists(table.log().paths().identity())
                .orElseThrow();
        return new String(record, StandardCharsets.UTF_8);
    }
}
