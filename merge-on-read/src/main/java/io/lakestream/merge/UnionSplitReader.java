package io.lakestream.merge;

import static com.google.common.base.Preconditions.checkArgument;
import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSchema;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionLog;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * Reads one split into Arrow batches of the requested columns: the engine-neutral union read, used
 * by Spark and by tests. For a primary-key split with a log tail it merges by key (see
 * docs/merge.md): index the tail's last change per key, drop lake rows whose key is in the index,
 * emit the tail's last upserts. The filter is applied to lake rows and, only at output, to the
 * tail's upserts, so a new version failing the filter still hides the old one. Key and filter
 * columns are read even when not requested.
 *
 * <p>On request each batch ends with {@link #OFFSET_FIELD}: the log offset of the change that produced
 * a row of the log tail, null for a lake row (the lake keeps no offsets).
 */
public final class UnionSplitReader implements Iterator<VectorSchemaRoot>, AutoCloseable {
    /** The optional last output column: a log row's offset in its bucket, null for a lake row. */
    public static final Field OFFSET_FIELD =
            new Field("__offset", FieldType.nullable(new ArrowType.Int(64, true)), null);

    private final LakestreamTable table;
    private final UnionSplit split;
    private final Expression filter;
    /** What the lake files' row groups are pruned with: the filter and what prunes only ({@link #projected}). */
    private final Expression rowGroupFilter;

    private final MergeCounters counters;
    private final BufferAllocator allocator;
    private final Schema readSchema;
    private final int[] outputColumns;
    private final List<Field> outputFields;
    /** The output fields of the requested user columns (without system columns). */
    private final List<Field> userFields;

    private final boolean withOffsets;
    private final ArrowRowFilter rowFilter;
    private final Set<Integer> filterFieldIds;
    private final LakeFileDeletes deletes;
    private final Deque<Supplier<Iterator<VectorSchemaRoot>>> stages = new ArrayDeque<>();
    private Iterator<VectorSchemaRoot> current = Collections.emptyIterator();
    private VectorSchemaRoot next;
    // resolved once per split: every pass reads the log at the split's pinned version
    private LogSnapshot logSnapshot;

    public UnionSplitReader(
            LakestreamTable table,
            UnionSplit split,
            List<String> columns,
            Expression filter,
            MergeConfig config,
            MergeCounters counters,
            BufferAllocator allocator) {
        this(table, split, columns, filter, config, counters, allocator, false);
    }

    /**
     * @param withOffsets whether each batch ends with {@link #OFFSET_FIELD} (not for the changes read
     *     mode, whose batches carry the offset among their change columns)
     */
    public UnionSplitReader(
            LakestreamTable table,
            UnionSplit split,
            List<String> columns,
            Expression filter,
            MergeConfig config,
            MergeCounters counters,
            BufferAllocator allocator,
            boolean withOffsets) {
        this(
                table,
                split,
                wholeColumns(table.definition().schema(), columns),
                filter,
                filter,
                config,
                counters,
                allocator,
                withOffsets,
                null);
    }

    /**
     * Reads columns that may be narrowed to some of their nested fields ({@link NestedPruning}): a narrowed struct
     * comes back with only those fields, read from only their Parquet columns and Arrow children.
     *
     * @param columns top-level columns of the table, each whole or narrowed
     */
    public static UnionSplitReader projected(
            LakestreamTable table,
            UnionSplit split,
            List<Types.NestedField> columns,
            Expression filter,
            MergeConfig config,
            MergeCounters counters,
            BufferAllocator allocator,
            boolean withOffsets) {
        return projected(
                table, split, columns, filter, Expressions.alwaysTrue(), config, counters, allocator, withOffsets);
    }

    /**
     * {@link #projected}, skipping the lake row groups that {@code lakePruning} cannot match by their statistics, but
     * never filtering rows with it: a filter the engine applies itself (on fields of struct columns, {@code r.a},
     * which the row filter does not evaluate). Only lake rows are pruned; the log is read whole, so a primary-key
     * merge still sees every change (a pruned lake row fails the engine's filter, so it is never returned).
     */
    public static UnionSplitReader projected(
            LakestreamTable table,
            UnionSplit split,
            List<Types.NestedField> columns,
            Expression filter,
            Expression lakePruning,
            MergeConfig config,
            MergeCounters counters,
            BufferAllocator allocator,
            boolean withOffsets) {
        return new UnionSplitReader(
                table,
                split,
                columns,
                filter,
                Expressions.and(filter, lakePruning),
                config,
                counters,
                allocator,
                withOffsets,
                null);
    }

    /**
     * Reads the last upserts of a tail indexed beforehand, filtered: the tail of a split whose lake rows an
     * engine reads with its own reader, dropping the keys {@link IndexedTail#changedKeys()} holds.
     *
     * @param tailOnly the split without its lake files: its log range is the tail's
     */
    public static UnionSplitReader tailWinners(
            LakestreamTable table,
            UnionSplit tailOnly,
            IndexedTail tail,
            List<String> columns,
            Expression filter,
            MergeCounters counters,
            BufferAllocator allocator,
            boolean withOffsets) {
        return projectedTailWinners(
                table,
                tailOnly,
                tail,
                wholeColumns(table.definition().schema(), columns),
                filter,
                counters,
                allocator,
                withOffsets);
    }

    /** {@link #tailWinners} of columns that may be narrowed to some of their nested fields ({@link #projected}). */
    public static UnionSplitReader projectedTailWinners(
            LakestreamTable table,
            UnionSplit tailOnly,
            IndexedTail tail,
            List<Types.NestedField> columns,
            Expression filter,
            MergeCounters counters,
            BufferAllocator allocator,
            boolean withOffsets) {
        checkArgument(
                tailOnly.lakeFiles().isEmpty()
                        && tailOnly.mergeByKey()
                        && tailOnly.logRange().equals(Optional.of(tail.range())),
                "not the tail-only split of the indexed tail %s: %s",
                tail.range(),
                tailOnly);
        return new UnionSplitReader(
                table, tailOnly, columns, filter, filter, MergeConfig.DEFAULT, counters, allocator, withOffsets, tail);
    }

    private UnionSplitReader(
            LakestreamTable table,
            UnionSplit split,
            List<Types.NestedField> columns,
            Expression filter,
            Expression rowGroupFilter,
            MergeConfig config,
            MergeCounters counters,
            BufferAllocator allocator,
            boolean withOffsets,
            IndexedTail indexedTail) {
        if (withOffsets && split.mode() == ReadMode.CHANGES) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "The changes read mode returns offsets in its column " + ChangeColumns.OFFSET);
        }
        this.withOffsets = withOffsets;
        this.table = table;
        this.split = split;
        this.filter = filter;
        this.rowGroupFilter = rowGroupFilter;
        this.counters = counters;
        this.allocator = allocator;
        Schema schema = table.definition().schema();
        this.readSchema = readSchema(schema, columns, table.definition().primaryKey(), filter, split);
        this.outputColumns = columns.stream()
                .mapToInt(column -> indexOf(readSchema, column.fieldId()))
                .toArray();
        this.userFields = columns.stream()
                .map(column -> LogSchema.arrowField(readSchema.findField(column.fieldId())))
                .toList();
        List<Field> fields = new ArrayList<>();
        if (split.mode() == ReadMode.CHANGES) {
            fields.addAll(ChangeColumns.fields(table.definition()));
        }
        fields.addAll(userFields);
        if (withOffsets) {
            fields.add(OFFSET_FIELD);
        }
        this.outputFields = List.copyOf(fields);
        this.rowFilter = new ArrowRowFilter(readSchema, filter);
        this.filterFieldIds = Set.copyOf(Binder.boundReferences(schema.asStruct(), List.of(filter), false));
        this.deletes =
                new LakeFileDeletes(new IcebergDeleteFileLoader(table.lake().io(), schema, allocator), table);
        if (indexedTail != null) {
            counters.add(indexedTail.counters());
            stages.add(() -> logBatches(indexedTail.range(), indexedTail.index().winners()));
        } else {
            planStages(config);
        }
    }

    /** The Arrow fields of the batches this reader returns. */
    public List<Field> outputFields() {
        return outputFields;
    }

    private void planStages(MergeConfig config) {
        boolean merge = split.mergeByKey() && !split.isLakeOnly();
        if (!merge) {
            // fast path: no key index, no merge
            for (LakeFile file : split.lakeFiles()) {
                stages.add(() -> lakeBatches(file, null, 0, 1));
            }
            split.logRange()
                    .filter(range -> !range.isEmpty())
                    .ifPresent(range -> stages.add(() -> logBatches(range, null)));
            return;
        }
        LogRange tail = split.logRange().orElseThrow();
        int passes = config.passesFor(tail.rowCount());
        for (int pass = 0; pass < passes; pass++) {
            int currentPass = pass;
            TailIndex[] index = new TailIndex[1];
            stages.add(() -> {
                index[0] = TailIndex.build(table, logSnapshot(), tail, currentPass, passes, allocator, counters);
                return Collections.emptyIterator();
            });
            for (LakeFile file : split.lakeFiles()) {
                stages.add(() -> lakeBatches(file, index[0], currentPass, passes));
            }
            stages.add(() -> logBatches(tail, index[0].winners()));
        }
    }

    /**
     * Lake rows of one file, Iceberg deletes applied; with an index, minus keys changed in the tail and
     * keys of other passes. Only the columns that decide which rows survive (keys, equality delete
     * columns, filter columns) are decoded for every row; the others only for the surviving rows.
     */
    private Iterator<VectorSchemaRoot> lakeBatches(LakeFile file, TailIndex index, int pass, int passes) {
        // the same deletes as the engines' own readers apply (LakeRowSelector), loaded once per split
        LakeFileDeletes.FileDeletes fileDeletes = deletes.load(file);
        PositionDeletes positionDeletes = fileDeletes.positions();
        LakeFileReader reader = new LakeFileReader(
                table.lake().io(), file, readSchema, table.definition().schema(), rowGroupFilter, allocator, counters);
        int[] keyColumns = index == null
                ? new int[0]
                : index.keyColumns().stream()
                        .mapToInt(id -> indexOf(readSchema, id))
                        .toArray();
        boolean[] early = new boolean[readSchema.columns().size()];
        for (int column : keyColumns) {
            early[column] = true;
        }
        for (LakeFileDeletes.EqualityDeleteKeys equality : fileDeletes.equality()) {
            for (int id : equality.columns().fieldIds()) {
                early[indexOf(readSchema, id)] = true;
            }
        }
        if (!rowFilter.isAlwaysTrue()) {
            for (int id : filterFieldIds) {
                early[indexOf(readSchema, id)] = true;
            }
        }
        List<FieldVector> keys = new ArrayList<>(keyColumns.length);
        return new BatchStage(reader, early, (batch, firstRowPosition, selection) -> {
            if (!positionDeletes.isEmpty()) {
                selection.retain(row -> !positionDeletes.isDeleted(firstRowPosition + row));
            }
            for (LakeFileDeletes.EqualityDeleteKeys equality : fileDeletes.equality()) {
                retainUndeleted(equality, batch, selection);
            }
            if (pass == 0) {
                counters.addLakeRows(selection.size());
            }
            if (index != null) {
                keys.clear();
                for (int column : keyColumns) {
                    keys.add(batch.getVector(column));
                }
                index.retainUnchanged(keys, selection, counters);
            }
            rowFilter.apply(batch, selection);
        });
    }

    private LogSnapshot logSnapshot() {
        if (logSnapshot == null) {
            logSnapshot = split.logSnapshot(table.log());
        }
        return logSnapshot;
    }

    /** The path of the range's partition at the pinned log version; empty for a per-bucket log. */
    private Optional<String> partitionPath(LogRange range) {
        return range.partitionId()
                .map(id -> logSnapshot()
                        .partition(id)
                        .map(PartitionLog::path)
                        .orElseThrow(() -> new LakestreamException(
                                LOG_CORRUPT,
                                "Log version %s has no partition %s, which the split's range %s names"
                                        .formatted(logSnapshot().version(), id, range.describeLog()))));
    }

    /** Log rows of a range: all of them, or only the winners of the index (last upsert of each key). */
    private Iterator<VectorSchemaRoot> logBatches(LogRange range, BitSet winners) {
        List<Types.NestedField> columns = readSchema.columns();
        return new LogStage(range, winners, new LogRangeReader(table.log(), logSnapshot(), range, columns, allocator));
    }

    /**
     * Output batches of log rows. Closeable like {@link BatchStage}: a reader closed before the stage is
     * exhausted (a limit reached, a failed query) must release the open segment and the batch it holds.
     */
    private final class LogStage implements Iterator<VectorSchemaRoot>, AutoCloseable {
        private final LogRange range;
        private final BitSet winners;
        private final LogRangeReader reader;
        private VectorSchemaRoot pending;

        private LogStage(LogRange range, BitSet winners, LogRangeReader reader) {
            this.range = range;
            this.winners = winners;
            this.reader = reader;
        }

        @Override
        public boolean hasNext() {
            while (pending == null && reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    if (winners == null) {
                        counters.addLogRows(batch.rowCount());
                    }
                    VectorSchemaRoot view = userColumns(batch);
                    Selection selection = Selection.all(batch.rowCount());
                    if (winners != null) {
                        long first = batch.firstOffset() - range.from();
                        selection.retain(row -> winners.get((int) (first + row)));
                    }
                    rowFilter.apply(view, selection);
                    if (!selection.isEmpty()) {
                        pending = output(range, batch, view, selection);
                    }
                }
            }
            if (pending == null) {
                reader.close();
            }
            return pending != null;
        }

        @Override
        public VectorSchemaRoot next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            VectorSchemaRoot result = pending;
            pending = null;
            return result;
        }

        @Override
        public void close() {
            try {
                if (pending != null) {
                    pending.close();
                    pending = null;
                }
            } finally {
                reader.close();
            }
        }
    }

    private VectorSchemaRoot output(LogRange range, LogBatch batch, VectorSchemaRoot view, Selection selection) {
        VectorSchemaRoot userOutput = BatchCompactor.compact(view, selection, outputColumns, userFields, allocator);
        if (split.mode() == ReadMode.CHANGES) {
            List<FieldVector> vectors = new ArrayList<>(ChangeColumns.build(
                    batch, selection, ChangeColumns.hasPartition(table.definition()), partitionPath(range), allocator));
            vectors.addAll(userOutput.getFieldVectors());
            return new VectorSchemaRoot(outputFields, vectors, selection.size());
        }
        if (!withOffsets) {
            return userOutput;
        }
        BigIntVector offsets = (BigIntVector) OFFSET_FIELD.createVector(allocator);
        offsets.allocateNew(selection.size());
        for (int i = 0; i < selection.size(); i++) {
            offsets.set(i, batch.firstOffset() + selection.row(i));
        }
        return withOffsetColumn(userOutput, offsets);
    }

    /** Appends the offset column to a batch of user columns. */
    private VectorSchemaRoot withOffsetColumn(VectorSchemaRoot userOutput, BigIntVector offsets) {
        int rows = userOutput.getRowCount();
        offsets.setValueCount(rows);
        List<FieldVector> vectors = new ArrayList<>(userOutput.getFieldVectors());
        vectors.add(offsets);
        return new VectorSchemaRoot(outputFields, vectors, rows);
    }

    /** Lake rows have no offset: an all-null offset column. */
    private VectorSchemaRoot withNullOffsets(VectorSchemaRoot userOutput) {
        BigIntVector offsets = (BigIntVector) OFFSET_FIELD.createVector(allocator);
        // allocateNew zeroes the validity buffer: every value is null
        offsets.allocateNew(Math.max(userOutput.getRowCount(), 1));
        return withOffsetColumn(userOutput, offsets);
    }

    private VectorSchemaRoot userColumns(LogBatch batch) {
        List<FieldVector> vectors = batch.root().getFieldVectors();
        List<FieldVector> user = vectors.subList(LogSchema.SYSTEM_COLUMN_COUNT, vectors.size());
        List<Field> fields = user.stream().map(FieldVector::getField).toList();
        return new VectorSchemaRoot(fields, user, batch.rowCount());
    }

    @Override
    public boolean hasNext() {
        while (next == null) {
            if (current.hasNext()) {
                next = current.next();
                if (next.getRowCount() == 0) {
                    next.close();
                    next = null;
                }
                continue;
            }
            closeCurrent();
            if (stages.isEmpty()) {
                return false;
            }
            current = stages.poll().get();
        }
        return true;
    }

    @Override
    public VectorSchemaRoot next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        VectorSchemaRoot result = next;
        next = null;
        return result;
    }

    private void closeCurrent() {
        if (current instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                // readers only
            }
        }
        current = Collections.emptyIterator();
    }

    @Override
    public void close() {
        if (next != null) {
            next.close();
            next = null;
        }
        closeCurrent();
        stages.clear();
    }

    /** Lake batches narrowed to the rows that survive deletes, the merge and the filter, as output batches. */
    private final class BatchStage implements Iterator<VectorSchemaRoot>, AutoCloseable {
        private final LakeFileReader reader;
        private final boolean[] early;
        private final LakeFileReader.RowSelector selector;
        private final Selection selection = Selection.all(0);

        private BatchStage(LakeFileReader reader, boolean[] early, LakeFileReader.RowSelector selector) {
            this.reader = reader;
            this.early = early;
            this.selector = selector;
        }

        @Override
        public boolean hasNext() {
            return reader.hasNext();
        }

        @Override
        public VectorSchemaRoot next() {
            try (VectorSchemaRoot batch = reader.nextSelected(early, selection, selector)) {
                VectorSchemaRoot output = BatchCompactor.project(batch, outputColumns, userFields, allocator);
                return withOffsets ? withNullOffsets(output) : output;
            }
        }

        @Override
        public void close() {
            reader.close();
        }
    }

    /** The named columns, whole; a name the table lacks is a clear error. */
    private static List<Types.NestedField> wholeColumns(Schema schema, List<String> columns) {
        List<Types.NestedField> fields = new ArrayList<>(columns.size());
        for (String name : columns) {
            Types.NestedField field = schema.findField(name);
            if (field == null) {
                throw new LakestreamException(
                        INVALID_READ_OPTIONS,
                        "Column '%s' does not exist; the columns are %s"
                                .formatted(
                                        name,
                                        schema.columns().stream()
                                                .map(Types.NestedField::name)
                                                .toList()));
            }
            fields.add(field);
        }
        return fields;
    }

    /**
     * The requested columns (narrowed ones as requested), plus whole key, filter and equality delete columns, in the
     * table's column order.
     */
    private static Schema readSchema(
            Schema schema,
            List<Types.NestedField> columns,
            List<String> primaryKey,
            Expression filter,
            UnionSplit split) {
        Set<Integer> whole = new HashSet<>();
        for (String key : primaryKey) {
            whole.add(schema.findField(key).fieldId());
        }
        whole.addAll(Binder.boundReferences(schema.asStruct(), List.of(filter), false));
        LakeFileDeletes.equalityFieldIds(split).forEach(whole::addAll);
        List<Types.NestedField> read = new ArrayList<>();
        for (Types.NestedField column : schema.columns()) {
            Types.NestedField requested = columns.stream()
                    .filter(field -> field.fieldId() == column.fieldId())
                    .findFirst()
                    .orElse(null);
            if (whole.contains(column.fieldId())) {
                read.add(column);
            } else if (requested != null) {
                read.add(requested);
            }
        }
        for (Types.NestedField column : columns) {
            if (schema.columns().stream().noneMatch(field -> field.fieldId() == column.fieldId())) {
                throw new LakestreamException(
                        INVALID_READ_OPTIONS, "Column '%s' is not a column of the table".formatted(column.name()));
            }
        }
        return new Schema(read);
    }

    private static int indexOf(Schema schema, int fieldId) {
        List<Types.NestedField> columns = schema.columns();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).fieldId() == fieldId) {
                return i;
            }
        }
        throw new IllegalArgumentException("field id %s is not read".formatted(fieldId));
    }

    /** Drops the selected rows of {@code batch} whose values of the delete file's columns it deletes. */
    private void retainUndeleted(
            LakeFileDeletes.EqualityDeleteKeys equality, VectorSchemaRoot batch, Selection selection) {
        if (selection.isEmpty() || equality.keys().size() == 0) {
            return;
        }
        List<FieldVector> vectors = equality.columns().fieldIds().stream()
                .map(id -> batch.getVector(indexOf(readSchema, id)))
                .toList();
        switch (equality.keys()) {
            case ChangedLongKeys longs -> {
                long[] values = new long[batch.getRowCount()];
                LongKeyVectors.load(vectors.getFirst(), batch.getRowCount(), values);
                // the long layout is the primary key's: a lake row always has it
                selection.retain(row -> !longs.contains(values[row]));
            }
            case ChangedEncodedKeys encoded -> {
                ArrowKeyEncoder encoder =
                        new ArrowKeyEncoder(vectors, equality.columns().types());
                KeyBuffer key = new KeyBuffer();
                selection.retain(row -> {
                    encoder.encode(row, key);
                    return !encoded.contains(key);
                });
            }
        }
    }
}
