package io.lakestream.reader;

import io.lakestream.log.LogSchema;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A struct vector of a log segment narrowed to the fields a read asks for (a pruned struct: {@code r.a} read
 * without {@code r.b}): the kept children are moved, not copied; the others are left behind with the source. Lists
 * and maps are never narrowed (the read asks for them whole). A kept field the segment lacks (added to the struct
 * later) reads as nulls. Children are matched by Iceberg field id, so a renamed field keeps its values.
 */
final class PrunedStructVector {
    private PrunedStructVector() {}

    /** Whether {@code vector} has exactly the children {@code target} names (then it is read as it is). */
    static boolean matches(FieldVector vector, Field target) {
        return !(vector instanceof StructVector) || sameChildren(vector.getField(), target);
    }

    private static boolean sameChildren(Field source, Field target) {
        List<Field> sourceChildren = source.getChildren();
        List<Field> targetChildren = target.getChildren();
        if (sourceChildren.size() != targetChildren.size()) {
            return false;
        }
        for (int i = 0; i < sourceChildren.size(); i++) {
            if (!fieldId(sourceChildren.get(i)).equals(fieldId(targetChildren.get(i)))
                    || !sameChildren(sourceChildren.get(i), targetChildren.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code source} narrowed to {@code target}'s fields, as a new vector; {@code source}'s kept buffers move into it.
     * The caller closes both.
     */
    static FieldVector prune(FieldVector source, Field target, BufferAllocator allocator) {
        FieldVector result = target.createVector(allocator);
        try {
            moveInto(source, result);
        } catch (RuntimeException e) {
            result.close();
            throw e;
        }
        return result;
    }

    private static void moveInto(FieldVector source, FieldVector target) {
        if (!(source instanceof StructVector struct) || !(target instanceof StructVector narrowed)) {
            source.makeTransferPair(target).transfer();
            return;
        }
        int rows = struct.getValueCount();
        narrowed.setInitialCapacity(rows);
        narrowed.allocateNew();
        for (int row = 0; row < rows; row++) {
            if (struct.isNull(row)) {
                narrowed.setNull(row);
            } else {
                narrowed.setIndexDefined(row);
            }
        }
        for (FieldVector child : narrowed.getChildrenFromFields()) {
            FieldVector sourceChild = childById(struct, fieldId(child.getField()));
            if (sourceChild == null) {
                // a field added to the struct after the segment was written: nulls (allocateNew zeroed its validity)
                child.setValueCount(rows);
            } else {
                moveInto(sourceChild, child);
            }
        }
        narrowed.setValueCount(rows);
    }

    private static FieldVector childById(StructVector struct, String fieldId) {
        for (FieldVector child : struct.getChildrenFromFields()) {
            if (fieldId.equals(fieldId(child.getField()))) {
                return child;
            }
        }
        return null;
    }

    private static String fieldId(Field field) {
        String id = field.getMetadata().get(LogSchema.FIELD_ID_METADATA);
        return id == null ? field.getName() : id;
    }
}
