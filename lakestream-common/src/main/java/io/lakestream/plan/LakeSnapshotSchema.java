package io.lakestream.plan;

import io.lakestream.table.LakestreamTable;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * Whether a lake snapshot's files were written with every column a read has, as the read has it. Tiering writes
 * with the lake's current schema, so a snapshot committed after an {@code ALTER TABLE} dropped a column holds files
 * without it (even for rows written before the drop), and after a widening, files with the wider type. A time-travel
 * read of a version before the ALTER prefers an older snapshot made with the read's columns, as long as the log
 * still holds its tail ({@link ReadPin}); otherwise the dropped column reads as NULL from those files and widened
 * values are converted back (docs/format.md "Schema evolution").
 */
final class LakeSnapshotSchema {
    private LakeSnapshotSchema() {}

    /**
     * True if the snapshot's schema has every primitive field of the read's schema with the same id and type (or the
     * snapshot names no schema: nothing better is known).
     */
    static boolean holds(LakestreamTable table, Snapshot snapshot) {
        if (snapshot.schemaId() == null) {
            return true;
        }
        Schema written = table.lake().schemas().get(snapshot.schemaId());
        return written == null || holds(table, written);
    }

    /** True if {@code written} has every primitive field of the read's schema with the same id and type. */
    static boolean holds(LakestreamTable table, Schema written) {
        Map<Integer, Types.NestedField> read =
                TypeUtil.indexById(table.definition().schema().asStruct());
        for (Types.NestedField field : read.values()) {
            if (!field.type().isPrimitiveType()) {
                continue;
            }
            Type there = written.findType(field.fieldId());
            if (there == null || !there.equals(field.type())) {
                return false;
            }
        }
        return true;
    }
}
