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
import org.apache.iceberg.types.Types;

/** The columns each view of a table shows: the user columns, and for {@code $changes} the change columns first. */
public final class LakestreamColumns {
    /** The system columns of {@code $changes}, in the order the union split reader returns them. */
    public static final List<LakestreamColumnHandle> CHANGE_COLUMNS = List.of(
            LakestreamColumnHandle.change(ChangeColumns.CHANGE_TYPE, VARCHAR),
            LakestreamColumnHandle.change(ChangeColumns.BUCKET, INTEGER),
            LakestreamColumnHandle.change(ChangeColumns.OFFSET, BIGINT),
            LakestreamColumnHandle.change(ChangeColumns.COMMIT_TIMESTAMP, TIMESTAMP_TZ_MICROS));

    private LakestreamColumns() {}

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
            columns.addAll(CHANGE_COLUMNS);
        }
        return columns.addAll(userColumns(definition)).build();
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
        if (!column.isUserColumn()) {
            return ColumnMetadata.builder()
                    .setName(column.name())
                    .setType(column.type())
                    .setNullable(false)
                    .setComment(Optional.of(changeColumnComment(column.name())))
                    .build();
        }
        Types.NestedField field = definition.schema().findField(column.fieldId().getAsInt());
        return ColumnMetadata.builder()
                .setName(column.name())
                .setType(column.type())
                // in the changelog a delete carries only the key: every other column may be null there
                .setNullable(field.isOptional()
                        || (mode == ReadMode.CHANGES && !definition.primaryKey().contains(field.name())))
                .setComment(Optional.ofNullable(field.doc()))
                .build();
    }

    private static String changeColumnComment(String name) {
        return switch (name) {
            case ChangeColumns.CHANGE_TYPE -> "insert, upsert or delete";
            case ChangeColumns.BUCKET -> "log bucket of the change";
            case ChangeColumns.OFFSET -> "offset of the change in its bucket";
            case ChangeColumns.COMMIT_TIMESTAMP -> "when the change was committed to the log";
            default -> throw new IllegalArgumentException("not a change column: " + name);
        };
    }
}
