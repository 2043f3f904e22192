package io.lakestream.merge;

import io.lakestream.log.ChangeType;
import io.lakestream.log.LogSnapshot;
import io.lakestream.plan.LogRange;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamTable;
import java.util.BitSet;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The index of a log tail for one merge pass: every key of the pass's hash partition mapped to its
 * last change (by offset), built from all changes of the range regardless of any filter. The
 * winners are the offsets whose change is the last of its key and is not a delete.
 *
 * @param keys key -> (offset << 1 | 1 if the last change is a delete)
 * @param winners offsets (relative to the range start) to emit from the tail
 * @param keyColumns field ids of the primary key columns, in key order
 * @param keyTypes their types
 */
record TailIndex(KeyIndex keys, BitSet winners, List<Integer> keyColumns, List<Type> keyTypes) {
    static TailIndex build(
            LakestreamTable table,
            LogSnapshot log,
            LogRange range,
            int pass,
            int passes,
            BufferAllocator allocator,
            MergeCounters counters) {
        List<Types.NestedField> keyFields = table.definition().primaryKey().stream()
                .map(name -> table.definition().schema().findField(name))
                .toList();
        List<Type> keyTypes = keyFields.stream().map(Types.NestedField::type).toList();
        KeyIndex keys = new KeyIndex();
        KeyBuffer key = new KeyBuffer();
        long changes = 0;
        try (LogRangeReader reader =
                new LogRangeReader(table.log(), log, range.bucket(), range.from(), range.to(), keyFields, allocator)) {
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    ArrowKeyEncoder encoder = new ArrowKeyEncoder(
                            batch.root().getFieldVectors().subList(2, 2 + keyFields.size()), keyTypes);
                    for (int row = 0; row < batch.rowCount(); row++) {
                        encoder.encode(row, key);
                        if (passes > 1 && partition(key, passes) != pass) {
                            continue;
                        }
                        long offset = batch.firstOffset() + row;
                        keys.put(key, offset << 1 | (batch.changeType(row) == ChangeType.DELETE ? 1 : 0));
                        changes++;
                    }
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
                keyTypes);
    }

    /** The merge pass a key belongs to when the tail is merged in several passes. */
    static int partition(KeyBuffer key, int passes) {
        return (key.hash() & Integer.MAX_VALUE) % passes;
    }
}
