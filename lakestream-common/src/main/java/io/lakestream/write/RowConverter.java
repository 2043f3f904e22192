package io.lakestream.write;

import static io.lakestream.common.LakestreamError.INVALID_ROW;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.table.TableDefinition;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Validates a row against the table schema and converts it, in schema order, into a {@link
 * RowBatch} (its row being set). A delete row needs only the primary key; its other columns are
 * stored as null.
 *
 * <p>Everything that depends only on the schema is resolved once: the converter of each column and,
 * for {@link Record} input, where each table column is in the record's struct (cached per struct, so
 * records of one schema are read by position). Not thread-safe, like the writer that owns it.
 */
final class RowConverter {
    private final TableDefinition table;
    private final String[] names;
    private final boolean[] required;
    private final boolean[] keyColumn;
    private final ValueConverter[] converters;
    private final Map<String, Integer> positions = new HashMap<>();
    private final Types.StructType tableStruct;
    /** The struct of the last record converted, and its field position for each table column. */
    private Types.StructType lastStruct;

    private int[] lastFieldPositions;

    RowConverter(TableDefinition table) {
        this.table = table;
        List<Types.NestedField> columns = table.schema().columns();
        this.tableStruct = table.schema().asStruct();
        this.names = new String[columns.size()];
        this.required = new boolean[columns.size()];
        this.keyColumn = new boolean[columns.size()];
        this.converters = new ValueConverter[columns.size()];
        Set<String> primaryKey = Set.copyOf(table.primaryKey());
        for (int i = 0; i < columns.size(); i++) {
            Types.NestedField column = columns.get(i);
            names[i] = column.name();
            required[i] = column.isRequired();
            keyColumn[i] = primaryKey.contains(column.name());
            converters[i] = ValueConverter.forType(column.type());
            positions.put(column.name(), i);
        }
    }

    int columnCount() {
        return converters.length;
    }

    ValueConverter converter(int column) {
        return converters[column];
    }

    void convert(Map<String, ?> row, ChangeType changeType, RowBatch converted) {
        for (String name : row.keySet()) {
            if (!positions.containsKey(name)) {
                throw invalid("unknown column '%s'; the table's columns are %s".formatted(name, positions.keySet()));
            }
        }
        boolean delete = changeType == ChangeType.DELETE;
        int index = converted.size();
        for (int i = 0; i < names.length; i++) {
            if (delete && !keyColumn[i]) {
                converted.nulls[i][index] = true;
            } else {
                convertValue(i, row.get(names[i]), converted);
            }
        }
    }

    void convert(Record record, ChangeType changeType, RowBatch converted) {
        Types.StructType struct = record.struct();
        if (struct != lastStruct) {
            lastFieldPositions = fieldPositions(struct);
            lastStruct = struct;
        }
        int[] fieldPositions = lastFieldPositions;
        boolean delete = changeType == ChangeType.DELETE;
        int index = converted.size();
        for (int i = 0; i < names.length; i++) {
            if (delete && !keyColumn[i]) {
                converted.nulls[i][index] = true;
                continue;
            }
            Object value;
            if (fieldPositions == null) {
                value = record.get(i);
            } else {
                value = fieldPositions[i] < 0 ? null : record.get(fieldPositions[i]);
            }
            convertValue(i, value, converted);
        }
    }

    /**
     * Where each table column is in records of {@code struct} (-1: not there), or null for the
     * table's own struct (read by position). Fails on a field the table does not have.
     */
    private int[] fieldPositions(Types.StructType struct) {
        if (struct.equals(tableStruct)) {
            return null;
        }
        int[] fieldPositions = new int[names.length];
        Arrays.fill(fieldPositions, -1);
        List<Types.NestedField> fields = struct.fields();
        for (int field = 0; field < fields.size(); field++) {
            String name = fields.get(field).name();
            Integer position = positions.get(name);
            if (position == null) {
                throw invalid("unknown column '%s'; the table's columns are %s".formatted(name, positions.keySet()));
            }
            fieldPositions[position] = field;
        }
        return fieldPositions;
    }

    /**
     * Validates the row being set in {@code batch} by a {@link RowBuffer}'s typed setters exactly as
     * {@link #convert} validates a boxed row, in the same column order and with the same errors: {@code
     * rejected[i]} is the value of column {@code i} a setter could not convert (null if none). For a
     * delete, non-key columns are set to null and not checked.
     */
    void validate(RowBatch batch, Object[] rejected, ChangeType changeType) {
        boolean delete = changeType == ChangeType.DELETE;
        boolean[][] nulls = batch.nulls;
        int index = batch.size();
        for (int i = 0; i < nulls.length; i++) {
            if (delete && !keyColumn[i]) {
                nulls[i][index] = true;
            } else if (nulls[i][index]) {
                checkNullable(i);
            } else if (rejected[i] != null) {
                throw cannotHold(i, rejected[i]);
            }
        }
    }

    private void convertValue(int column, Object value, RowBatch converted) {
        if (value == null) {
            checkNullable(column);
            converted.nulls[column][converted.size()] = true;
            return;
        }
        if (!converters[column].convert(value, converted, column)) {
            throw cannotHold(column, value);
        }
        converted.nulls[column][converted.size()] = false;
    }

    private void checkNullable(int column) {
        if (keyColumn[column]) {
            throw invalid("primary key column '%s' is null; every row needs a value for each of %s"
                    .formatted(names[column], table.primaryKey()));
        }
        if (required[column]) {
            throw invalid("column '%s' is NOT NULL but the row has no value for it".formatted(names[column]));
        }
    }

    private LakestreamException cannotHold(int column, Object value) {
        ValueConverter converter = converters[column];
        return invalid("column '%s' of type %s cannot hold %s '%s'; expected Java type: %s"
                .formatted(
                        names[column],
                        converter.type(),
                        value.getClass().getSimpleName(),
                        abbreviate(value),
                        ValueConverter.expectedJavaTypes(converter.type())));
    }

    private static String abbreviate(Object value) {
        String text = value instanceof byte[] bytes ? "byte[" + bytes.length + "]" : String.valueOf(value);
        return text.length() > 64 ? text.substring(0, 61) + "..." : text;
    }

    private static LakestreamException invalid(String message) {
        return new LakestreamException(INVALID_ROW, "Invalid row: " + message);
    }
}
