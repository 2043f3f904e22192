package io.lakestream.tiering.compaction;

import io.lakestream.table.TableDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import org.apache.iceberg.data.Record;

/**
 * The order in which compaction writes a primary-key bucket's rows: by primary key, so that a reader
 * can drop the lake rows a log tail changes by walking both in key order instead of probing a hash
 * index (Trino's merge on its Parquet pages does). Sorting holds the bucket in memory, so a bucket of
 * more rows than {@code tiering.compaction.sort-max-records} is written in the order it is read;
 * readers fall back to the hash index there.
 */
final class KeyOrderedRows {
    private KeyOrderedRows() {}

    /** True if compaction sorts a bucket of this many rows of this table, sorting at most {@code maxRows}. */
    static boolean sorts(TableDefinition definition, long rows, long maxRows) {
        return definition.hasPrimaryKey() && rows <= maxRows;
    }

    /** The rows in primary key order (a lake row always has its key). */
    static List<Record> sorted(TableDefinition definition, Iterator<Record> rows) {
        List<Record> result = new ArrayList<>();
        rows.forEachRemaining(row -> result.add(row.copy()));
        result.sort(comparator(definition.primaryKey()));
        return result;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Comparator<Record> comparator(List<String> key) {
        Comparator<Record> order = null;
        for (String column : key) {
            // key values of generic records are Comparable (numbers, dates, times, strings, byte buffers, UUIDs)
            Comparator<Record> next = Comparator.comparing(row -> (Comparable) row.getField(column));
            order = order == null ? next : order.thenComparing(next);
        }
        return order;
    }
}
