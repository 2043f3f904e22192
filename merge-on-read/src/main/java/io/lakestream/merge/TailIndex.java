package io.lakestream.merge;

import io.lakestream.log.LogSchema;
import io.lakestream.log.LogSnapshot;
import io.lakestream.plan.LogRange;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamTable;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The index of a log tail for one merge pass: every key of the pass's hash partition mapped to its
 * last change (by offset), built from all changes of the range regardless of any filter. The
 * winners are the offsets whose change is the last of its key and is not a delete.
 */
final class TailIndex {
    private final TailKeys keys;
    private final BitSet winners;
    private final List<Integer> keyColumns;
    private final int pass;
    private final int passes;

    private TailIndex(TailKeys keys, BitSet winners, List<Integer> keyColumns, int pass, int passes) {
        this.keys = keys;
        this.winners = winners;
        this.keyColumns = List.copyOf(keyColumns);
        this.pass = pass;
        this.passes = passes;
    }

    static TailIndex build(
            LakestreamTable table,
            LogSnapshot log,
            LogRange range,
            int pass,
            int passes,
            BufferAllocator allocator,
            MergeCounters counters) {
        List<Types.NestedField> keyFields = table.definition().primaryKeyFields();
        List<Type> keyTypes = keyFields.stream().map(Types.NestedField::type).toList();
        TailKeys keys = TailKeys.forKeyTypes(keyTypes, (int) Math.min(range.rowCount() / passes, 1 << 24));
        long changes = 0;
        try (LogRangeReader reader = new LogRangeReader(table.log(), log, range, keyFields, allocator)) {
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    List<FieldVector> keyVectors = batch.root()
                            .getFieldVectors()
                            .subList(LogSchema.SYSTEM_COLUMN_COUNT, LogSchema.SYSTEM_COLUMN_COUNT + keyFields.size());
                    changes += keys.add(keyVectors, batch, pass, passes);
                }
            }
        }
        BitSet winners = new BitSet((int) range.rowCount());
        for (long value : keys.values()) {
            if ((value & 1) == 0) {
                winners.set((int) ((value >>> 1) - range.from()));
            }
        }
        counters.addLogRows(changes);
        counters.addLogRowsSuperseded(changes - winners.cardinality());
        counters.addMergePass();
        return new TailIndex(
                keys,
                winners,
                keyFields.stream().map(Types.NestedField::fieldId).toList(),
                pass,
                passes);
    }

    /** The keys of this pass and their last change. */
    TailKeys keys() {
        return keys;
    }

    /** Offsets (relative to the range start) to emit from the tail. */
    BitSet winners() {
        return winners;
    }

    /** Field ids of the primary key columns, in key order. */
    List<Integer> keyColumns() {
        return keyColumns;
    }

    /**
     * Drops from {@code selection} the lake rows whose key has a change in this pass's index (counted
     * as hidden) and the rows whose key another pass handles.
     *
     * @param keyVectors the key columns of the lake batch, in key order
     */
    void retainUnchanged(List<FieldVector> keyVectors, Selection selection, MergeCounters counters) {
        counters.addLakeRowsHidden(keys.retainUnchanged(keyVectors, selection, pass, passes));
    }
}
