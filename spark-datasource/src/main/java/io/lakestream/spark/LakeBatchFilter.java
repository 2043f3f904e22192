package io.lakestream.spark;

import io.lakestream.merge.SqlRowEvaluator;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * The pushed filter on lake rows read by Spark's Parquet reader, with SQL semantics ({@link
 * SqlRowEvaluator}), through a {@link StructLike} view of a batch row whose values are in Iceberg's
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
            view.row = rows[i];
            if (evaluator.test(view)) {
                rows[kept++] = view.row;
            }
        }
        return kept;
    }

    private static final class RowView implements StructLike {
        private final ColumnarBatch batch;
        private final List<Type> types;
        private int row;

        RowView(ColumnarBatch batch, List<Type> types) {
            this.batch = batch;
            this.types = types;
        }

        @Override
        public int size() {
            return types.size();
        }

        @Override
        public <T> T get(int pos, Class<T> javaClass) {
            ColumnVector vector = batch.column(pos);
            if (vector.isNullAt(row)) {
                return null;
            }
            Type type = types.get(pos);
            Object value = switch (type.typeId()) {
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
            return javaClass.cast(value);
        }

        @Override
        public <T> void set(int pos, T value) {
            throw new UnsupportedOperationException("read-only row view");
        }
    }
}
