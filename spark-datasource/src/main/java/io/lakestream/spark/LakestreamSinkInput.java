package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.STREAMING_SCHEMA_MISMATCH;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import io.lakestream.common.LakestreamException;
import io.lakestream.merge.ChangeColumns;
import io.lakestream.table.LakestreamTable;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * How the rows of a streaming write map onto its table: every table column by name (in any order),
 * with exactly the table's Spark type, plus optionally the change-type column {@code _change_type} of
 * a changelog (what {@code t$changes} and a Lakestream stream source produce). The changelog's other
 * system columns ({@code _bucket}, {@code _partition}, {@code _offset}, {@code _commit_timestamp}) are ignored, so a
 * changelog can be written into a derived table as it is. Checked on the driver when the write is
 * planned, before the first batch writes anything; the executors rebuild the mapping from the input's
 * column names.
 *
 * @param inputColumns the input's column names, in input order
 */
record LakestreamSinkInput(List<String> inputColumns) implements Serializable {
    private static final Set<String> IGNORED_COLUMNS =
            Set.of(ChangeColumns.BUCKET, ChangeColumns.PARTITION, ChangeColumns.OFFSET, ChangeColumns.COMMIT_TIMESTAMP);

    LakestreamSinkInput {
        inputColumns = ImmutableList.copyOf(requireNonNull(inputColumns, "inputColumns is null"));
    }

    /** Rows with the table's columns in schema order: what a batch write hands its tasks. */
    static LakestreamSinkInput ofTable(Schema schema) {
        return new LakestreamSinkInput(
                schema.columns().stream().map(Types.NestedField::name).toList());
    }

    /** The input of a streaming write into {@code table}, or {@code STREAMING_SCHEMA_MISMATCH} saying what to change. */
    static LakestreamSinkInput check(LakestreamTable table, StructType input) {
        return check(table.identifier().toString(), table.definition().schema(), input);
    }

    static LakestreamSinkInput check(String table, Schema schema, StructType input) {
        List<String> problems = new ArrayList<>();
        for (Types.NestedField column : schema.columns()) {
            DataType expected = LakestreamTypes.sparkType(column.name(), column.type());
            Optional<StructField> field = field(input, column.name());
            if (field.isEmpty()) {
                problems.add("column %s (%s) is missing".formatted(column.name(), expected.simpleString()));
            } else if (!LakestreamNestedTypes.withoutComments(field.get().dataType())
                    .equals(LakestreamNestedTypes.withoutComments(expected))) {
                problems.add("column %s is %s, the table has %s (cast it)"
                        .formatted(column.name(), field.get().dataType().simpleString(), expected.simpleString()));
            }
        }
        for (StructField field : input.fields()) {
            String name = field.name().toLowerCase(Locale.ROOT);
            if (schema.caseInsensitiveFindField(field.name()) != null) {
                continue;
            }
            if (name.equals(ChangeColumns.CHANGE_TYPE)) {
                if (!field.dataType().equals(DataTypes.StringType)) {
                    problems.add("the change type column %s is %s, not string"
                            .formatted(field.name(), field.dataType().simpleString()));
                }
            } else if (!IGNORED_COLUMNS.contains(name)) {
                problems.add("column %s is not in the table".formatted(field.name()));
            }
        }
        if (hasDuplicates(input)) {
            problems.add("the input has duplicate column names " + List.of(input.fieldNames()));
        }
        if (!problems.isEmpty()) {
            throw new LakestreamException(
                    STREAMING_SCHEMA_MISMATCH,
                    ("The streaming write into %s does not match the table: %s. The stream must have the table's columns %s "
                                    + "(by name, in any order, with the same types), and may have a %s column (insert, "
                                    + "update_before, update_after, delete); select and cast its columns to match")
                            .formatted(
                                    table,
                                    String.join("; ", problems),
                                    LakestreamTypes.sparkSchema(schema).simpleString(),
                                    ChangeColumns.CHANGE_TYPE));
        }
        return new LakestreamSinkInput(List.of(input.fieldNames()));
    }

    private static boolean hasDuplicates(StructType input) {
        return List.of(input.fieldNames()).stream()
                        .map(name -> name.toLowerCase(Locale.ROOT))
                        .distinct()
                        .count()
                != input.fieldNames().length;
    }

    private static Optional<StructField> field(StructType input, String name) {
        for (StructField field : input.fields()) {
            if (field.name().equalsIgnoreCase(name)) {
                return Optional.of(field);
            }
        }
        return Optional.empty();
    }

    /** Reads the given table columns from the input rows. */
    LakestreamRowSetter setter(Schema schema, List<String> columns) {
        int[] ordinals = new int[columns.size()];
        for (int i = 0; i < ordinals.length; i++) {
            ordinals[i] = ordinal(columns.get(i)).orElseThrow();
        }
        return new LakestreamRowSetter(schema, columns, ordinals);
    }

    /** The input ordinal of the change-type column, if the input is a changelog (and the table has no such column). */
    OptionalInt changeTypeOrdinal(Schema schema) {
        if (schema.caseInsensitiveFindField(ChangeColumns.CHANGE_TYPE) != null) {
            return OptionalInt.empty();
        }
        return ordinal(ChangeColumns.CHANGE_TYPE);
    }

    private OptionalInt ordinal(String name) {
        for (int i = 0; i < inputColumns.size(); i++) {
            if (inputColumns.get(i).equalsIgnoreCase(name)) {
                return OptionalInt.of(i);
            }
        }
        return OptionalInt.empty();
    }
}
