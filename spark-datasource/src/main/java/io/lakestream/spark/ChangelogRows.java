package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.GENERIC_INTERNAL_ERROR;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.catalyst.util.MapData;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Turns a primary-key table's log changes ({@code t$changes} rows: change type, bucket, the partition of a
 * partitioned table, offset, commit time, then the user columns) into the rows of the stream outputs read per key: the changelog (each
 * change with its effect, from the row each key held before) or the last change per key. Keys are
 * compared as {@link UnsafeRow}s of the key columns (byte equality, as the merge compares keys).
 * Not thread-safe (one per task).
 */
final class ChangelogRows {
    static final String INSERT = "insert";
    static final String UPDATE_BEFORE = "update_before";
    static final String UPDATE_AFTER = "update_after";
    static final String DELETE = "delete";
    private static final String UPSERT = "upsert";

    /** The position of {@code _bucket} in a change row; {@code _offset}'s depends on {@code _partition}. */
    private static final int BUCKET_COLUMN = 1;

    private final DataType[] changeTypes;
    private final int offsetColumn;
    private final DataType[] userTypes;
    private final int[] keyColumns;
    private final UnsafeProjection keyProjection;

    /**
     * @param withPartition whether change rows carry {@code _partition} (a partitioned table)
     * @param userTypes the Spark types of the user columns, in row order
     * @param keyColumns the positions of the primary-key columns among them
     */
    ChangelogRows(boolean withPartition, DataType[] userTypes, int[] keyColumns) {
        this.changeTypes = LakestreamTypes.changeFields(withPartition).stream()
                .map(StructField::dataType)
                .toArray(DataType[]::new);
        this.offsetColumn = changeTypes.length - 2;
        this.userTypes = requireNonNull(userTypes, "userTypes is null").clone();
        this.keyColumns = requireNonNull(keyColumns, "keyColumns is null").clone();
        DataType[] keyTypes = new DataType[keyColumns.length];
        for (int i = 0; i < keyColumns.length; i++) {
            keyTypes[i] = userTypes[keyColumns[i]];
        }
        this.keyProjection = UnsafeProjection.create(keyTypes);
    }

    /** How many change columns precede the user columns of a change row. */
    int changeColumns() {
        return changeTypes.length;
    }

    /** The user columns of a row whose user columns start at {@code first}, copied out of the row. */
    Object[] userValues(InternalRow row, int first) {
        Object[] values = new Object[userTypes.length];
        for (int column = 0; column < userTypes.length; column++) {
            values[column] = row.isNullAt(first + column) ? null : copy(row.get(first + column, userTypes[column]));
        }
        return values;
    }

    /** The key of a row whose user columns start at {@code first} (a copy, safe to keep). */
    UnsafeRow key(InternalRow row, int first) {
        GenericInternalRow key = new GenericInternalRow(keyColumns.length);
        for (int i = 0; i < keyColumns.length; i++) {
            int column = first + keyColumns[i];
            key.update(i, row.isNullAt(column) ? null : row.get(column, userTypes[keyColumns[i]]));
        }
        return keyProjection.apply(key).copy();
    }

    /** The last change of each key, in the order of those last changes. */
    List<InternalRow> lastPerKey(List<InternalRow> changes) {
        Map<UnsafeRow, InternalRow> last = new LinkedHashMap<>();
        for (InternalRow change : changes) {
            UnsafeRow key = key(change, changeColumns());
            // re-inserted, so a key's position is that of its last change
            last.remove(key);
            last.put(key, change);
        }
        return List.copyOf(last.values());
    }

    /**
     * The changelog of {@code changes} (in log order), commit by commit: each key a commit changed gets the
     * commit's net effect on it, from the row it held before the commit to the row it holds after (a commit
     * is atomic, so no reader ever sees a state inside it; Trino's UPDATE, for one, logs a delete and an
     * upsert of the key): absent to present is an {@code insert}, present to present an {@code update_before}
     * with the old row and an {@code update_after} with the new, present to absent a {@code delete} with the
     * removed row, absent to absent nothing. Rows carry the change columns of the key's last change in the
     * commit, in the order of those changes.
     *
     * @param before the row each key held before the first change, for the keys that had one
     * @param commitEnds the end offset of each commit the changes belong to, ascending
     */
    List<InternalRow> changelog(List<InternalRow> changes, Map<UnsafeRow, Object[]> before, List<Long> commitEnds) {
        Map<UnsafeRow, Object[]> current = new HashMap<>();
        List<InternalRow> rows = new ArrayList<>();
        int next = 0;
        for (long commitEnd : commitEnds) {
            Map<UnsafeRow, Object[]> atCommitStart = new HashMap<>();
            Map<UnsafeRow, InternalRow> lastChange = new LinkedHashMap<>();
            for (; next < changes.size() && changes.get(next).getLong(offsetColumn) < commitEnd; next++) {
                InternalRow change = changes.get(next);
                UnsafeRow key = key(change, changeColumns());
                if (!atCommitStart.containsKey(key)) {
                    atCommitStart.put(key, current.containsKey(key) ? current.get(key) : before.get(key));
                }
                // re-inserted, so keys are in the order of their last change
                lastChange.remove(key);
                lastChange.put(key, change);
            }
            for (Map.Entry<UnsafeRow, InternalRow> entry : lastChange.entrySet()) {
                InternalRow change = entry.getValue();
                Object[] previous = atCommitStart.get(entry.getKey());
                Object[] after = isUpsert(change) ? userValues(change, changeColumns()) : null;
                if (previous == null && after != null) {
                    rows.add(row(INSERT, change, after));
                } else if (previous != null && after != null) {
                    rows.add(row(UPDATE_BEFORE, change, previous));
                    rows.add(row(UPDATE_AFTER, change, after));
                } else if (previous != null) {
                    rows.add(row(DELETE, change, previous));
                }
                // HashMap keeps a null: the key is known to be absent now
                current.put(entry.getKey(), after);
            }
        }
        if (next < changes.size()) {
            throw new LakestreamException(
                    GENERIC_INTERNAL_ERROR,
                    "Change at offset %s of bucket %s is past the last commit of its range (%s)"
                            .formatted(
                                    changes.get(next).getLong(offsetColumn),
                                    changes.get(next).getInt(BUCKET_COLUMN),
                                    commitEnds));
        }
        return rows;
    }

    private boolean isUpsert(InternalRow change) {
        String type = change.getUTF8String(0).toString();
        return switch (type) {
            case UPSERT -> true;
            case DELETE -> false;
            default ->
                throw new LakestreamException(
                        LOG_CORRUPT,
                        "A primary-key table's log holds a change of type '%s' at offset %s of bucket %s; only upsert and delete are valid"
                                .formatted(type, change.getLong(offsetColumn), change.getInt(BUCKET_COLUMN)));
        };
    }

    /** A changelog row: the change columns of {@code change} with another type, and {@code values}. */
    private InternalRow row(String type, InternalRow change, Object[] values) {
        Object[] row = new Object[changeTypes.length + values.length];
        row[0] = UTF8String.fromString(type);
        for (int column = 1; column < changeTypes.length; column++) {
            row[column] = change.isNullAt(column) ? null : copy(change.get(column, changeTypes[column]));
        }
        System.arraycopy(values, 0, row, changeTypes.length, values.length);
        return new GenericInternalRow(row);
    }

    private static Object copy(Object value) {
        return switch (value) {
            case UTF8String string -> string.copy();
            case byte[] bytes -> bytes.clone();
            case InternalRow struct -> struct.copy();
            case ArrayData array -> array.copy();
            case MapData map -> map.copy();
            default -> value;
        };
    }
}
