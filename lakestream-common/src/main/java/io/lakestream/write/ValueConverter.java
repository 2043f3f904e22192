package io.lakestream.write;

import io.lakestream.bucket.BucketFunction;
import io.lakestream.bucket.Murmur3;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BucketUtil;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * Converts the Java values a caller hands the writer for one column into the form the log stores
 * (a value of a {@link RowBatch}), or says that a value does not fit; {@link ColumnWriter} then writes
 * converted values into the column's Arrow vector (the log's Arrow types, see {@link
 * io.lakestream.log.LogSchema}). Chosen once per column; converting allocates nothing for fixed-width
 * types.
 *
 * <p>Accepted values are Iceberg's generic values plus lossless widenings: int to long, float to
 * double, a decimal with fewer fraction digits (or an Integer, Long or BigInteger for a decimal),
 * {@link ZonedDateTime} and {@link Instant} for a timestamp with zone, any {@link CharSequence} for
 * a string (or a {@link Utf8Value}, bytes already encoded), {@code byte[]} or {@link ByteBuffer} for
 * fixed and binary. Time values are truncated to
 * microseconds, the precision of the table. The canonical value of a converted value ({@link
 * #icebergValue}) is Iceberg's generic value, with {@code byte[]} for fixed and binary and an {@link
 * OffsetDateTime} in UTC for a timestamp with zone.
 */
final class ValueConverter {
    /** Decimals up to this precision are held and written as their unscaled long. */
    static final int MAX_LONG_DECIMAL_PRECISION = 18;

    /** 10^0 to 10^18, the powers of ten that fit in a long. */
    private static final long[] POWERS_OF_TEN = new long[MAX_LONG_DECIMAL_PRECISION + 1];

    static {
        POWERS_OF_TEN[0] = 1;
        for (int i = 1; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
        }
    }

    /** How a column's values are held in a {@link RowBatch} and written into its vector. */
    enum Kind {
        BOOLEAN,
        INTEGER,
        LONG,
        FLOAT,
        DOUBLE,
        /** precision 1 to 18: the unscaled long */
        LONG_DECIMAL,
        /** wider decimals: a BigDecimal of the column's scale */
        DECIMAL,
        DATE,
        TIME,
        TIMESTAMP,
        TIMESTAMPTZ,
        STRING,
        UUID,
        FIXED,
        BINARY,
        /** list, map and struct: Iceberg's generic value ({@link NestedValueConverter}) */
        NESTED
    }

    private final Type type;
    private final Kind kind;
    private final int precision;
    private final int scale;
    private final int fixedLength;
    /** Only for {@link Kind#NESTED}. */
    private final NestedValueConverter nested;

    private ValueConverter(Type type, Kind kind, int precision, int scale, int fixedLength) {
        this.type = type;
        this.kind = kind;
        this.precision = precision;
        this.scale = scale;
        this.fixedLength = fixedLength;
        this.nested = kind == Kind.NESTED ? new NestedValueConverter(type) : null;
    }

    static ValueConverter forType(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> new ValueConverter(type, Kind.BOOLEAN, 0, 0, 0);
            case INTEGER -> new ValueConverter(type, Kind.INTEGER, 0, 0, 0);
            case LONG -> new ValueConverter(type, Kind.LONG, 0, 0, 0);
            case FLOAT -> new ValueConverter(type, Kind.FLOAT, 0, 0, 0);
            case DOUBLE -> new ValueConverter(type, Kind.DOUBLE, 0, 0, 0);
            case DECIMAL -> {
                Types.DecimalType decimal = (Types.DecimalType) type;
                boolean fitsLong = decimal.precision() >= 1 && decimal.precision() <= MAX_LONG_DECIMAL_PRECISION;
                yield new ValueConverter(
                        type, fitsLong ? Kind.LONG_DECIMAL : Kind.DECIMAL, decimal.precision(), decimal.scale(), 0);
            }
            case DATE -> new ValueConverter(type, Kind.DATE, 0, 0, 0);
            case TIME -> new ValueConverter(type, Kind.TIME, 0, 0, 0);
            case TIMESTAMP ->
                new ValueConverter(
                        type,
                        ((Types.TimestampType) type).shouldAdjustToUTC() ? Kind.TIMESTAMPTZ : Kind.TIMESTAMP,
                        0,
                        0,
                        0);
            case STRING -> new ValueConverter(type, Kind.STRING, 0, 0, 0);
            case UUID -> new ValueConverter(type, Kind.UUID, 0, 0, 0);
            case FIXED -> new ValueConverter(type, Kind.FIXED, 0, 0, ((Types.FixedType) type).length());
            case BINARY -> new ValueConverter(type, Kind.BINARY, 0, 0, 0);
            case LIST, MAP, STRUCT -> new ValueConverter(type, Kind.NESTED, 0, 0, 0);
            default -> throw new IllegalArgumentException("type %s is not supported in the log".formatted(type));
        };
    }

    Type type() {
        return type;
    }

    Kind kind() {
        return kind;
    }

    int scale() {
        return scale;
    }

    int fixedLength() {
        return fixedLength;
    }

    /**
     * Whether a decimal of precision 1 to 18 holds this unscaled value at the column's scale: the
     * same answer as converting {@code BigDecimal.valueOf(unscaled, scale())}.
     */
    boolean holdsUnscaled(long unscaled) {
        long limit = POWERS_OF_TEN[precision];
        return unscaled > -limit && unscaled < limit;
    }

    /**
     * Converts a non-null value into column {@code column} of the row being set in {@code batch};
     * false if a column of this type cannot hold it (the row is then invalid and the value undefined).
     */
    boolean convert(Object value, RowBatch batch, int column) {
        long[] longs = batch.longs[column];
        int row = batch.size();
        switch (kind) {
            case BOOLEAN -> {
                if (!(value instanceof Boolean bool)) {
                    return false;
                }
                longs[row] = bool ? 1 : 0;
            }
            case INTEGER -> {
                if (value instanceof Integer i) {
                    longs[row] = i;
                } else if (value instanceof Short s) {
                    longs[row] = s;
                } else if (value instanceof Byte b) {
                    longs[row] = b;
                } else {
                    return false;
                }
            }
            case LONG -> {
                if (value instanceof Long l) {
                    longs[row] = l;
                } else if (value instanceof Integer i) {
                    longs[row] = i;
                } else if (value instanceof Short s) {
                    longs[row] = s;
                } else if (value instanceof Byte b) {
                    longs[row] = b;
                } else {
                    return false;
                }
            }
            case FLOAT -> {
                if (!(value instanceof Float f)) {
                    return false;
                }
                longs[row] = Float.floatToRawIntBits(f);
            }
            case DOUBLE -> {
                if (value instanceof Double d) {
                    longs[row] = Double.doubleToRawLongBits(d);
                } else if (value instanceof Float f) {
                    longs[row] = Double.doubleToRawLongBits(f);
                } else {
                    return false;
                }
            }
            case LONG_DECIMAL -> {
                return longDecimal(value, longs, row);
            }
            case DECIMAL -> {
                BigDecimal decimal = decimal(value);
                if (decimal == null) {
                    return false;
                }
                batch.objects[column][row] = decimal;
            }
            case DATE -> {
                if (!(value instanceof LocalDate date)) {
                    return false;
                }
                // the days since 1970-01-01 as an int, like Iceberg's DateTimeUtil.daysFromDate; a LocalDate
                // reaches a billion years, so a date beyond the int range is refused, not wrapped
                long days = date.toEpochDay();
                if (days < Integer.MIN_VALUE || days > Integer.MAX_VALUE) {
                    return false;
                }
                longs[row] = days;
            }
            case TIME -> {
                if (!(value instanceof LocalTime time)) {
                    return false;
                }
                // truncated to microseconds
                longs[row] = time.toNanoOfDay() / 1000;
            }
            case TIMESTAMP -> {
                if (!(value instanceof LocalDateTime timestamp)) {
                    return false;
                }
                return micros(timestamp.toEpochSecond(ZoneOffset.UTC), timestamp.getNano(), longs, row);
            }
            case TIMESTAMPTZ -> {
                if (value instanceof OffsetDateTime timestamp) {
                    return micros(timestamp.toEpochSecond(), timestamp.getNano(), longs, row);
                }
                if (value instanceof ZonedDateTime timestamp) {
                    return micros(timestamp.toEpochSecond(), timestamp.getNano(), longs, row);
                }
                if (value instanceof Instant timestamp) {
                    return micros(timestamp.getEpochSecond(), timestamp.getNano(), longs, row);
                }
                return false;
            }
            case STRING -> {
                // an engine's UTF-8 bytes are stored as they are; a Java string is encoded once
                byte[] utf8;
                if (value instanceof Utf8Value engineBytes) {
                    utf8 = engineBytes.bytes();
                } else if (value instanceof CharSequence chars) {
                    utf8 = chars.toString().getBytes(StandardCharsets.UTF_8);
                } else {
                    return false;
                }
                batch.setBytes(column, utf8, 0, utf8.length);
            }
            case UUID -> {
                if (!(value instanceof UUID)) {
                    return false;
                }
                batch.objects[column][row] = value;
            }
            case FIXED -> {
                byte[] bytes = bytes(value);
                if (bytes == null || bytes.length != fixedLength) {
                    return false;
                }
                batch.setBytes(column, bytes, 0, bytes.length);
            }
            case BINARY -> {
                byte[] bytes = bytes(value);
                if (bytes == null) {
                    return false;
                }
                batch.setBytes(column, bytes, 0, bytes.length);
            }
            case NESTED -> {
                Object converted = nested.convert(value);
                if (converted == null) {
                    return false;
                }
                batch.objects[column][row] = converted;
            }
        }
        return true;
    }

    /**
     * Iceberg's bucket hash of the converted non-null value of {@code row} in {@code column}, as {@link
     * BucketFunction#hash} computes it.
     */
    int bucketHash(RowBatch batch, int column, int row) {
        return switch (kind) {
            case INTEGER, DATE -> Murmur3.hashLong((int) batch.longs[column][row]);
            case LONG, TIME, TIMESTAMP, TIMESTAMPTZ -> Murmur3.hashLong(batch.longs[column][row]);
            default -> otherBucketHash(batch, column, row);
        };
    }

    private int otherBucketHash(RowBatch batch, int column, int row) {
        return switch (kind) {
            // the hash of the (UTF-8) bytes, as BucketFunction.hash of a byte[]
            case STRING, FIXED, BINARY ->
                BucketUtil.hash(
                        ByteBuffer.wrap(batch.bytes[column], batch.starts[column][row], batch.lengths[column][row]));
            default -> BucketFunction.hash(type, icebergValue(batch, column, row));
        };
    }

    /** The converted value of {@code row} in {@code column} as Iceberg's generic value (null for a null). */
    Object icebergValue(RowBatch batch, int column, int row) {
        if (batch.nulls[column][row]) {
            return null;
        }
        long value = batch.longs[column][row];
        return switch (kind) {
            case BOOLEAN -> value != 0;
            case INTEGER -> (int) value;
            case LONG -> value;
            case FLOAT -> Float.intBitsToFloat((int) value);
            case DOUBLE -> Double.longBitsToDouble(value);
            case LONG_DECIMAL -> BigDecimal.valueOf(value, scale);
            case DATE -> LocalDate.ofEpochDay(value);
            case TIME -> LocalTime.ofNanoOfDay(value * 1000);
            case TIMESTAMP -> DateTimeUtil.timestampFromMicros(value);
            case TIMESTAMPTZ -> DateTimeUtil.timestamptzFromMicros(value);
            case STRING ->
                new String(
                        batch.bytes[column],
                        batch.starts[column][row],
                        batch.lengths[column][row],
                        StandardCharsets.UTF_8);
            case FIXED, BINARY -> {
                int start = batch.starts[column][row];
                yield Arrays.copyOfRange(batch.bytes[column], start, start + batch.lengths[column][row]);
            }
            case DECIMAL, UUID, NESTED -> batch.objects[column][row];
        };
    }

    /** Whether the column keeps its converted values as objects ({@link RowBatch#objects}). */
    boolean holdsObjects() {
        return kind == Kind.DECIMAL || kind == Kind.UUID || kind == Kind.NESTED;
    }

    /** A decimal of precision 1 to 18 as its unscaled long at the column's scale. */
    private boolean longDecimal(Object value, long[] longs, int index) {
        long unscaled;
        int valueScale;
        int valuePrecision;
        if (value instanceof BigDecimal decimal) {
            valueScale = decimal.scale();
            if (valueScale > scale) {
                return false;
            }
            if (decimal.signum() == 0) {
                longs[index] = 0;
                return true;
            }
            valuePrecision = decimal.precision();
            if ((long) valuePrecision - valueScale > precision - scale) {
                return false;
            }
            // at most 18 digits: the unscaled value fits in a long (scale 0 makes longValue exact)
            unscaled = decimal.scaleByPowerOfTen(valueScale).longValue();
        } else {
            if (value instanceof Long l) {
                unscaled = l;
            } else if (value instanceof Integer i) {
                unscaled = i;
            } else if (value instanceof BigInteger integer) {
                if (integer.bitLength() >= Long.SIZE) {
                    // 19 digits or more: too wide for any decimal held as a long
                    return false;
                }
                unscaled = integer.longValue();
            } else {
                return false;
            }
            // an integer has scale 0
            valueScale = 0;
            if (scale < 0) {
                return false;
            }
            if (unscaled == 0) {
                longs[index] = 0;
                return true;
            }
            valuePrecision = digitCount(unscaled);
            if ((long) valuePrecision - valueScale > precision - scale) {
                return false;
            }
        }
        // fewer fraction digits than the column: scale up (at most 17 powers of ten, checked above)
        longs[index] = unscaled * POWERS_OF_TEN[scale - valueScale];
        return true;
    }

    /** Decimal digits of a non-zero long. */
    private static int digitCount(long value) {
        if (value == Long.MIN_VALUE) {
            return 19;
        }
        long magnitude = Math.abs(value);
        int digits = 1;
        while (digits < POWERS_OF_TEN.length && magnitude >= POWERS_OF_TEN[digits]) {
            digits++;
        }
        return digits;
    }

    /** A decimal wider than a long: a BigDecimal of the column's scale, or null if it does not fit. */
    private BigDecimal decimal(Object value) {
        BigDecimal decimal;
        if (value instanceof BigDecimal d) {
            decimal = d;
        } else if (value instanceof Integer i) {
            decimal = BigDecimal.valueOf(i);
        } else if (value instanceof Long l) {
            decimal = BigDecimal.valueOf(l);
        } else if (value instanceof BigInteger b) {
            decimal = new BigDecimal(b);
        } else {
            return null;
        }
        if (decimal.scale() > scale) {
            return null;
        }
        if (decimal.scale() == scale) {
            return decimal.precision() <= precision ? decimal : null;
        }
        BigDecimal scaled = decimal.setScale(scale);
        return scaled.precision() <= precision ? scaled : null;
    }

    /**
     * Microseconds since 1970-01-01T00:00:00Z, truncated (toward the past, as {@code nano} is never
     * negative); false if they overflow a long.
     */
    private static boolean micros(long epochSecond, int nano, long[] longs, int index) {
        try {
            longs[index] = Math.addExact(Math.multiplyExact(epochSecond, 1_000_000L), nano / 1000);
            return true;
        } catch (ArithmeticException e) {
            return false;
        }
    }

    private static byte[] bytes(Object value) {
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        if (value instanceof ByteBuffer buffer) {
            ByteBuffer copy = buffer.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            return bytes;
        }
        return null;
    }

    /** How a type is spelled to a Java caller, for error messages. */
    static String expectedJavaTypes(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> "Boolean";
            case INTEGER -> "Integer";
            case LONG -> "Long or Integer";
            case FLOAT -> "Float";
            case DOUBLE -> "Double or Float";
            case DECIMAL ->
                "BigDecimal with at most %s fraction digits and %s digits in all"
                        .formatted(((Types.DecimalType) type).scale(), ((Types.DecimalType) type).precision());
            case DATE ->
                "LocalDate from %s to %s (days since 1970-01-01 as an int)"
                        .formatted(LocalDate.ofEpochDay(Integer.MIN_VALUE), LocalDate.ofEpochDay(Integer.MAX_VALUE));
            case TIME -> "LocalTime";
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? "OffsetDateTime, ZonedDateTime or Instant"
                        : "LocalDateTime";
            case STRING -> "String";
            case UUID -> "UUID";
            case FIXED -> "byte[] or ByteBuffer of exactly %s bytes".formatted(((Types.FixedType) type).length());
            case BINARY -> "byte[] or ByteBuffer";
            case LIST, MAP, STRUCT -> NestedValueConverter.expectedJavaTypes(type);
            default -> type.toString();
        };
    }
}
