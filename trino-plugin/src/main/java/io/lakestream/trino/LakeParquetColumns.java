package io.lakestream.trino;

import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns a split reads from its lake files, by Iceberg field id, each once, in the order they were first
 * asked for: the query's columns, the filter's, the equality deletes' and the primary key (the last, so that
 * files whose keys come from the key cache are read without it).
 */
final class LakeParquetColumns {
    private final List<LakeParquetFile.ReadColumn> columns = new ArrayList<>();
    private final Map<Integer, Integer> indexOfField = new HashMap<>();

    /** Adds the column unless it is read already; returns its read column (its index in {@link #columns}). */
    int add(int fieldId, Type type) {
        return indexOfField.computeIfAbsent(fieldId, _ -> {
            columns.add(new LakeParquetFile.ReadColumn(fieldId, type));
            return columns.size() - 1;
        });
    }

    /**
     * Adds an array, map or row column read as {@code icebergType} (a row narrowed to the fields a query uses, see
     * {@link LakeParquetFields}) unless it is read already; returns its read column.
     */
    int addNested(int fieldId, org.apache.iceberg.types.Type icebergType) {
        return indexOfField.computeIfAbsent(fieldId, _ -> {
            columns.add(LakeParquetFile.ReadColumn.nested(fieldId, icebergType));
            return columns.size() - 1;
        });
    }

    boolean contains(int fieldId) {
        return indexOfField.containsKey(fieldId);
    }

    /** The read column of a field id that was added. */
    int indexOf(int fieldId) {
        Integer index = indexOfField.get(fieldId);
        if (index == null) {
            throw new IllegalArgumentException("field id %d is not read".formatted(fieldId));
        }
        return index;
    }

    List<LakeParquetFile.ReadColumn> columns() {
        return List.copyOf(columns);
    }
}
