package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** {@link ChangelogRows} on hand-made changes of a table {@code (id bigint key, name string)}. */
class TestChangelogRows {
    private final ChangelogRows rows =
            new ChangelogRows(false, new DataType[] {DataTypes.LongType, DataTypes.StringType}, new int[] {0});

    @Test
    void eachCommitGivesEachKeyItsNetChange() {
        List<InternalRow> changes = List.of(
                change("upsert", 0, 1, "a"), // commit [0, 3): 1 absent -> a, an insert
                change("delete", 1, 2, null), // 2 held "old": delete and upsert in one commit (Trino's UPDATE)
                change("upsert", 2, 2, "new"),
                change("upsert", 3, 1, "b"), // commit [3, 6): two upserts of 1 are one update a -> c
                change("upsert", 4, 1, "c"),
                change("delete", 5, 9, null)); // 9 was absent: nothing
        Map<UnsafeRow, Object[]> before = new HashMap<>();
        before.put(
                rows.key(new GenericInternalRow(new Object[] {2L}), 0),
                new Object[] {2L, UTF8String.fromString("old")});

        assertThat(render(rows.changelog(changes, before, List.of(3L, 6L))))
                .containsExactly(
                        List.of("insert", 0L, 1L, "a"),
                        List.of("update_before", 2L, 2L, "old"),
                        List.of("update_after", 2L, 2L, "new"),
                        List.of("update_before", 4L, 1L, "a"),
                        List.of("update_after", 4L, 1L, "c"));
        // the same changes as one commit per row: every step is a change of its own
        assertThat(render(rows.changelog(changes, before, List.of(1L, 2L, 3L, 4L, 5L, 6L))))
                .containsExactly(
                        List.of("insert", 0L, 1L, "a"),
                        List.of("delete", 1L, 2L, "old"),
                        List.of("insert", 2L, 2L, "new"),
                        List.of("update_before", 3L, 1L, "a"),
                        List.of("update_after", 3L, 1L, "b"),
                        List.of("update_before", 4L, 1L, "b"),
                        List.of("update_after", 4L, 1L, "c"));
    }

    @Test
    void upsertOutputKeepsTheLastChangePerKey() {
        List<InternalRow> changes =
                List.of(change("upsert", 0, 1, "a"), change("delete", 1, 2, null), change("upsert", 2, 1, "b"));
        assertThat(render(rows.lastPerKey(changes)))
                .containsExactly(Arrays.asList("delete", 1L, 2L, null), List.of("upsert", 2L, 1L, "b"));
    }

    private static InternalRow change(String type, long offset, long id, String name) {
        return new GenericInternalRow(new Object[] {
            UTF8String.fromString(type), 0, offset, 0L, id, name == null ? null : UTF8String.fromString(name)
        });
    }

    /** type, offset, id, name */
    private static List<List<Object>> render(List<InternalRow> output) {
        List<List<Object>> rendered = new ArrayList<>();
        for (InternalRow row : output) {
            rendered.add(Arrays.asList(
                    row.getUTF8String(0).toString(),
                    row.getLong(2),
                    row.getLong(4),
                    row.isNullAt(5) ? null : row.getUTF8String(5).toString()));
        }
        return rendered;
    }
}
