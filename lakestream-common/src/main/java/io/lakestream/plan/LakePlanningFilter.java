package io.lakestream.plan;

import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * The filter a read hands Iceberg's lake file planning. The read's filter names columns as the read's schema does
 * (the table's current one, or for time travel the schema of its version), but Iceberg binds it by name against
 * the lake's current schema or the pinned snapshot's: after a rename (or a drop and a new column of the old name)
 * one name means another column there. Such a filter prunes nothing (every file is planned); the readers still
 * apply it to every row with the read's schema, so only pruning is lost, never rows.
 */
final class LakePlanningFilter {
    private LakePlanningFilter() {}

    static Expression of(LakestreamTable table, long snapshotId, Expression filter) {
        if (filter.equals(Expressions.alwaysTrue())) {
            return filter;
        }
        Schema read = table.definition().schema();
        Set<Integer> fieldIds;
        try {
            fieldIds = Binder.boundReferences(read.asStruct(), List.of(filter), false);
        } catch (RuntimeException e) {
            // not a filter of the read's schema: planning reports it as before
            return filter;
        }
        List<Schema> lakeSchemas = new ArrayList<>();
        lakeSchemas.add(table.lake().schema());
        Snapshot snapshot = table.lake().snapshot(snapshotId);
        if (snapshot != null && snapshot.schemaId() != null) {
            Schema snapshotSchema = table.lake().schemas().get(snapshot.schemaId());
            if (snapshotSchema != null) {
                lakeSchemas.add(snapshotSchema);
            }
        }
        for (int fieldId : fieldIds) {
            String name = read.findColumnName(fieldId);
            for (Schema lake : lakeSchemas) {
                Types.NestedField there = name == null ? null : lake.findField(name);
                if (there == null || there.fieldId() != fieldId) {
                    return Expressions.alwaysTrue();
                }
            }
        }
        return filter;
    }
}
