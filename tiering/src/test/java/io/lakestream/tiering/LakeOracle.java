package io.lakestream.tiering;

import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The in-memory truth tests compare the lake with: every change written, per bucket in offset order
 * (a bucket's offsets are assigned in commit order, and the tests commit from one writer at a time).
 * The table state at an offset map is the fold of each bucket's changes below its offset.
 */
public final class LakeOracle {
    record Change(ChangeType type, List<Object> row) {}

    private final LakestreamTable table;
    private final Schema schema;
    private final List<Integer> keyPositions;
    private final Map<Integer, List<Change>> buckets = new HashMap<>();

    public LakeOracle(LakestreamTable table) {
        this.table = table;
        this.schema = table.definition().schema();
        this.keyPositions = table.definition().primaryKey().stream()
                .map(name -> schema.columns().indexOf(schema.findField(name)))
                .toList();
    }

    /** Writes the changes in one log commit and records them. */
    public void commit(BufferAllocator allocator, List<Change> changes) {
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            List<Map.Entry<Integer, Change>> written = new ArrayList<>();
            for (Change change : changes) {
                Map<String, Object> values = toMap(change.row());
                switch (change.type()) {
                    case INSERT -> writer.append(values);
                    case UPSERT -> writer.upsert(values);
                    case DELETE -> writer.delete(values);
                }
                written.add(Map.entry(bucketOf(change.row()), change));
            }
            writer.commit();
            written.forEach(entry -> buckets.computeIfAbsent(entry.getKey(), b -> new ArrayList<>())
                    .add(entry.getValue()));
        }
    }

    /** Records changes a test committed itself, in one commit, in this order. */
    void record(List<Change> changes) {
        changes.forEach(change -> buckets.computeIfAbsent(bucketOf(change.row()), b -> new ArrayList<>())
                .add(change));
    }

    int bucketOf(List<Object> row) {
        int[] positions = table.bucketKeyPositions();
        Object[] key = new Object[positions.length];
        for (int i = 0; i < positions.length; i++) {
            key[i] = row.get(positions[i]);
        }
        return table.bucketFunction().orElseThrow().bucket(key);
    }

    OffsetMap ends() {
        Map<Integer, Long> ends = new HashMap<>();
        buckets.forEach((bucket, changes) -> ends.put(bucket, (long) changes.size()));
        return new OffsetMap(ends);
    }

    long totalChanges() {
        return buckets.values().stream().mapToLong(List::size).sum();
    }

    /** The table's rows after every change below the offsets, sorted for comparison. */
    public List<List<Object>> stateAt(OffsetMap offsets) {
        List<List<Object>> rows = new ArrayList<>();
        Map<List<Object>, List<Object>> byKey = new LinkedHashMap<>();
        buckets.forEach((bucket, changes) -> {
            long end = Math.min(offsets.offset(bucket), changes.size());
            for (int offset = 0; offset < end; offset++) {
                Change change = changes.get(offset);
                switch (change.type()) {
                    case INSERT -> rows.add(change.row());
                    case UPSERT -> byKey.put(key(change.row()), change.row());
                    case DELETE -> byKey.remove(key(change.row()));
                }
            }
        });
        rows.addAll(byKey.values());
        return sorted(rows);
    }

    private List<Object> key(List<Object> row) {
        return keyPositions.stream().map(row::get).toList();
    }

    Map<String, Object> toMap(List<Object> row) {
        Map<String, Object> values = new HashMap<>();
        List<Types.NestedField> columns = schema.columns();
        for (int i = 0; i < columns.size(); i++) {
            if (row.get(i) != null) {
                values.put(columns.get(i).name(), row.get(i));
            }
        }
        return values;
    }

    /** The lake's rows (user columns only) read with Iceberg's own generic reader, sorted. */
    public static List<List<Object>> readLake(Table lake, Schema userSchema) {
        lake.refresh();
        return lake.currentSnapshot() == null
                ? List.of()
                : readLake(lake, userSchema, lake.currentSnapshot().snapshotId());
    }

    /** The rows of one snapshot of the lake, read with Iceberg's own generic reader, sorted. */
    public static List<List<Object>> readLake(Table lake, Schema userSchema, long snapshotId) {
        List<List<Object>> rows = new ArrayList<>();
        List<String> names =
                userSchema.columns().stream().map(Types.NestedField::name).toList();
        try (CloseableIterable<Record> records =
                IcebergGenerics.read(lake).useSnapshot(snapshotId).select(names).build()) {
            for (Record record : records) {
                List<Object> row = new ArrayList<>(names.size());
                for (String name : names) {
                    row.add(record.getField(name));
                }
                rows.add(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sorted(rows);
    }

    static List<List<Object>> sorted(List<List<Object>> rows) {
        List<List<Object>> copy = new ArrayList<>(rows);
        copy.sort(Comparator.comparing(Object::toString));
        return copy;
    }
}
