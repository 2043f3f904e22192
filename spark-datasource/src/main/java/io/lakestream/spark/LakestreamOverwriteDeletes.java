package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.StagedSegment;
import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.MergeCounters;
import io.lakestream.merge.UnionSplitReader;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.reader.ArrowValueReader;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;

/**
 * Stages the delete half of an overwrite on the driver: a union read of the key columns at the
 * pinned log version, filtered by the overwrite's condition, and one delete change per key found.
 * The segments are staged, not published: the driver commits them with the new rows.
 */
final class LakestreamOverwriteDeletes {
    private LakestreamOverwriteDeletes() {}

    /** Stages the deletes under the driver's writer lease {@code leaseId}. */
    static List<StagedSegment> stage(
            LakestreamTable table, LakestreamOverwrite overwrite, MergeConfig merge, String leaseId) {
        requireNonNull(overwrite, "overwrite is null");
        List<String> keyColumns = table.definition().primaryKey();
        Schema schema = table.definition().schema();
        Schema keySchema = new Schema(keyColumns.stream().map(schema::findField).toList());
        ArrowValueReader[] readers = keySchema.columns().stream()
                .map(column -> ArrowValueReader.forType(column.type()))
                .toArray(ArrowValueReader[]::new);
        GenericRecord key = GenericRecord.create(keySchema.asStruct());
        List<UnionSplit> splits = UnionReadPlanner.plan(
                        table,
                        ReadOptions.UNION.atLogVersion(overwrite.logVersion()).withFilter(overwrite.filter()))
                .splits();
        try (BufferAllocator allocator = LakestreamMemory.newTaskAllocator("overwrite-deletes-" + table.identifier());
                LakestreamWriter writer = new LakestreamWriter(table, allocator, leaseId)) {
            for (UnionSplit split : splits) {
                try (UnionSplitReader reader = new UnionSplitReader(
                        table, split, keyColumns, overwrite.filter(), merge, new MergeCounters(), allocator)) {
                    while (reader.hasNext()) {
                        try (VectorSchemaRoot batch = reader.next()) {
                            List<FieldVector> vectors = batch.getFieldVectors();
                            for (int row = 0; row < batch.getRowCount(); row++) {
                                for (int i = 0; i < readers.length; i++) {
                                    key.set(i, readers[i].read(vectors.get(i), row));
                                }
                                writer.delete(key);
                            }
                        }
                    }
                }
            }
            return writer.prepare();
        }
    }
}
