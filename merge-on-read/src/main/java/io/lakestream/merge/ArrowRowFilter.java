package io.lakestream.merge;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntPredicate;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Type;

/**
 * Evaluates an Iceberg filter expression on rows of an Arrow batch whose columns are {@code schema}'s
 * columns in order, with SQL semantics ({@link SqlRowEvaluator}), through a {@link ColumnarRowView} of the current row (values in Iceberg's
 * internal representation, read straight from the vectors).
 */
final class ArrowRowFilter {
    private final SqlRowEvaluator evaluator;
    private final boolean alwaysTrue;
    private final List<Type> types;

    ArrowRowFilter(Schema schema, Expression filter) {
        this.alwaysTrue = filter.op() == Expression.Operation.TRUE;
        this.evaluator = alwaysTrue ? null : new SqlRowEvaluator(schema.asStruct(), filter);
        this.types = schema.columns().stream().map(column -> column.type()).toList();
    }

    boolean isAlwaysTrue() {
        return alwaysTrue;
    }

    /** Keeps the selected rows of {@code batch} that pass the filter. */
    void apply(VectorSchemaRoot batch, Selection selection) {
        if (alwaysTrue) {
            return;
        }
        RowView row = new RowView(batch.getFieldVectors(), types);
        selection.retain(index -> {
            row.moveTo(index);
            return evaluator.test(row);
        });
    }

    /**
     * Whether a row of these vectors (the schema's columns in order) may pass: true unless the filter
     * is false on it, so an unknown result counts as a match (for checks that must not miss a row).
     */
    IntPredicate mayMatch(List<FieldVector> vectors) {
        if (alwaysTrue) {
            return index -> true;
        }
        RowView row = new RowView(vectors, types);
        return index -> {
            row.moveTo(index);
            return evaluator.mayBeTrue(row);
        };
    }

    private static final class RowView extends ColumnarRowView {
        private final List<FieldVector> vectors;

        private RowView(List<FieldVector> vectors, List<Type> types) {
            super(types);
            this.vectors = vectors;
        }

        @Override
        protected boolean isNull(int pos) {
            return vectors.get(pos).isNull(row());
        }

        @Override
        protected Object value(int pos, Type type) {
            FieldVector vector = vectors.get(pos);
            int index = row();
            return switch (type.typeId()) {
                case BOOLEAN -> ((BitVector) vector).get(index) != 0;
                case STRING -> {
                    BaseVariableWidthVector strings = (BaseVariableWidthVector) vector;
                    yield new String(strings.get(index), StandardCharsets.UTF_8);
                }
                case BINARY -> ByteBuffer.wrap(((BaseVariableWidthVector) vector).get(index));
                case FIXED -> ByteBuffer.wrap(((FixedSizeBinaryVector) vector).get(index));
                case UUID -> {
                    ByteBuffer bytes = ByteBuffer.wrap(((FixedSizeBinaryVector) vector).get(index));
                    yield new java.util.UUID(bytes.getLong(), bytes.getLong());
                }
                case DECIMAL -> ((DecimalVector) vector).getObject(index);
                case TIME, TIMESTAMP -> vector.getDataBuffer().getLong((long) index * 8);
                default -> vector.getObject(index);
            };
        }
    }
}
