package io.lakestream.spark;

import io.lakestream.merge.ColumnarRowView;
import io.lakestream.merge.SqlRowEvaluator;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The pushed filter on lake rows read by Spark's Parquet reader, with SQL semantics ({@link
 * SqlRowEvaluator}), through a {@link ColumnarRowView} of a batch row whose values are in Iceberg's
 * representation. Spark does not evaluate a pushed predicate again, so every lake row must pass it
 * here.
 */
final class LakeBatchFilter {
    private final SqlRowEvaluator evaluator;
    private final List<Type> types;

    /** @param fields the batch's columns, in order */
    LakeBatchFilter(List<Types.NestedField> fields, Expression filter) {
        this.evaluator = filter.op() == Expression.Operation.TRUE
                ? null
                : new SqlRowEvaluator(Types.StructType.of(fields), filter);
        this.types = fields.stream().map(Types.NestedField::type).toList();
    }

    boolean isAlwaysTrue() {
        return evaluator == null;
    }

    /** Narrows {@code rows[0, size)} in place to the rows that pass; returns how many remain. */
    int retain(ColumnarBatch batch, int[] rows, int size) {
        if (evaluator == null) {
            return size;
        }
        RowView view = new RowView(batch, types);
        int kept = 0;
        for (int i = 0; i < size; i++) {
            view.moveTo(rows[i]);
            if (evaluator.test(view)) {
                rows[kept++] = rows[i];
            }
        }
        return kept;
    }

    private static final class RowView extends ColumnarRowView {
        private final ColumnarBatch batch;

        RowView(ColumnarBatch batch, List<Type> types) {
            super(types);
            this.batch = batch;
        }

        @Override
        protected boolean isNull(int pos) {
            return batch.column(pos).isNullAt(row());
        }

        @Override
        protected Object value(int pos, Type type) {
            ColumnVector vector = batch.column(pos);
            int row = row();
            return switch (type.typeId()) {
                case BOOLEAN -> vector.getBoolean(row);
                case INTEGER, DATE -> vector.getInt(row);
                case LONG, TIMESTAMP -> vector.getLong(row);
                case FLOAT -> vector.getFloat(row);
                case DOUBLE -> vector.getDouble(row);
                case DECIMAL -> {
                    Types.DecimalType decimal = (Types.DecimalType) type;
                    yield vector.getDecimal(row, decimal.precision(), decimal.scale())
                            .toJavaBigDecimal();
                }
                case STRING -> vector.getUTF8String(row).toString();
                case BINARY -> ByteBuffer.wrap(vector.getBinary(row));
                default -> throw new IllegalStateException("column type %s is not read by Spark".formatted(type));
            };
        }
    }
}
