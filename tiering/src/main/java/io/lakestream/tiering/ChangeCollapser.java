package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.reader.ChangeRecord;
import java.nio.ByteBuffer;
import java.util.Collection;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.util.StructLikeMap;

/**
 * Collapses a primary-key bucket range to the last change per key (by offset). Keys are compared with
 * Iceberg's struct equality, so binary, fixed and decimal keys compare by value. Holds one entry per
 * distinct key: memory is bounded by the range length, which the planner caps.
 */
final class ChangeCollapser {
    private final Schema keySchema;
    private final int[] keyPositions;
    private final StructLikeMap<ChangeRecord> lastChange;

    ChangeCollapser(Schema rowSchema, Schema keySchema) {
        this.keySchema = requireNonNull(keySchema, "keySchema is null");
        this.keyPositions = keySchema.columns().stream()
                .mapToInt(field -> rowSchema.columns().indexOf(rowSchema.findField(field.fieldId())))
                .toArray();
        this.lastChange = StructLikeMap.create(keySchema.asStruct());
    }

    void add(ChangeRecord change) {
        // Changes arrive in offset order, so a later change simply replaces the earlier one.
        Record key = GenericRecord.create(keySchema);
        for (int i = 0; i < keyPositions.length; i++) {
            Object value = change.row().get(keyPositions[i]);
            // Iceberg's struct comparators expect fixed values as ByteBuffer; the generic row holds byte[].
            key.set(i, value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value);
        }
        lastChange.put(key, change);
    }

    /** The equality delete row (the key columns, as generic values) of a row. */
    Record deleteRow(Record row) {
        Record key = GenericRecord.create(keySchema);
        for (int i = 0; i < keyPositions.length; i++) {
            key.set(i, row.get(keyPositions[i]));
        }
        return key;
    }

    int size() {
        return lastChange.size();
    }

    Collection<ChangeRecord> lastChanges() {
        return lastChange.values();
    }
}
