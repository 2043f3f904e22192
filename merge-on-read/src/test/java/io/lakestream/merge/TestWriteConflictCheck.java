package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.StagedSegment;
import io.lakestream.log.StreamLog.CommitResult;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conflict rule of {@link WriteConflictCheck}, through the real log commit: a write reads the
 * table at a version, stages its changes, another writer commits in between, and the write commits
 * with {@code commitIfNoConflict}. The table is {@code id} (key), {@code name} (a status) and {@code
 * score}.
 */
class TestWriteConflictCheck {
    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private LakestreamTable table;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        table = warehouse.createPrimaryKeyTable("t", 4);
        commit(table, writer -> {
            for (long id = 1; id <= 8; id++) {
                writer.upsert(row(id, id % 2 == 0 ? "active" : "expired", 0));
            }
        });
    }

    @AfterEach
    void tearDown() {
        warehouse.close();
    }

    @Test
    void updateRacingAnUpsertOfTheSameKeyConflicts() {
        long read = version();
        List<StagedSegment> update = stage(table, writer -> {
            writer.delete(Map.of("id", 1L));
            writer.upsert(row(1, "expired", 1));
        });
        commit(table, writer -> writer.upsert(row(1, "expired", 10)));

        // both rules apply: the key is written, and the new row matches the condition
        assertConflict(update, read, Expressions.equal("id", 1L), "id=1");
        // the key rule alone
        assertConflict(update, read, Expressions.alwaysFalse(), "key id=1");
    }

    @Test
    void updateRacingADeleteOfTheSameKeyConflicts() {
        long read = version();
        List<StagedSegment> update = stage(table, writer -> writer.upsert(row(3, "expired", 1)));
        commit(table, writer -> writer.delete(Map.of("id", 3L)));

        assertConflict(update, read, Expressions.equal("id", 3L), "key id=3");
    }

    @Test
    void changesOfOtherKeysOutsideTheConditionCommit() {
        long read = version();
        List<StagedSegment> update = stage(table, writer -> writer.upsert(row(1, "expired", 1)));
        // every bucket changes, but neither key 1 nor a row with id = 1
        commit(table, writer -> {
            for (long id = 2; id <= 8; id++) {
                writer.upsert(row(id, "expired", 5));
            }
            writer.delete(Map.of("id", 9L));
        });

        CommitResult result = commitChecked(update, read, Expressions.equal("id", 1L));
        assertThat(result.alreadyApplied()).isFalse();
        assertThat(result.version()).isEqualTo(read + 2);
    }

    @Test
    void deleteByConditionRacingAReUpsertOfItsRowConflicts() {
        // DELETE WHERE name = 'expired' read keys 1, 3, 5, 7; key 3 is upserted as 'active' in between
        long read = version();
        List<StagedSegment> delete = stage(table, writer -> {
            for (long id = 1; id <= 7; id += 2) {
                writer.delete(Map.of("id", id));
            }
        });
        commit(table, writer -> writer.upsert(row(3, "active", 0)));

        assertConflict(delete, read, Expressions.equal("name", "expired"), "key id=3");
    }

    @Test
    void newRowMatchingTheConditionConflicts() {
        long read = version();
        List<StagedSegment> delete = stage(table, writer -> writer.delete(Map.of("id", 1L)));
        // a row the DELETE would have deleted, had it read after this commit
        commit(table, writer -> writer.upsert(row(20, "expired", 0)));

        assertConflict(delete, read, Expressions.equal("name", "expired"), "id=20");
    }

    @Test
    void newRowOutsideTheConditionCommits() {
        long read = version();
        List<StagedSegment> delete = stage(table, writer -> writer.delete(Map.of("id", 1L)));
        commit(table, writer -> writer.upsert(row(20, "active", 0)));

        assertThat(commitChecked(delete, read, Expressions.equal("name", "expired"))
                        .version())
                .isEqualTo(read + 2);
    }

    @Test
    void unknownConditionResultCountsAsAMatch() {
        long read = version();
        List<StagedSegment> delete = stage(table, writer -> writer.delete(Map.of("id", 1L)));
        // name = 'expired' is unknown for a null name: the check does not bet on the engine's null rules
        Map<String, Object> nullName = new HashMap<>();
        nullName.put("id", 21L);
        nullName.put("name", null);
        nullName.put("score", 0);
        commit(table, writer -> writer.upsert(nullName));

        assertConflict(delete, read, Expressions.equal("name", "expired"), "id=21");
    }

    @Test
    void concurrentDeleteOfAnotherKeyIsNoConflictEvenUnderATrueCondition() {
        long read = version();
        List<StagedSegment> update = stage(table, writer -> writer.upsert(row(1, "expired", 1)));
        commit(table, writer -> writer.delete(Map.of("id", 2L)));

        assertThat(commitChecked(update, read, Expressions.alwaysTrue()).version())
                .isEqualTo(read + 2);
    }

    @Test
    void withoutAKnownConditionEveryConcurrentUpsertConflicts() {
        long read = version();
        List<StagedSegment> update = stage(table, writer -> writer.upsert(row(1, "expired", 1)));
        commit(table, writer -> writer.upsert(row(2, "active", 7)));

        assertConflict(update, read, Expressions.alwaysTrue(), "id=2");
    }

    @Test
    void changesRemovedByRetentionBeforeTheCheckConflict() {
        long read = version();
        LogSnapshot atRead = table.log().latestSnapshot();
        List<StagedSegment> update = stage(table, writer -> writer.upsert(row(1, "expired", 1)));
        commit(table, writer -> writer.upsert(row(2, "active", 7)));
        // retention drops everything up to the new ends (as if tiering had taken it): the change to key 2
        // can no longer be read
        OffsetMap ends = table.log().latestSnapshot().endOffsets();
        assertThat(table.log().removeSegments(ends, Long.MAX_VALUE)).isPositive();
        assertThat(atRead.version()).isEqualTo(read);

        assertConflict(update, read, Expressions.equal("id", 1L), "removed by retention");
    }

    @Test
    void compositeKeysAreComparedInTheirCanonicalEncoding() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "region", Types.StringType.get()),
                Types.NestedField.required(2, "day", Types.DateType.get()),
                Types.NestedField.optional(3, "n", Types.LongType.get()));
        LakestreamTable composite = warehouse.create(
                "composite",
                TableSpec.builder(schema)
                        .primaryKey("region", "day")
                        .bucketCount(2)
                        .build());
        java.time.LocalDate day = java.time.LocalDate.of(2026, 1, 2);
        commit(composite, writer -> writer.upsert(Map.of("region", "eu", "day", day, "n", 1L)));
        long read = composite.log().latestSnapshot().version();
        List<StagedSegment> update =
                stage(composite, writer -> writer.upsert(Map.of("region", "eu", "day", day, "n", 2L)));
        // same region, other day; other region, same day: no conflict
        commit(composite, writer -> {
            writer.upsert(Map.of("region", "eu", "day", day.plusDays(1), "n", 5L));
            writer.upsert(Map.of("region", "us", "day", day, "n", 5L));
        });
        WriteConflictCheck check = new WriteConflictCheck(composite, Expressions.alwaysFalse(), warehouse.allocator());
        assertThat(composite.log().latestSnapshot().version()).isEqualTo(read + 1);
        assertThat(check.findConflict(
                        update, composite.log().snapshot(read), composite.log().latestSnapshot()))
                .isEmpty();
        // the same key
        commit(composite, writer -> writer.upsert(Map.of("region", "eu", "day", day, "n", 9L)));
        assertThat(check.findConflict(
                        update, composite.log().snapshot(read), composite.log().latestSnapshot()))
                .hasValueSatisfying(conflict -> assertThat(conflict).contains("region=eu"));
    }

    @Test
    void aConflictPublishesNothing() {
        long read = version();
        List<StagedSegment> update = stage(table, writer -> writer.upsert(row(1, "expired", 1)));
        commit(table, writer -> writer.upsert(row(1, "expired", 10)));
        long before = version();

        assertConflict(update, read, Expressions.equal("id", 1L), "id=1");
        assertThat(version()).isEqualTo(before);
    }

    @Test
    void conflictInABucketOfAPartitionIsDetected() {
        LakestreamTable scores = PartitionedScores.create(warehouse, "scores", 2);
        commitPartitioned(scores, writer -> {
            writer.upsert(score(1, "eu", 0));
            writer.upsert(score(1, "us", 0));
        });
        long read = scores.log().latestSnapshot().version();
        List<StagedSegment> update = stagePartitioned(scores, writer -> writer.upsert(score(1, "eu", 1)));
        commitPartitioned(scores, writer -> writer.upsert(score(1, "eu", 10)));
        assertThat(scores.log().latestSnapshot().partitions()).hasSize(2);

        // the key rule: the concurrent upsert is only in the eu partition's log
        assertThatThrownBy(() -> commitChecked(scores, update, read, Expressions.alwaysFalse()))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("id=1, region=eu")
                .hasMessageContaining("partition region=eu");
    }

    @Test
    void newRowMatchingTheConditionInANewPartitionConflicts() {
        LakestreamTable scores = PartitionedScores.create(warehouse, "scores", 2);
        commitPartitioned(scores, writer -> writer.upsert(score(1, "eu", 0)));
        long read = scores.log().latestSnapshot().version();
        List<StagedSegment> delete =
                stagePartitioned(scores, writer -> writer.delete(Map.of("id", 1L, "region", "eu")));
        // a row the DELETE WHERE score < 5 would have deleted, in a partition that appeared after its read
        commitPartitioned(scores, writer -> writer.upsert(score(2, "ap", 3)));

        assertThatThrownBy(() -> commitChecked(scores, delete, read, Expressions.lessThan("score", 5)))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("id=2, region=ap");
    }

    @Test
    void changesOfOtherPartitionsOutsideTheConditionCommit() {
        LakestreamTable scores = PartitionedScores.create(warehouse, "scores", 2);
        commitPartitioned(scores, writer -> writer.upsert(score(1, "eu", 0)));
        long read = scores.log().latestSnapshot().version();
        List<StagedSegment> update = stagePartitioned(scores, writer -> writer.upsert(score(1, "eu", 1)));
        // the same id in another partition is another key
        commitPartitioned(scores, writer -> writer.upsert(score(1, "us", 10)));

        assertThat(commitChecked(scores, update, read, Expressions.equal("region", "eu"))
                        .version())
                .isEqualTo(read + 2);
    }

    /**
     * A table without a primary key (Spark's MERGE with only NOT MATCHED clauses appends to one): no key to collide
     * on, so only a new row that the condition may match conflicts; the write's own rows never do.
     */
    @Test
    void withoutAPrimaryKeyOnlyRowsMatchingTheConditionConflict() {
        LakestreamTable events = warehouse.createAppendOnlyTable("events", 2);
        commit(events, writer -> writer.append(row(1, "active", 0)));
        long read = events.log().latestSnapshot().version();
        List<StagedSegment> first = stage(events, writer -> writer.append(row(1, "active", 1)));
        // the same values the write appends, outside its condition: appends do not collide by value
        commit(events, writer -> writer.append(row(1, "active", 1)));
        assertThat(commitChecked(events, first, read, Expressions.equal("name", "expired"))
                        .version())
                .isEqualTo(read + 2);

        long again = events.log().latestSnapshot().version();
        List<StagedSegment> second = stage(events, writer -> writer.append(row(2, "active", 1)));
        commit(events, writer -> writer.append(row(3, "expired", 1)));
        assertThatThrownBy(() -> commitChecked(events, second, again, Expressions.alwaysTrue()))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining("no primary key")
                .hasMessageContaining("retry");
    }

    private void assertConflict(List<StagedSegment> staged, long read, Expression condition, String expected) {
        assertThatThrownBy(() -> commitChecked(staged, read, condition))
                .isInstanceOfSatisfying(
                        LakestreamException.class,
                        e -> assertThat(e.error()).isEqualTo(LakestreamError.LOG_COMMIT_CONFLICT))
                .hasMessageContaining(expected)
                .hasMessageContaining("retry");
    }

    private CommitResult commitChecked(List<StagedSegment> staged, long read, Expression condition) {
        return commitChecked(table, staged, read, condition);
    }

    private CommitResult commitChecked(
            LakestreamTable target, List<StagedSegment> staged, long read, Expression condition) {
        return target.log()
                .commitIfNoConflict(
                        staged,
                        Optional.of("write-" + read),
                        read,
                        new WriteConflictCheck(target, condition, warehouse.allocator()));
    }

    private long version() {
        return table.log().latestSnapshot().version();
    }

    private void commit(LakestreamTable target, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(target, warehouse.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }

    private List<StagedSegment> stage(LakestreamTable target, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(target, warehouse.allocator())) {
            changes.accept(writer);
            return writer.prepare();
        }
    }

    private void commitPartitioned(LakestreamTable target, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(target, warehouse.allocator())) {
            changes.accept(writer);
            writer.commit();
        }
    }

    private List<StagedSegment> stagePartitioned(LakestreamTable target, Consumer<LakestreamWriter> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(target, warehouse.allocator())) {
            changes.accept(writer);
            return writer.prepare();
        }
    }

    private static Map<String, Object> score(long id, String region, int score) {
        return Map.of("id", id, "region", region, "score", score);
    }

    private static Map<String, Object> row(long id, String name, int score) {
        return Map.of("id", id, "name", name, "score", score);
    }
}
