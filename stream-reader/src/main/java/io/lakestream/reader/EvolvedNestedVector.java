package io.lakestream.reader;

import io.lakestream.log.LogSchema;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.BaseRepeatedValueVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A list, map or struct vector of the log written with an older shape of its column (before an {@code ALTER TABLE}
 * added, dropped, renamed or widened a field inside it), rebuilt as the column's current Arrow field. Struct fields
 * are matched by Iceberg field id at every depth: a field added since reads as NULL, a renamed one keeps its values,
 * a dropped one is left out, a widened one is converted ({@link WidenedVector}). Validity and list offsets are
 * copied, values are moved (transferred), not copied, except where a type is widened. Engines read struct children
 * by position, so the current order and names matter, not only the ids.
 */
final class EvolvedNestedVector {
    private EvolvedNestedVector() {}

    /** True if a vector written as {@code written} must be rebuilt to be read as {@code current}. */
    static boolean differs(Field written, Field current) {
        return !written.getType().equals(current.getType())
                || !written.getChildren().equals(current.getChildren());
    }

    /**
     * {@code source} as a new vector of {@code target}'s field; {@code source}'s buffers are moved into it, so the
     * caller closes {@code source} (now empty) and owns the result.
     */
    static FieldVector rebuild(FieldVector source, Field target, BufferAllocator allocator, String where) {
        FieldVector result = target.createVector(allocator);
        try {
            fill(source, result, allocator, where);
        } catch (RuntimeException e) {
            result.close();
            throw e;
        }
        return result;
    }

    private static void fill(FieldVector source, FieldVector target, BufferAllocator allocator, String where) {
        int count = source.getValueCount();
        switch (target) {
            case StructVector struct
            when source instanceof StructVector written -> {
                struct.setInitialCapacity(count);
                struct.allocateNew();
                for (int i = 0; i < count; i++) {
                    if (!written.isNull(i)) {
                        struct.setIndexDefined(i);
                    }
                }
                for (FieldVector child : struct.getChildrenFromFields()) {
                    FieldVector match = byFieldId(written.getChildrenFromFields(), child.getField());
                    if (match != null) {
                        fill(match, child, allocator, where);
                    }
                    // a field added after the segment was written: allocated above, all NULL
                }
                struct.setValueCount(count);
            }
            // maps are lists of entry structs
            case ListVector list
            when source instanceof ListVector written -> {
                list.setInitialCapacity(count);
                list.allocateNew();
                // a zero-length list vector may come without an offset buffer (Arrow loads none for it): nothing to
                // copy
                for (int i = 0; count > 0 && i <= count; i++) {
                    int offset = written.getOffsetBuffer().getInt((long) i * BaseRepeatedValueVector.OFFSET_WIDTH);
                    list.getOffsetBuffer().setInt((long) i * BaseRepeatedValueVector.OFFSET_WIDTH, offset);
                }
                for (int i = 0; i < count; i++) {
                    if (!written.isNull(i)) {
                        BitVectorHelper.setBit(list.getValidityBuffer(), i);
                    }
                }
                fill(written.getDataVector(), list.getDataVector(), allocator, where);
                list.setLastSet(count - 1);
                list.setValueCount(count);
            }
            default -> {
                if (source.getField().getType().equals(target.getField().getType())) {
                    source.makeTransferPair(target).transfer();
                } else {
                    try (FieldVector widened = WidenedVector.widen(source, target.getField(), allocator, where)) {
                        widened.makeTransferPair(target).transfer();
                    }
                }
            }
        }
    }

    private static FieldVector byFieldId(List<FieldVector> vectors, Field field) {
        String id = field.getMetadata().get(LogSchema.FIELD_ID_METADATA);
        for (FieldVector vector : vectors) {
            if (id != null && id.equals(vector.getField().getMetadata().get(LogSchema.FIELD_ID_METADATA))) {
                return vector;
            }
        }
        return null;
    }
}
