package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Creates the columnar readers of a scan on the executors. Everything it holds is plain data: the
 * table reference, the requested columns, the filter as Iceberg expression JSON, the merge limit and
 * the limit hint.
 *
 * @param table where to load the table
 * @param columns the user columns to return, in order
 * @param readSchema the Spark schema of the batches (for the change columns and the uuid/fixed types)
 * @param filterJson the pushed filter as Iceberg expression JSON
 * @param maxIndexRows the merge limit
 * @param limit the most rows a partition needs to return; negative for no limit
 * @param lakePruningJson predicates Spark applies itself that prune lake row groups, as Iceberg expression JSON
 */
record LakestreamReaderFactory(
        LakestreamTableRef table,
        List<String> columns,
        StructType readSchema,
        String filterJson,
        long maxIndexRows,
        long limit,
        String lakePruningJson)
        implements PartitionReaderFactory {
    /** The {@code lakePruningJson} of a factory that prunes the lake with its filter alone. */
    static final String NO_LAKE_PRUNING_JSON = ExpressionParser.toJson(Expressions.alwaysTrue());

    LakestreamReaderFactory {
        requireNonNull(table, "table is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(readSchema, "readSchema is null");
        requireNonNull(filterJson, "filterJson is null");
        requireNonNull(lakePruningJson, "lakePruningJson is null");
    }

    /** The lake pruning expression over the table's schema. */
    Expression lakePruning(Schema schema) {
        return ExpressionParser.fromJson(lakePruningJson, schema);
    }

    /** The user columns this factory reads, each narrowed to the Spark type the scan reads it as. */
    List<Types.NestedField> readFields(LakestreamTable table) {
        return readFields(
                table,
                columns,
                List.of(readSchema.fields()).stream().map(StructField::dataType).toList());
    }

    /**
     * The user columns, each narrowed to the Spark type the scan reads it as ({@link SparkNestedPruning}); they are
     * the last of the batch's columns (the changelog's own columns come first).
     */
    static List<Types.NestedField> readFields(LakestreamTable table, List<String> columns, List<DataType> types) {
        List<DataType> userTypes = types.subList(types.size() - columns.size(), types.size());
        List<Types.NestedField> fields = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            Types.NestedField column = table.definition().schema().findField(columns.get(i));
            if (column == null) {
                throw new LakestreamException(
                        LakestreamError.INVALID_READ_OPTIONS,
                        "Column '%s' does not exist in table %s".formatted(columns.get(i), table.identifier()));
            }
            fields.add(SparkNestedPruning.narrow(column, userTypes.get(i)));
        }
        return fields;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        return new LakestreamPartitionReader(this, ((LakestreamInputPartition) partition).split());
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        // Spark reads columnar batches (supportColumnarReads); rows are only a fallback
        return new LakestreamRowReader(createColumnarReader(partition));
    }
}
