package io.lakestream.merge;

import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.plan.UnionSplit;
import io.lakestream.reader.ArrowValueReader;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;
import org.apache.iceberg.expressions.Expression;

/** Test helper: plans and reads a table through the engine-neutral union read, as rows of Java values. */
final class UnionReads {
    private UnionReads() {}

    static List<List<Object>> read(
            LakestreamTable table, ReadOptions options, List<String> columns, BufferAllocator allocator) {
        return read(
                table,
                UnionReadPlanner.plan(table, options),
                columns,
                options.filter(),
                MergeConfig.DEFAULT,
                new MergeCounters(),
                allocator);
    }

    static List<List<Object>> read(
            LakestreamTable table,
            ReadPlan plan,
            List<String> columns,
            Expression filter,
            MergeConfig config,
            MergeCounters counters,
            BufferAllocator allocator) {
        List<List<Object>> rows = new ArrayList<>();
        for (UnionSplit split : plan.splits()) {
            try (UnionSplitReader reader =
                    new UnionSplitReader(table, split, columns, filter, config, counters, allocator)) {
                rows.addAll(drain(reader, table, columns));
            }
        }
        return rows;
    }

    /** Every row the reader returns (it stays open). */
    static List<List<Object>> drain(UnionSplitReader reader, LakestreamTable table, List<String> columns) {
        List<List<Object>> rows = new ArrayList<>();
        while (reader.hasNext()) {
            try (VectorSchemaRoot batch = reader.next()) {
                rows.addAll(toRows(batch, table, columns));
            }
        }
        return rows;
    }

    private static List<List<Object>> toRows(VectorSchemaRoot batch, LakestreamTable table, List<String> columns) {
        int systemColumns = batch.getFieldVectors().size() - columns.size();
        List<List<Object>> rows = new ArrayList<>();
        for (int row = 0; row < batch.getRowCount(); row++) {
            List<Object> values = new ArrayList<>();
            for (int column = 0; column < systemColumns; column++) {
                Object value = batch.getVector(column).getObject(row);
                values.add(value instanceof Text text ? text.toString() : value);
            }
            for (int i = 0; i < columns.size(); i++) {
                var type = table.definition().schema().findType(columns.get(i));
                values.add(ArrowValueReader.forType(type).read(batch.getVector(systemColumns + i), row));
            }
            rows.add(values);
        }
        return rows;
    }
}
