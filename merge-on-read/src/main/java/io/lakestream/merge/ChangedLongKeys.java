package io.lakestream.merge;

import static com.google.common.base.Preconditions.checkArgument;

import io.lakestream.log.LogSchema;
import io.lakestream.log.LogSnapshot;
import io.lakestream.plan.LogRange;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.types.Types;

/**
 * The keys a log tail changes ({@link ChangedKeys}) when the primary key is one {@code int},
 * {@code long} or {@code date} column, whose values every engine holds as the same integer (unlike
 * time and timestamp, whose units differ by engine): primitive longs in a {@link LongKeyIndex}.
 */
public final class ChangedLongKeys implements ChangedKeys {
    private final LongKeyIndex index;

    ChangedLongKeys(LongKeyIndex index) {
        this.index = index;
    }

    /** True if the table's primary key is one column these keys can hold. */
    static boolean supports(LakestreamTable table) {
        List<String> key = table.definition().primaryKey();
        if (key.size() != 1) {
            return false;
        }
        return switch (table.definition()
                .schema()
                .findField(key.getFirst())
                .type()
                .typeId()) {
            case INTEGER, LONG, DATE -> true;
            default -> false;
        };
    }

    /** Reads the key column of the log range {@code range} at the pinned log snapshot. */
    static ChangedLongKeys read(LakestreamTable table, LogSnapshot log, LogRange range, BufferAllocator allocator) {
        checkArgument(supports(table), "table %s has no single integral primary key", table.definition());
        Types.NestedField keyField = table.definition().primaryKeyFields().getFirst();
        LongKeyIndex index = new LongKeyIndex((int) Math.min(range.rowCount(), 1 << 24));
        try (LogRangeReader reader = new LogRangeReader(
                table.log(), log, range.bucket(), range.from(), range.to(), List.of(keyField), allocator)) {
            long[] keys = new long[0];
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    int rows = batch.rowCount();
                    if (keys.length < rows) {
                        keys = new long[rows];
                    }
                    LongKeyVectors.load(batch.root().getVector(LogSchema.SYSTEM_COLUMN_COUNT), rows, keys);
                    for (int row = 0; row < rows; row++) {
                        // a primary key is never null: the writer refuses such rows
                        index.put(keys[row], 0);
                    }
                }
            }
        }
        return new ChangedLongKeys(index);
    }

    @Override
    public int size() {
        return index.size();
    }

    /**
     * Narrows {@code positions[0, size)} in place to those whose key the tail does not change; returns
     * how many remain. Position {@code p}'s key is {@code keys[p]}.
     */
    public int retainUnchanged(long[] keys, int[] positions, int size) {
        return index.retainAbsent(keys, positions, size);
    }
}
