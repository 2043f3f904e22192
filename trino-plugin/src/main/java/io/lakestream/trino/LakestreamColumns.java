package io.lakestream.trino;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.VarcharType.VARCHAR;

import com.google.common.collect.ImmutableList;
import io.lakestream.merge.ChangeColumns;
import io.lakestream.plan.ReadMode;
import io.lakestream.table.TableDefinition;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.RowType;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.iceberg.types.Types;

/**
 * The columns each view of a table shows: the user columns, for {@code $changes} the change columns
 * first, and the hidden columns {@code $bucket} and {@code $offset} (selectable by name, not part of
 * {@code SELECT *}).
 */
public final class LakestreamColumns {
    /** The system columns of {@code $changes} of an unpartitioned table, in the order the union split reader returns them. */
    public static final List<LakestreamColumnHandle> CHANGE_COLUMNS = List.of(
            LakestreamColumnHandle.change(ChangeColumns.CHANGE_TYPE, VARCHAR),
            LakestreamColumnHandle.change(ChangeColumns.BUCKET, INTEGER),
            LakestreamColumnHandle.change(ChangeColumns.OFFSET, BIGINT),
            LakestreamColumnHandle.change(ChangeColumns.COMMIT_TIMESTAMP, TIMESTAMP_TZ_MICROS));

    /** Those of a partitioned table: {@code _partition} (the partition path of the change's log) after the bucket. */
    public static final List<LakestreamColumnHandle> PARTITIONED_CHANGE_COLUMNS = List.of(
            CHANGE_COLUMNS.get(0),
            CHANGE_COLUMNS.get(1),
            LakestreamColumnHandle.change(ChangeColumns.PARTITION, VARCHAR),
            CHANGE_COLUMNS.get(2),
            CHANGE_COLUMNS.get(3));

    /** A row's log bucket; NULL for a lake row of an append-only table without a bucket key (its lake is not bucketed). */
    public static final LakestreamColumnHandle BUCKET =
            new LakestreamColumnHandle("$bucket", INTEGER, LakestreamColumnHandle.Kind.BUCKET, OptionalInt.empty());

    /** The log offset of the change a row of the log tail comes from; NULL for a lake row (the lake keeps no offsets). */
    public static final LakestreamColumnHandle OFFSET =
            new LakestreamColumnHandle("$offset", BIGINT, LakestreamColumnHandle.Kind.OFFSET, OptionalInt.empty());

    private LakestreamColumns() {}

    /** The system columns of the table's {@code $changes} ({@link ChangeColumns#fields}). */
    public static List<LakestreamColumnHandle> changeColumns(TableDefinition definition) {
        return ChangeColumns.hasPartition(definition) ? PARTITIONED_CHANGE_COLUMNS : CHANGE_COLUMNS;
    }

    public static List<LakestreamColumnHandle> userColumns(TableDefinition definition) {
        return definition.schema().columns().stream()
                .map(field -> LakestreamColumnHandle.user(
                        field.name(), LakestreamTypes.toTrinoType(field.type()), field.fieldId()))
                .collect(ImmutableList.toImmutableList());
    }

    /** The row id of a primary-key table: its key columns as one {@code row(...)} value. */
    public static LakestreamColumnHandle rowId(TableDefinition definition) {
        List<RowType.Field> fields = definition.primaryKey().stream()
                .map(name -> RowType.field(
                        name,
                        LakestreamTypes.toTrinoType(
                                definition.schema().findField(name).type())))
                .toList();
        return LakestreamColumnHandle.rowId(RowType.from(fields));
    }

    public static List<LakestreamColumnHandle> columns(TableDefinition definition, ReadMode mode) {
        ImmutableList.Builder<LakestreamColumnHandle> columns = ImmutableList.builder();
        if (mode == ReadMode.CHANGES) {
            columns.addAll(changeColumns(definition));
        }
        List<LakestreamColumnHandle> user = userColumns(definition);
        columns.addAll(user);
        for (LakestreamColumnHandle hidden : hiddenColumns(mode)) {
            // a user column of the same name wins: the hidden column is then not available
            if (user.stream().noneMatch(column -> column.name().equals(hidden.name()))) {
                columns.add(hidden);
            }
        }
        return columns.build();
    }

    /** {@code $changes} has its own bucket and offset columns; the lake keeps no offsets. */
    private static List<LakestreamColumnHandle> hiddenColumns(ReadMode mode) {
        return switch (mode) {
            case UNION -> List.of(BUCKET, OFFSET);
            case LAKE -> List.of(BUCKET);
            case CHANGES -> List.of();
        };
    }

    public static ColumnMetadata metadata(TableDefinition definition, ReadMode mode, LakestreamColumnHandle column) {
        if (column.kind() == LakestreamColumnHandle.Kind.ROW_ID) {
            return ColumnMetadata.builder()
                    .setName(column.name())
                    .setType(column.type())
                    .setNullable(false)
                    .setHidden(true)
                    .build();
        }
        if (column.kind() == LakestreamColumnHandle.Kind.BUCKET
                || column.kind() == LakestreamColumnHandle.Kind.OFFSET) {
            return ColumnMetadata.builder()
                    .setName(column.name())
                    .setType(column.type())
                    .setNullable(true)
                    .setHidden(true)
                    .setComment(Optional.of(
                            column.kind() == LakestreamColumnHandle.Kind.BUCKET
                                    ? "log bucket of the row"
                                    : "log offset of the change the row comes from; NULL for a row read from the lake"))
                    .build();
        }
        if (!column.isUserColumn()) {
            return ColumnMetadata.builder()
                    .setName(column.name())
                    .setType(column.type())
                    .setNullable(column.name().equals(ChangeColumns.PARTITION))
                    .setComment(Optional.of(changeColumnComment(column.name())))
                    .build();
        }
        Types.NestedField field = definition
                .schema()
                .findField(
                        column.isDereference()
                                ? column.path().getLast()
                                : column.fieldId().getAsInt());
        return ColumnMetadata.builder()
                .setName(column.qualifiedName())
                .setType(column.type())
                // in the changelog a delete carries only the key: every other column may be null there
                .setNullable(column.isDereference()
                        || field.isOptional()
                        || (mode == ReadMode.CHANGES && !definition.primaryKey().contains(field.name())))
                .setComment(Optional.ofNullable(field.doc()))
                .build();
    }

    private static String changeColumnComment(String name) {
        return switch (name) {
            case ChangeColumns.CHANGE_TYPE -> "insert, upsert or delete";
            case ChangeColumns.BUCKET -> "log bucket of the change";
            case ChangeColumns.PARTITION ->
                "partition path of the change's log; NULL if the table's log is kept per bucket";
            case ChangeColumns.OFFSET -> "offset of the change in its log: its bucket, or its partition's bucket";
            case ChangeColumns.COMMIT_TIMESTAMP -> "when the change was committed to the log";
            default -> throw new IllegalArgumentException("not a change column: " + name);
        };
    }
}
