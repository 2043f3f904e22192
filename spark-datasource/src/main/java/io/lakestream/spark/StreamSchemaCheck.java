package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.STREAMING_SCHEMA_MISMATCH;

import io.lakestream.common.LakestreamException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Whether a stream read can go on with the schema it started with after an {@code ALTER TABLE}. Spark fixes a stream's
 * columns when the query starts; every later log segment and lake file is read mapped to them by field id. That is
 * lossless when a column (or struct field) was added (not shown) or renamed (its values under the name the stream
 * started with). It is not when one of the stream's columns or fields was dropped (rows written since would show
 * NULL for a value that no longer exists), widened (rows written since hold values the old type cannot), or made
 * nullable (rows written since may hold NULL where the stream promised none): then the query fails with {@code
 * STREAMING_SCHEMA_MISMATCH}, and restarted it resumes from its checkpoint with the new schema, as Delta's streams do.
 *
 * <p>The check compares the stream's schema with the lake's current one, read after the batch's end offsets were: any
 * segment in the batch was written with a schema committed before it, so no newer than the one checked, and none of
 * these changes can be undone (a dropped field id never returns, Iceberg cannot narrow a type, and {@code SET NOT NULL}
 * is refused), so a schema that passes means every segment's did.
 */
final class StreamSchemaCheck {
    static final String RESTART_ADVICE =
            "Restart the query: it resumes from its checkpoint with the table's new schema,"
                    + " without losing or repeating a change";

    private StreamSchemaCheck() {}

    /** Fails with {@code STREAMING_SCHEMA_MISMATCH} if {@code current} cannot be read with {@code started}. */
    static void check(String table, Schema started, Schema current) {
        List<String> changes = new ArrayList<>();
        compare(started.asStruct(), current.asStruct(), "", changes);
        if (!changes.isEmpty()) {
            throw new LakestreamException(
                    STREAMING_SCHEMA_MISMATCH,
                    ("The stream on %s started with a schema that an ALTER TABLE changed since: %s. Rows written since cannot "
                                    + "be read with the columns the stream started with. %s")
                            .formatted(table, String.join("; ", changes), RESTART_ADVICE));
        }
    }

    private static void compare(
            Types.StructType started, Types.StructType current, String prefix, List<String> changes) {
        for (Types.NestedField field : started.fields()) {
            String name = prefix + field.name();
            Optional<Types.NestedField> now = Optional.ofNullable(current.field(field.fieldId()));
            if (now.isEmpty()) {
                changes.add("column %s was dropped".formatted(name));
                continue;
            }
            compare(field, now.get(), name, changes);
        }
    }

    private static void compare(
            Types.NestedField started, Types.NestedField current, String name, List<String> changes) {
        if (started.isRequired() && current.isOptional()) {
            changes.add("column %s was made nullable".formatted(name));
        }
        compare(started.type(), current.type(), name, changes);
    }

    private static void compare(Type started, Type current, String name, List<String> changes) {
        if (started.isPrimitiveType() || current.isPrimitiveType() || started.typeId() != current.typeId()) {
            if (!started.equals(current)) {
                changes.add("column %s is %s now, it was %s".formatted(name, current, started));
            }
            return;
        }
        switch (started) {
            case Types.StructType struct -> compare(struct, current.asStructType(), name + ".", changes);
            case Types.ListType list -> {
                Types.ListType now = current.asListType();
                compare(list.fields().getFirst(), now.fields().getFirst(), name + ".element", changes);
            }
            case Types.MapType map -> {
                Types.MapType now = current.asMapType();
                compare(map.fields().get(0), now.fields().get(0), name + ".key", changes);
                compare(map.fields().get(1), now.fields().get(1), name + ".value", changes);
            }
            default -> {
                if (!started.equals(current)) {
                    changes.add("column %s is %s now, it was %s".formatted(name, current, started));
                }
            }
        }
    }
}
