package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.ChangeType;
import io.lakestream.log.OffsetMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The simplest possible model of a table, built only from what the test wrote: every change with
 * the bucket and offset the format gives it. The bucket is the Iceberg bucket hash of the bucket key
 * (docs/format.md, computed here with Iceberg's own {@code BucketUtil}), and a bucket's offsets are
 * dense in write order (offset = the bucket's end before + the change's index among the commit's
 * changes of that bucket). A table without a bucket key lets the writer choose the bucket, so its
 * changes have no known bucket: the model then knows only which commit holds them.
 */
final class ChangeOracle {
    /** A change; {@code bucket} and {@code offset} are -1 when the writer chose the bucket. */
    record Change(ChangeType type, int bucket, long offset, Map<String, Object> row) {
        boolean placed() {
            return bucket >= 0;
        }
    }

    /** One commit's changes, and the log's end offsets before and after it (as the log reported). */
    record Commit(OffsetMap before, OffsetMap after, List<Change> changes) {}

    private final List<String> primaryKey;
    /** The bucket of a row, or empty for a table without a bucket key. */
    private final Optional<Function<Map<String, Object>, Integer>> bucketOf;

    private final Map<Integer, Long> ends = new HashMap<>();
    private final List<Commit> commits = new ArrayList<>();
    private List<Change> pending = new ArrayList<>();

    ChangeOracle(List<String> primaryKey, Optional<Function<Map<String, Object>, Integer>> bucketOf) {
        this.primaryKey = primaryKey;
        this.bucketOf = bucketOf;
    }

    /** Records a change the test wrote, in write order. */
    void write(ChangeType type, Map<String, Object> row) {
        if (bucketOf.isEmpty()) {
            pending.add(new Change(type, -1, -1, row));
            return;
        }
        int bucket = bucketOf.get().apply(row);
        long offset = ends.getOrDefault(bucket, 0L);
        ends.put(bucket, offset + 1);
        pending.add(new Change(type, bucket, offset, row));
    }

    /**
     * Ends the commit the pending changes went to. The log's end offsets must be what the model
     * predicts (for a table without a bucket key: grow by the number of changes in total).
     */
    void committed(OffsetMap before, OffsetMap after, int bucketCount) {
        long added = 0;
        for (int bucket = 0; bucket < bucketCount; bucket++) {
            long growth = after.offset(bucket) - before.offset(bucket);
            assertThat(growth).as("bucket %s grew", bucket).isNotNegative();
            added += growth;
            if (bucketOf.isPresent()) {
                assertThat(after.offset(bucket))
                        .as(
                                "end of bucket %s after commit %s of %s changes",
                                bucket, commits.size() + 1, pending.size())
                        .isEqualTo(ends.getOrDefault(bucket, 0L));
            }
        }
        assertThat(added).as("changes the commit added to the log").isEqualTo(pending.size());
        commits.add(new Commit(before, after, List.copyOf(pending)));
        pending = new ArrayList<>();
    }

    List<Commit> commits() {
        return commits;
    }

    boolean placesChanges() {
        return bucketOf.isPresent();
    }

    /** Rows of the table holding exactly the changes with offset below {@code ends[bucket]}. */
    List<Map<String, Object>> stateAt(OffsetMap ends) {
        List<Change> included = new ArrayList<>();
        for (Commit commit : commits) {
            for (Change change : commit.changes()) {
                if (change.offset() < ends.offset(change.bucket())) {
                    included.add(change);
                }
            }
        }
        return apply(included);
    }

    /** Rows of the table after the commits whose log ends are {@code ends} (a table without a bucket key). */
    List<Map<String, Object>> stateAtCommit(OffsetMap ends) {
        List<Change> included = new ArrayList<>();
        for (Commit commit : commits) {
            if (!covers(ends, commit.after())) {
                break;
            }
            included.addAll(commit.changes());
        }
        assertThat(included.isEmpty() || commits.stream().anyMatch(commit -> sameEnds(commit.after(), ends)))
                .as("%s are the ends of a commit", ends)
                .isTrue();
        return apply(included);
    }

    /** Whether every bucket of {@code ends} reaches {@code commitEnd}. */
    static boolean covers(OffsetMap ends, OffsetMap commitEnd) {
        return commitEnd.offsets().entrySet().stream()
                .allMatch(entry -> ends.offset(entry.getKey()) >= entry.getValue());
    }

    private static boolean sameEnds(OffsetMap a, OffsetMap b) {
        return covers(a, b) && covers(b, a);
    }

    private List<Map<String, Object>> apply(List<Change> changes) {
        if (primaryKey.isEmpty()) {
            return changes.stream().map(Change::row).toList();
        }
        Map<List<Object>, Map<String, Object>> state = new LinkedHashMap<>();
        for (Change change : changes) {
            List<Object> key = primaryKey.stream().map(change.row()::get).toList();
            if (change.type() == ChangeType.DELETE) {
                state.remove(key);
            } else {
                state.put(key, change.row());
            }
        }
        return new ArrayList<>(state.values());
    }

    @Override
    public String toString() {
        return "ChangeOracle[" + commits.size() + " commits, ends " + Objects.toString(ends) + "]";
    }
}
