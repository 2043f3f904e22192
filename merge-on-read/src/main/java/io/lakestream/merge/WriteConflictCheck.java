package io.lakestream.merge;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.BucketLog;
import io.lakestream.log.ChangeType;
import io.lakestream.log.CommitConflictCheck;
import io.lakestream.log.LogSchema;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.OffsetMap;
import io.lakestream.log.PartitionBucket;
import io.lakestream.log.PartitionLog;
import io.lakestream.log.StagedSegment;
import io.lakestream.plan.BucketPruner;
import io.lakestream.plan.LogTail;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamTable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The conflict rule of snapshot isolation for a write planned from a read (UPDATE, DELETE, MERGE),
 * engine-neutral. A change committed after the write's read version conflicts when
 *
 * <ol>
 *   <li>its key is a key the write publishes a change for (any change type: a concurrent delete of
 *       a row the write updates is a conflict too), or
 *   <li>it inserts or upserts a row that the write's {@code condition} may match: the filter the
 *       write's scan was restricted by, evaluated with SQL's three-valued logic where an unknown
 *       result counts as a match. A concurrent delete carries only its key, so it conflicts only
 *       through rule 1.
 * </ol>
 *
 * <p>The condition must be implied by the write's real condition (an engine drops the parts it
 * cannot translate, which only broadens it); {@code alwaysTrue} when the engine knows none, so that
 * every concurrent insert or upsert conflicts. The keys the write publishes are read from its
 * staged segments with the canonical key encoding of the merge ({@link ArrowKeyEncoder}), so the
 * rule does not depend on what an engine reports. A table without a primary key (where Spark runs a
 * MERGE with only NOT MATCHED clauses as an append) has no keys to collide on: only rule 2 applies.
 * Every bucket of the log is checked, and every bucket of
 * every partition of a partitioned table's log ({@link LogTail}); only those the write publishes to, or whose
 * rows the condition can match, are read; the changed keys of a bucket are held in memory while
 * its staged keys stream past them.
 */
public final class WriteConflictCheck implements CommitConflictCheck {
    private final LakestreamTable table;
    private final Expression condition;
    private final BufferAllocator allocator;
    private final List<Types.NestedField> keyFields;
    private final List<Type> keyTypes;
    /** The key columns, then the other columns the condition reads. */
    private final List<Types.NestedField> projection;

    private final ArrowRowFilter conditionFilter;
    private final boolean conditionMatchesNothing;
    /** The buckets the condition can match rows of; empty: all. */
    private final Optional<Set<Integer>> conditionBuckets;

    /**
     * @param table the table written (its current definition: changes are read by field id)
     * @param condition an Iceberg filter over the table's columns that every row the write read
     *     through its condition satisfies
     */
    public WriteConflictCheck(LakestreamTable table, Expression condition, BufferAllocator allocator) {
        this.table = requireNonNull(table, "table is null");
        this.condition = requireNonNull(condition, "condition is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        Schema schema = table.definition().schema();
        this.keyFields = table.definition().primaryKeyFields();
        this.keyTypes = keyFields.stream().map(Types.NestedField::type).toList();
        Set<Integer> conditionFields = Binder.boundReferences(schema.asStruct(), List.of(condition), false);
        List<Types.NestedField> columns = new ArrayList<>(keyFields);
        for (Types.NestedField column : schema.columns()) {
            if (conditionFields.contains(column.fieldId()) && !keyFields.contains(column)) {
                columns.add(column);
            }
        }
        if (columns.isEmpty()) {
            // no key and a condition on no column: one column, so that the reader yields the rows to count
            columns.add(schema.columns().getFirst());
        }
        this.projection = List.copyOf(columns);
        this.conditionFilter = new ArrowRowFilter(new Schema(projection), condition);
        this.conditionMatchesNothing = condition.op() == Expression.Operation.FALSE;
        this.conditionBuckets = BucketPruner.buckets(table, condition);
    }

    @Override
    public Optional<String> findConflict(List<StagedSegment> segments, LogSnapshot checkedFrom, LogSnapshot current) {
        // every bucket, and every bucket of every partition of a partitioned table's log: a change in any of them
        // may conflict (a partition new since the read starts at offset 0)
        Map<WrittenLog, List<StagedSegment>> written = segments.stream()
                .collect(Collectors.groupingBy(
                        segment -> new WrittenLog(segment.partition(), segment.bucket()),
                        LinkedHashMap::new,
                        Collectors.toList()));
        for (LogTail tail : LogTail.of(OffsetMap.EMPTY, current)) {
            // without a key, what the write publishes collides with nothing (rule 1 needs keys)
            List<StagedSegment> writes = keyFields.isEmpty()
                    ? List.of()
                    : written.getOrDefault(
                            new WrittenLog(tail.partition().map(PartitionLog::path), tail.bucket()), List.of());
            boolean conditionReads = !conditionMatchesNothing
                    && (conditionBuckets.isEmpty() || conditionBuckets.get().contains(tail.bucket()));
            if (writes.isEmpty() && !conditionReads) {
                continue;
            }
            Optional<String> conflict = findConflict(tail, writes, conditionReads, checkedFrom, current);
            if (conflict.isPresent()) {
                return conflict;
            }
        }
        return Optional.empty();
    }

    /** The log a staged segment is written to: a bucket, or a bucket of the partition with this path. */
    private record WrittenLog(Optional<String> partition, int bucket) {}

    private Optional<String> findConflict(
            LogTail tail, List<StagedSegment> writes, boolean conditionReads, LogSnapshot from, LogSnapshot current) {
        long start = tail.partition()
                .map(partition -> from.bucket(new PartitionBucket(partition.id(), tail.bucket())))
                .orElseGet(() -> from.bucket(tail.bucket()))
                .endOffset();
        BucketLog now = tail.log();
        if (now.endOffset() == start) {
            return Optional.empty();
        }
        if (now.startOffset() > start) {
            // retention removed changes this write never saw: they cannot be checked, so they may conflict
            return Optional.of(
                    "to %s (offsets [%s, %s)) was removed by retention before it could be checked for conflicts"
                            .formatted(tail.describe(), start, now.startOffset()));
        }
        Set<ByteBuffer> changedKeys = new HashSet<>();
        try (LogRangeReader reader =
                new LogRangeReader(table.log(), current, tail.range(start, now.endOffset()), projection, allocator)) {
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    List<FieldVector> columns = userColumns(batch);
                    List<FieldVector> keys = columns.subList(0, keyFields.size());
                    IntPredicate matches = conditionFilter.mayMatch(columns);
                    ArrowKeyEncoder encoder = new ArrowKeyEncoder(keys, keyTypes);
                    KeyBuffer key = new KeyBuffer();
                    for (int row = 0; row < batch.rowCount(); row++) {
                        if (conditionReads && batch.changeType(row) != ChangeType.DELETE && matches.test(row)) {
                            return Optional.of("wrote a row (%s, %s offset %s) that matches this write's condition %s"
                                    .formatted(
                                            describeKey(keys, row),
                                            tail.describe(),
                                            batch.firstOffset() + row,
                                            condition));
                        }
                        if (!writes.isEmpty()) {
                            encoder.encode(row, key);
                            changedKeys.add(copy(key));
                        }
                    }
                }
            }
        }
        return changedKeys.isEmpty() ? Optional.empty() : findWrittenKey(tail, writes, changedKeys);
    }

    /** The first key of the staged segments that a concurrent change also changed. */
    private Optional<String> findWrittenKey(LogTail tail, List<StagedSegment> writes, Set<ByteBuffer> changedKeys) {
        KeyBuffer key = new KeyBuffer();
        for (StagedSegment segment : writes) {
            try (LogRangeReader reader = LogRangeReader.staged(table.log(), segment, keyFields, allocator)) {
                while (reader.hasNext()) {
                    try (LogBatch batch = reader.next()) {
                        List<FieldVector> keys = userColumns(batch);
                        ArrowKeyEncoder encoder = new ArrowKeyEncoder(keys, keyTypes);
                        for (int row = 0; row < batch.rowCount(); row++) {
                            encoder.encode(row, key);
                            if (changedKeys.contains(ByteBuffer.wrap(key.bytes(), 0, key.length()))) {
                                return Optional.of("changed the row with key %s (%s), which this write also changes"
                                        .formatted(describeKey(keys, row), tail.describe()));
                            }
                        }
                    }
                }
            }
        }
        return Optional.empty();
    }

    private static List<FieldVector> userColumns(LogBatch batch) {
        List<FieldVector> vectors = batch.root().getFieldVectors();
        return vectors.subList(LogSchema.SYSTEM_COLUMN_COUNT, vectors.size());
    }

    private static ByteBuffer copy(KeyBuffer key) {
        return ByteBuffer.wrap(Arrays.copyOf(key.bytes(), key.length()));
    }

    private String describeKey(List<FieldVector> keys, int row) {
        if (keyFields.isEmpty()) {
            return "no primary key";
        }
        List<String> parts = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            parts.add(keyFields.get(i).name() + "=" + keys.get(i).getObject(row));
        }
        return String.join(", ", parts);
    }
}
