package io.lakestream.merge;

import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The simplest possible model of a table: the list of all changes with their bucket and offset.
 * The state at an offset map is the changes below it, applied in order.
 */
final class ChangeOracle {
    record Change(ChangeType type, int bucket, long offset, Map<String, Object> row) {}

    private final List<String> primaryKey;
    private final List<Change> changes = new ArrayList<>();

    ChangeOracle(List<String> primaryKey) {
        this.primaryKey = primaryKey;
    }

    void add(Change change) {
        changes.add(change);
    }

    List<Change> changes() {
        return changes;
    }

    /** Rows of the table holding exactly the changes with offset below {@code ends[bucket]}. */
    List<Map<String, Object>> stateAt(OffsetMap ends) {
        if (primaryKey.isEmpty()) {
            List<Map<String, Object>> rows = new ArrayList<>();
            for (Change change : changes) {
                if (change.offset() < ends.offset(change.bucket())) {
                    rows.add(change.row());
                }
            }
            return rows;
        }
        Map<List<Object>, Map<String, Object>> state = new LinkedHashMap<>();
        for (Change change : changes) {
            if (change.offset() >= ends.offset(change.bucket())) {
                continue;
            }
            List<Object> key = primaryKey.stream().map(change.row()::get).toList();
            if (change.type() == ChangeType.DELETE) {
                state.remove(key);
            } else {
                state.put(key, change.row());
            }
        }
        return new ArrayList<>(state.values());
    }
}
