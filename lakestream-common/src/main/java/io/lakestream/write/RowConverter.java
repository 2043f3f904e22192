package io.lakestream.write;

import static io.lakestream.common.LakestreamError.INVALID_ROW;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.table.TableDefinition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Validates a row against the table schema and turns it into canonical values in schema order. A
 * delete row needs only the primary key; its other columns are stored as null.
 */
final class RowConverter {
    private final TableDefinition table;
    private final List<Types.NestedField> columns;
    private final Map<String, Integer> positions = new HashMap<>();
    private final boolean[] keyColumn;
    private final Types.StructType tableStruct;

    RowConverter(TableDefinition table) {
        this.table = table;
        this.columns = table.schema().columns();
        this.tableStruct = table.schema().asStruct();
        this.keyColumn = new boolean[columns.size()];
        Set<String> primaryKey = Set.copyOf(table.primaryKey());
        for (int i = 0; i < columns.size(); i++) {
            positions.put(columns.get(i).name(), i);
            keyColumn[i] = primaryKey.contains(columns.get(i).name());
        }
    }

    Object[] convert(Map<String, ?> row, ChangeType changeType) {
        for (String name : row.keySet()) {
            if (!positions.containsKey(name)) {
                throw invalid("unknown column '%s'; the table's columns are %s".formatted(name, positions.keySet()));
            }
        }
        Object[] values = new Object[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            values[i] = row.get(columns.get(i).name());
        }
        return validate(values, changeType);
    }

    Object[] convert(Record record, ChangeType changeType) {
        Object[] values = new Object[columns.size()];
        if (record.struct().equals(tableStruct)) {
            // the common case: a record of the table's own schema, read by position
            for (int i = 0; i < values.length; i++) {
                values[i] = record.get(i);
            }
            return validate(values, changeType);
        }
        for (Types.NestedField field : record.struct().fields()) {
            Integer position = positions.get(field.name());
            if (position == null) {
                throw invalid(
                        "unknown column '%s'; the table's columns are %s".formatted(field.name(), positions.keySet()));
            }
            values[position] = record.getField(field.name());
        }
        return validate(values, changeType);
    }

    private Object[] validate(Object[] values, ChangeType changeType) {
        for (int i = 0; i < columns.size(); i++) {
            Types.NestedField column = columns.get(i);
            if (changeType == ChangeType.DELETE && !keyColumn[i]) {
                values[i] = null;
                continue;
            }
            if (values[i] == null) {
                if (keyColumn[i]) {
                    throw invalid("primary key column '%s' is null; every row needs a value for each of %s"
                            .formatted(column.name(), table.primaryKey()));
                }
                if (column.isRequired()) {
                    throw invalid("column '%s' is NOT NULL but the row has no value for it".formatted(column.name()));
                }
                continue;
            }
            Object value = values[i];
            Object converted = ValueConverter.convert(column.type(), value);
            if (converted == null) {
                throw invalid("column '%s' of type %s cannot hold %s '%s'; expected Java type: %s"
                        .formatted(
                                column.name(),
                                column.type(),
                                value.getClass().getSimpleName(),
                                abbreviate(value),
                                ValueConverter.expectedJavaTypes(column.type())));
            }
            values[i] = converted;
        }
        return values;
    }

    private static String abbreviate(Object value) {
        String text = value instanceof byte[] bytes ? "byte[" + bytes.length + "]" : String.valueOf(value);
        return text.length() > 64 ? text.substring(0, 61) + "..." : text;
    }

    private static LakestreamException invalid(String message) {
        return new LakestreamException(INVALID_ROW, "Invalid row: " + message);
    }
}
