package io.lakestream.reader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog.CommitResult;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLakestreamWriter {
    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTable keyed;
    private LakestreamTable appendOnly;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        keyed = warehouse.createPrimaryKeyTable("keyed", 4);
        appendOnly = warehouse.createAppendOnlyTable("append_only", 4);
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void rowsGoToTheBucketOfTheirKey() {
        try (LakestreamWriter writer = new LakestreamWriter(keyed, warehouse.allocator())) {
            for (long id = 0; id < 200; id++) {
                writer.upsert(Map.of("id", id, "name", "n" + id));
            }
            writer.commit();
        }
        List<ChangeRecord> changes = TestTypeRoundTrip.readAll(keyed, warehouse);
        assertThat(changes).hasSize(200);
        for (ChangeRecord change : changes) {
            assertThat(change.bucket())
                    .isEqualTo(keyed.bucketFunction()
                            .orElseThrow()
                            .bucket(change.row().getField("id")));
        }
        assertThat(changes.stream().map(ChangeRecord::bucket).distinct()).hasSize(4);
    }

    @Test
    void appendOnlyRowsSpreadOverBuckets() {
        try (LakestreamWriter writer = new LakestreamWriter(appendOnly, warehouse.allocator())) {
            for (long id = 0; id < 100; id++) {
                writer.append(Map.of("id", id));
            }
            writer.commit();
        }
        var snapshot = appendOnly.log().latestSnapshot();
        for (int bucket = 0; bucket < 4; bucket++) {
            assertThat(snapshot.bucket(bucket).endOffset()).isEqualTo(25);
        }
    }

    @Test
    void acceptsIcebergRecords() {
        Record record = GenericRecord.create(keyed.definition().schema());
        record.setField("id", 9L);
        record.setField("score", 3);
        try (LakestreamWriter writer = new LakestreamWriter(keyed, warehouse.allocator())) {
            writer.upsert(record);
            writer.commit();
        }
        assertThat(TestTypeRoundTrip.readAll(keyed, warehouse)).singleElement().satisfies(change -> {
            assertThat(change.row().getField("id")).isEqualTo(9L);
            assertThat(change.row().getField("score")).isEqualTo(3);
        });
    }

    @Test
    void recordsOfDifferentStructsInOneWriterAreReadByName() {
        // the writer resolves a record struct's field positions once and reuses them while the struct repeats
        Schema narrow = new Schema(
                Types.NestedField.optional(7, "score", Types.IntegerType.get()),
                Types.NestedField.required(8, "id", Types.LongType.get()));
        try (LakestreamWriter writer = new LakestreamWriter(keyed, warehouse.allocator())) {
            for (long id = 0; id < 6; id++) {
                Record record =
                        GenericRecord.create(id % 3 == 0 ? keyed.definition().schema() : narrow);
                record.setField("id", id);
                record.setField("score", (int) id * 10);
                writer.upsert(record);
            }
            writer.commit();
        }
        assertThat(TestTypeRoundTrip.readAll(keyed, warehouse)).hasSize(6).allSatisfy(change -> {
            long id = (Long) change.row().getField("id");
            assertThat(change.row().getField("score")).isEqualTo((int) id * 10);
            assertThat(change.row().getField("name")).isNull();
        });
        Record unknown = GenericRecord.create(new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(9, "colour", Types.StringType.get())));
        unknown.setField("id", 1L);
        assertRejected(keyed, writer -> writer.upsert(unknown), LakestreamError.INVALID_ROW, "unknown column 'colour'");
    }

    @Test
    void invalidRowsAreRejectedAndNothingOfTheirTransactionIsVisible() throws IOException {
        assertRejected(
                keyed,
                writer -> writer.upsert(Map.of("id", "not a number")),
                LakestreamError.INVALID_ROW,
                "column 'id' of type long cannot hold String 'not a number'; expected Java type: Long or Integer");
        assertRejected(
                keyed,
                writer -> writer.upsert(Map.of("name", "no key")),
                LakestreamError.INVALID_ROW,
                "primary key column 'id' is null");
        assertRejected(
                keyed,
                writer -> writer.upsert(Map.of("id", 1L, "colour", "red")),
                LakestreamError.INVALID_ROW,
                "unknown column 'colour'");
        assertRejected(
                keyed,
                writer -> writer.upsert(Map.of("id", 1L, "score", 2L)),
                LakestreamError.INVALID_ROW,
                "column 'score' of type int cannot hold Long '2'; expected Java type: Integer");
        assertRejected(
                keyed,
                writer -> writer.append(Map.of("id", 1L)),
                LakestreamError.UNSUPPORTED_OPERATION,
                "has a primary key [id]: use upsert and delete instead of append");
        assertRejected(
                appendOnly,
                writer -> writer.delete(Map.of("id", 1L)),
                LakestreamError.UNSUPPORTED_OPERATION,
                "is an append-only table (it has no primary key): delete is not supported");
        assertRejected(
                appendOnly,
                writer -> writer.append(Map.of("name", "x")),
                LakestreamError.INVALID_ROW,
                "column 'id' is NOT NULL but the row has no value for it");
        assertThat(keyed.log().latestSnapshot().version()).isZero();
        assertThat(appendOnly.log().latestSnapshot().version()).isZero();
        assertThat(segmentFiles(keyed)).isEmpty();
        assertThat(segmentFiles(appendOnly)).isEmpty();
    }

    @Test
    void aWriterThatDiesBeforeCommitLeavesNothingVisible() throws IOException {
        LakestreamWriter writer = new LakestreamWriter(keyed, warehouse.allocator());
        // more rows than one row batch (1,024), so the writer has written segments
        for (long id = 0; id < 5000; id++) {
            writer.upsert(Map.of("id", id));
        }
        // The "process" stops here: segments are on disk, no commit was published.
        assertThat(segmentFiles(keyed)).isNotEmpty();
        assertThat(warehouse.load("keyed").log().latestSnapshot().version()).isZero();
        assertThat(TestTypeRoundTrip.readAll(warehouse.load("keyed"), warehouse))
                .isEmpty();
        writer.abort();
        assertThat(segmentFiles(keyed)).isEmpty();
    }

    @Test
    void retriedCommitWithTheSameKeyIsAppliedOnce() throws IOException {
        CommitResult first = writeAndCommit(keyed, "job-42");
        CommitResult retried = writeAndCommit(warehouse.load("keyed"), "job-42");
        assertThat(first.alreadyApplied()).isFalse();
        assertThat(retried).isEqualTo(new CommitResult(first.version(), true));
        assertThat(TestTypeRoundTrip.readAll(keyed, warehouse)).hasSize(10);
        // the retry's own segments were discarded
        assertThat(segmentFiles(keyed))
                .hasSize(keyed.log().latestSnapshot().buckets().stream()
                        .mapToInt(b -> b.segments().size())
                        .sum());
    }

    @Test
    void distributedWriteCommitsAllTasksAtOnceOrNothing() throws IOException {
        // two "tasks" prepare segments; the "driver" publishes them as one commit
        List<StagedSegment> staged = new ArrayList<>();
        for (int task = 0; task < 2; task++) {
            LakestreamWriter writer = new LakestreamWriter(keyed, warehouse.allocator());
            for (long id = 0; id < 20; id++) {
                writer.upsert(Map.of("id", task * 100 + id));
            }
            staged.addAll(writer.prepare());
        }
        assertThat(keyed.log().latestSnapshot().version()).isZero();
        CommitResult result = keyed.log().commit(staged, Optional.of("query-1"));
        assertThat(result.version()).isEqualTo(1);
        assertThat(TestTypeRoundTrip.readAll(keyed, warehouse)).hasSize(40);

        // an aborted job: its prepared segments are discarded and never become visible
        LakestreamWriter aborted = new LakestreamWriter(keyed, warehouse.allocator());
        aborted.upsert(Map.of("id", 999L));
        List<StagedSegment> abortedSegments = aborted.prepare();
        keyed.log().discard(abortedSegments);
        assertThat(keyed.log().latestSnapshot().version()).isEqualTo(1);
        assertThat(segmentFiles(keyed)).hasSize(staged.size());
    }

    @Test
    void committedWriterCannotBeReused() {
        LakestreamWriter writer = new LakestreamWriter(keyed, warehouse.allocator());
        writer.upsert(Map.of("id", 1L));
        writer.commit();
        assertThatThrownBy(() -> writer.upsert(Map.of("id", 2L))).hasMessageContaining("already committed");
    }

    private CommitResult writeAndCommit(LakestreamTable table, String key) {
        try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
            for (long id = 0; id < 10; id++) {
                writer.upsert(Map.of("id", id));
            }
            return writer.commit(key);
        }
    }

    private void assertRejected(
            LakestreamTable table,
            java.util.function.Consumer<LakestreamWriter> badWrite,
            LakestreamError error,
            String message) {
        LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator());
        Map<String, Object> good = new HashMap<>();
        good.put("id", 100L);
        if (table.definition().hasPrimaryKey()) {
            writer.upsert(good);
        } else {
            writer.append(good);
        }
        assertThatThrownBy(() -> badWrite.accept(writer))
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(error))
                .hasMessageContaining(message);
        if (error == LakestreamError.INVALID_ROW) {
            // the good row written before the bad one must not be committed either
            assertThatThrownBy(writer::commit)
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.INVALID_ROW))
                    .hasMessageContaining("was aborted");
        }
        writer.close();
    }

    private static List<Path> segmentFiles(LakestreamTable table) throws IOException {
        Path root = LocalLogFileSystem.toPath(table.log().paths().root());
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".arrow")).toList();
        }
    }
}
