package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.LogRange;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What the batches of a stream read and in which shape: on the changelog ({@code t$changes}) every row
 * has the change columns, the table's state of a {@code full} start included (its rows are {@code
 * insert}s, or {@code upsert}s of a primary-key table in the outputs {@code log} and {@code upsert},
 * without offset and commit time); on an append-only table ({@code t}) the rows themselves.
 *
 * @param table the table
 * @param output what the rows are
 * @param columns the user columns to return, in table order, each a struct possibly narrowed to the fields the
 *     stream's query uses (nested schema pruning, {@link LakestreamStreamPushdown}): the executors read only those
 * @param filter the rows to return, applied to every row read (the state's and the log's), so only filters that
 *     are exact on the output's rows belong here ({@link LakestreamStreamPushdown})
 * @param merge the merge limits of the state read
 */
record StreamBatches(
        LakestreamTable table,
        StreamOutput output,
        List<Types.NestedField> columns,
        Expression filter,
        MergeConfig merge) {
    StreamBatches {
        requireNonNull(table, "table is null");
        requireNonNull(output, "output is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(filter, "filter is null");
        requireNonNull(merge, "merge is null");
    }

    /** The same batches, reading only {@code columns} and the rows that pass {@code filter}. */
    StreamBatches pushedDown(List<Types.NestedField> columns, Expression filter) {
        return new StreamBatches(table, output, columns, filter, merge);
    }

    /** The log range as a split: its changes, or (append-only rows) its rows. */
    UnionSplit logSplit(LogRange range, long logVersion) {
        return new UnionSplit(
                OptionalInt.of(range.bucket()),
                changelog() ? ReadMode.CHANGES : ReadMode.UNION,
                List.of(),
                Optional.of(range),
                logVersion,
                false,
                Optional.empty());
    }

    /** Whether rows carry the change columns. */
    boolean changelog() {
        return output.changeColumns();
    }

    /** The names of the user columns to return. */
    List<String> columnNames() {
        return columns.stream().map(Types.NestedField::name).toList();
    }

    /** The user columns as Spark reads them: a narrowed struct with only its read fields. */
    StructType rowSchema() {
        return new StructType(columns.stream().map(LakestreamTypes::sparkField).toArray(StructField[]::new));
    }

    /** The rows of the stream: the change columns first on the changelog, as in {@code t$changes}. */
    StructType readSchema() {
        if (!changelog()) {
            return rowSchema();
        }
        List<StructField> fields =
                new ArrayList<>(LakestreamTypes.changeFields(table.table().definition()));
        fields.addAll(List.of(rowSchema().fields()));
        return new StructType(fields.toArray(StructField[]::new));
    }

    LakestreamStreamReaderFactory readerFactory() {
        // bound, so literals are written with their column types (as LakestreamScan writes them)
        String filterJson = ExpressionParser.toJson(
                Binder.bind(table.table().definition().schema().asStruct(), filter, false));
        LakestreamReaderFactory rows = new LakestreamReaderFactory(
                table.ref(),
                columnNames(),
                rowSchema(),
                filterJson,
                merge.maxIndexRows(),
                -1,
                LakestreamReaderFactory.NO_LAKE_PRUNING_JSON);
        LakestreamReaderFactory changes = new LakestreamReaderFactory(
                table.ref(),
                columnNames(),
                readSchema(),
                filterJson,
                merge.maxIndexRows(),
                -1,
                LakestreamReaderFactory.NO_LAKE_PRUNING_JSON);
        return new LakestreamStreamReaderFactory(
                rows,
                changes,
                output,
                output.stateChangeType(table.table().definition().hasPrimaryKey()));
    }
}
