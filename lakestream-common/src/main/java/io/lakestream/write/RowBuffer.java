package io.lakestream.write;

import io.lakestream.write.ValueConverter.Kind;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.Objects;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * The typed way to write a row, without boxing: an engine sets each column of the next row with the
 * setter of its physical value (a long, the UTF-8 bytes of a string, the unscaled long of a decimal,
 * micros of a timestamp...), then calls {@link LakestreamWriter#appendRow}, {@link
 * LakestreamWriter#upsertRow} or {@link LakestreamWriter#deleteRow}. A column not set since the last
 * row is null. Get it from {@link LakestreamWriter#row()}; columns are numbered in table schema order.
 *
 * <p>The row is validated when it is written, exactly as the boxed {@code append/upsert/delete}
 * validate a record (null keys, NOT NULL columns, decimal precision and scale, fixed lengths: same
 * error codes and messages, same column order), and lands in the same bucket. A setter whose value
 * the column's fast path does not take (another type, a widening, a decimal of another scale) hands
 * the equivalent boxed value to the boxed conversion, so both paths accept the same values.
 *
 * <p>The bytes passed to {@link #setUtf8} and {@link #setBytes} are copied when the setter is
 * called, so the caller may reuse its array right away. The rows are kept in the writer's {@link
 * RowBatch} and written to their segments a batch at a time.
 */
public final class RowBuffer {
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private final ValueConverter[] converters;
    private final Kind[] kinds;
    /** The writer's batch: the setters fill its row being set (index {@code batch.size()}). */
    private final RowBatch batch;
    /** Per column, a value the column cannot hold (reported when the row is written), else null. */
    private final Object[] rejected;

    private boolean anyRejected;

    RowBuffer(ValueConverter[] converters, RowBatch batch) {
        this.converters = converters;
        this.kinds = Arrays.stream(converters).map(ValueConverter::kind).toArray(Kind[]::new);
        this.batch = batch;
        this.rejected = new Object[converters.length];
    }

    public int columnCount() {
        return kinds.length;
    }

    public void setNull(int column) {
        batch.nulls[column][batch.size()] = true;
        accepted(column);
    }

    public void setBoolean(int column, boolean value) {
        if (kinds[column] == Kind.BOOLEAN) {
            setLongSlot(column, value ? 1 : 0);
        } else {
            setValue(column, value);
        }
    }

    public void setInt(int column, int value) {
        Kind kind = kinds[column];
        if (kind == Kind.INTEGER || kind == Kind.LONG) {
            setLongSlot(column, value);
        } else {
            setValue(column, value);
        }
    }

    public void setLong(int column, long value) {
        if (kinds[column] == Kind.LONG) {
            setLongSlot(column, value);
        } else {
            setValue(column, value);
        }
    }

    public void setFloat(int column, float value) {
        Kind kind = kinds[column];
        if (kind == Kind.FLOAT) {
            setLongSlot(column, Float.floatToRawIntBits(value));
        } else if (kind == Kind.DOUBLE) {
            setLongSlot(column, Double.doubleToRawLongBits(value));
        } else {
            setValue(column, value);
        }
    }

    public void setDouble(int column, double value) {
        if (kinds[column] == Kind.DOUBLE) {
            setLongSlot(column, Double.doubleToRawLongBits(value));
        } else {
            setValue(column, value);
        }
    }

    /** A decimal given as its unscaled value and scale: {@code unscaled * 10^-scale}. */
    public void setDecimalUnscaled(int column, long unscaled, int scale) {
        ValueConverter converter = converters[column];
        if (kinds[column] == Kind.LONG_DECIMAL && scale == converter.scale() && converter.holdsUnscaled(unscaled)) {
            setLongSlot(column, unscaled);
        } else {
            setValue(column, BigDecimal.valueOf(unscaled, scale));
        }
    }

    /** A date as days since 1970-01-01. */
    public void setDays(int column, int days) {
        if (kinds[column] == Kind.DATE) {
            setLongSlot(column, days);
        } else {
            setValue(column, LocalDate.ofEpochDay(days));
        }
    }

    /**
     * A timestamp (with or without zone) as microseconds since 1970-01-01T00:00:00 (UTC for a
     * timestamp with zone), or a time as microseconds since midnight.
     */
    public void setMicros(int column, long micros) {
        Kind kind = kinds[column];
        if (kind == Kind.TIMESTAMP || kind == Kind.TIMESTAMPTZ) {
            setLongSlot(column, micros);
        } else if (kind == Kind.TIME) {
            if (micros >= 0 && micros < MICROS_PER_DAY) {
                setLongSlot(column, micros);
            } else {
                reject(column, micros);
            }
        } else {
            setValue(column, DateTimeUtil.timestampFromMicros(micros));
        }
    }

    /** A string as {@code length} UTF-8 bytes of {@code bytes} from {@code offset}. */
    public void setUtf8(int column, byte[] bytes, int offset, int length) {
        if (kinds[column] == Kind.STRING) {
            setBytesSlot(column, bytes, offset, length);
        } else {
            setValue(column, new Utf8Value(Arrays.copyOfRange(bytes, offset, offset + length)));
        }
    }

    /** A binary or fixed value as {@code length} bytes of {@code bytes} from {@code offset}. */
    public void setBytes(int column, byte[] bytes, int offset, int length) {
        Kind kind = kinds[column];
        if (kind == Kind.BINARY || (kind == Kind.FIXED && length == converters[column].fixedLength())) {
            setBytesSlot(column, bytes, offset, length);
        } else {
            setValue(column, Arrays.copyOfRange(bytes, offset, offset + length));
        }
    }

    /**
     * Any value the boxed {@code append/upsert/delete} take for this column (a BigDecimal, a UUID,
     * an OffsetDateTime...), converted the same way; null sets a null.
     */
    public void setValue(int column, Object value) {
        if (value == null) {
            setNull(column);
        } else if (converters[column].convert(value, batch, column)) {
            batch.nulls[column][batch.size()] = false;
            accepted(column);
        } else {
            reject(column, value);
        }
    }

    Object[] rejected() {
        return rejected;
    }

    /** After a row is written (or replaced by a boxed row): no value rejected. */
    void clearRejected() {
        if (anyRejected) {
            Arrays.fill(rejected, null);
            anyRejected = false;
        }
    }

    private void setLongSlot(int column, long value) {
        int row = batch.size();
        batch.longs[column][row] = value;
        batch.nulls[column][row] = false;
        accepted(column);
    }

    private void setBytesSlot(int column, byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        batch.setBytes(column, bytes, offset, length);
        batch.nulls[column][batch.size()] = false;
        accepted(column);
    }

    /** Column {@code column} holds what was set last: forget a value rejected before. */
    private void accepted(int column) {
        // no store per value in the common case of nothing rejected
        if (anyRejected) {
            rejected[column] = null;
        }
    }

    private void reject(int column, Object value) {
        batch.nulls[column][batch.size()] = false;
        rejected[column] = value;
        anyRejected = true;
    }
}
