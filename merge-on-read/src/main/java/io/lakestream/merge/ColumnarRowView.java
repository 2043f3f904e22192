package io.lakestream.merge;

import java.util.List;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;

/**
 * A read-only {@link StructLike} view of one row of a columnar batch, to evaluate a filter on
 * ({@link SqlRowEvaluator}) without making a row object. Values are in Iceberg's internal
 * representation; each engine's batch says how it reads one.
 */
public abstract class ColumnarRowView implements StructLike {
    private final List<Type> types;
    private int row;

    /** @param types the Iceberg types of the batch's columns, in order */
    protected ColumnarRowView(List<Type> types) {
        this.types = List.copyOf(types);
    }

    /** Makes the view show row {@code row} of the batch. */
    public void moveTo(int row) {
        this.row = row;
    }

    protected int row() {
        return row;
    }

    protected abstract boolean isNull(int pos);

    /** The non-null value of column {@code pos} in the current row. */
    protected abstract Object value(int pos, Type type);

    @Override
    public int size() {
        return types.size();
    }

    @Override
    public <T> T get(int pos, Class<T> javaClass) {
        return isNull(pos) ? null : javaClass.cast(value(pos, types.get(pos)));
    }

    @Override
    public <T> void set(int pos, T value) {
        throw new UnsupportedOperationException("read-only row view");
    }
}
