package io.lakestream.merge;

import io.lakestream.log.LogSchema;
import io.lakestream.log.LogSnapshot;
import io.lakestream.plan.LogRange;
import io.lakestream.reader.LogBatch;
import io.lakestream.reader.LogRangeReader;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The keys a log tail changes, in the canonical byte encoding of docs/merge.md (any key: several
 * columns, strings, decimals, timestamps...). A reader probes it with a {@link KeyBuffer} it encoded
 * from its own values.
 */
public final class ChangedEncodedKeys implements ChangedKeys {
    private final KeyIndex index;

    ChangedEncodedKeys(KeyIndex index) {
        this.index = index;
    }

    /**
     * A set of encoded keys from another source than a log tail, probed the same way: the rows of Iceberg
     * equality delete files. The values of {@code keys} are ignored.
     */
    public static ChangedEncodedKeys of(KeyIndex keys) {
        return new ChangedEncodedKeys(keys);
    }

    static ChangedEncodedKeys read(LakestreamTable table, LogSnapshot log, LogRange range, BufferAllocator allocator) {
        List<Types.NestedField> keyFields = table.definition().primaryKeyFields();
        List<Type> keyTypes = keyFields.stream().map(Types.NestedField::type).toList();
        KeyIndex index = new KeyIndex();
        KeyBuffer key = new KeyBuffer();
        try (LogRangeReader reader = new LogRangeReader(table.log(), log, range, keyFields, allocator)) {
            while (reader.hasNext()) {
                try (LogBatch batch = reader.next()) {
                    List<FieldVector> keyVectors = batch.root()
                            .getFieldVectors()
                            .subList(LogSchema.SYSTEM_COLUMN_COUNT, LogSchema.SYSTEM_COLUMN_COUNT + keyFields.size());
                    ArrowKeyEncoder encoder = new ArrowKeyEncoder(keyVectors, keyTypes);
                    for (int row = 0; row < batch.rowCount(); row++) {
                        encoder.encode(row, key);
                        index.put(key, 0);
                    }
                }
            }
        }
        return new ChangedEncodedKeys(index);
    }

    @Override
    public int size() {
        return index.size();
    }

    /** True if the tail changes this key. */
    public boolean contains(KeyBuffer key) {
        return index.contains(key);
    }
}
