package io.lakestream.write;

import io.lakestream.bucket.BucketFunction;
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
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.util.DecimalUtility;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.BucketUtil;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * Converts the Java values a caller hands the writer for one column into the form the log stores
 * (a slot of a {@link ConvertedRow}), or says that a value does not fit; then writes converted values
 * into the column's Arrow vector (the log's Arrow types, see {@link io.lakestream.log.LogSchema}).
 * Chosen once per column; converting and writing allocate nothing for fixed-width types.
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

    /** How a column's values are held in a {@link ConvertedRow} and written into its vector. */
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
        BINARY
    }

    private final Type type;
    private final Kind kind;
    private final int precision;
    private final int scale;
    private final int fixedLength;
    /**
     * Bytes per value of a non-null value {@link #write} stores inline (4, 8, or 16 for a decimal held
     * as a long on a little-endian machine), 0 for the kinds written out of line.
     */
    private final int inlineWidth;

    private ValueConverter(Type type, Kind kind, int precision, int scale, int fixedLength) {
        this.type = type;
        this.kind = kind;
        this.inlineWidth = switch (kind) {
            case INTEGER, FLOAT, DATE -> Integer.BYTES;
            case LONG, DOUBLE, TIME, TIMESTAMP, TIMESTAMPTZ -> Long.BYTES;
            case LONG_DECIMAL -> MemoryUtil.LITTLE_ENDIAN ? DecimalVector.TYPE_WIDTH : 0;
            default -> 0;
        };
        this.precision = precision;
        this.scale = scale;
        this.fixedLength = fixedLength;
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
     * Converts a non-null value into slot {@code column} of {@code row}; false if a column of this
     * type cannot hold it (the row is then invalid and the slot undefined).
     */
    boolean convert(Object value, ConvertedRow row, int column) {
        long[] longs = row.longs;
        switch (kind) {
            case BOOLEAN -> {
                if (!(value instanceof Boolean bool)) {
                    return false;
                }
                longs[column] = bool ? 1 : 0;
            }
            case INTEGER -> {
                if (value instanceof Integer i) {
                    longs[column] = i;
                } else if (value instanceof Short s) {
                    longs[column] = s;
                } else if (value instanceof Byte b) {
                    longs[column] = b;
                } else {
                    return false;
                }
            }
            case LONG -> {
                if (value instanceof Long l) {
                    longs[column] = l;
                } else if (value instanceof Integer i) {
                    longs[column] = i;
                } else if (value instanceof Short s) {
                    longs[column] = s;
                } else if (value instanceof Byte b) {
                    longs[column] = b;
                } else {
                    return false;
                }
            }
            case FLOAT -> {
                if (!(value instanceof Float f)) {
                    return false;
                }
                longs[column] = Float.floatToRawIntBits(f);
            }
            case DOUBLE -> {
                if (value instanceof Double d) {
                    longs[column] = Double.doubleToRawLongBits(d);
                } else if (value instanceof Float f) {
                    longs[column] = Double.doubleToRawLongBits(f);
                } else {
                    return false;
                }
            }
            case LONG_DECIMAL -> {
                return longDecimal(value, longs, column);
            }
            case DECIMAL -> {
                BigDecimal decimal = decimal(value);
                if (decimal == null) {
                    return false;
                }
                row.objects[column] = decimal;
            }
            case DATE -> {
                if (!(value instanceof LocalDate date)) {
                    return false;
                }
                // the days since 1970-01-01 as an int, like Iceberg's DateTimeUtil.daysFromDate
                longs[column] = (int) date.toEpochDay();
            }
            case TIME -> {
                if (!(value instanceof LocalTime time)) {
                    return false;
                }
                // truncated to microseconds
                longs[column] = time.toNanoOfDay() / 1000;
            }
            case TIMESTAMP -> {
                if (!(value instanceof LocalDateTime timestamp)) {
                    return false;
                }
                return micros(timestamp.toEpochSecond(ZoneOffset.UTC), timestamp.getNano(), longs, column);
            }
            case TIMESTAMPTZ -> {
                if (value instanceof OffsetDateTime timestamp) {
                    return micros(timestamp.toEpochSecond(), timestamp.getNano(), longs, column);
                }
                if (value instanceof ZonedDateTime timestamp) {
                    return micros(timestamp.toEpochSecond(), timestamp.getNano(), longs, column);
                }
                if (value instanceof Instant timestamp) {
                    return micros(timestamp.getEpochSecond(), timestamp.getNano(), longs, column);
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
                row.setBytes(column, utf8, 0, utf8.length);
            }
            case UUID -> {
                if (!(value instanceof UUID)) {
                    return false;
                }
                row.objects[column] = value;
            }
            case FIXED -> {
                byte[] bytes = bytes(value);
                if (bytes == null || bytes.length != fixedLength) {
                    return false;
                }
                row.setBytes(column, bytes, 0, bytes.length);
            }
            case BINARY -> {
                byte[] bytes = bytes(value);
                if (bytes == null) {
                    return false;
                }
                row.setBytes(column, bytes, 0, bytes.length);
            }
        }
        return true;
    }

    /**
     * Writes the converted value in slot {@code column} of {@code row}, or a null, at {@code index}
     * of this column's vector. {@code validityAddress} and {@code dataAddress} are the current
     * addresses of the vector's validity and data buffers: fixed-width values are stored there
     * directly, without Arrow's per-access checks, so the caller must have made room for {@code
     * index} (see {@code SegmentWriter}) and must pass the addresses of the buffers after any
     * reallocation. Variable-width values grow their vector as needed.
     */
    void write(FieldVector vector, long validityAddress, long dataAddress, int index, ConvertedRow row, int column) {
        // the fixed-width kinds, kept small enough for the JIT to inline into the segment writer's loop
        int width = inlineWidth;
        if (width != 0 && !row.nulls[column]) {
            long value = row.longs[column];
            long address = dataAddress + (long) index * width;
            setBit(validityAddress, index);
            if (width == Long.BYTES) {
                MemoryUtil.putLong(address, value);
            } else if (width == Integer.BYTES) {
                MemoryUtil.putInt(address, (int) value);
            } else {
                // a decimal: 128-bit little-endian two's complement, the long then its sign extension
                MemoryUtil.putLong(address, value);
                MemoryUtil.putLong(address + Long.BYTES, value < 0 ? -1L : 0L);
            }
            return;
        }
        if (kind == Kind.STRING || kind == Kind.BINARY) {
            BaseVariableWidthVector variableWidth = (BaseVariableWidthVector) vector;
            if (row.nulls[column]) {
                // the slot still holds the previous value's bytes
                writeVariableWidth(variableWidth, index, null, 0, 0);
            } else {
                writeVariableWidth(
                        variableWidth, index, (byte[]) row.objects[column], row.offsets[column], row.lengths[column]);
            }
            return;
        }
        writeOutOfLine(vector, validityAddress, dataAddress, index, row, column);
    }

    /** The kinds {@link #write} does not store inline, and their nulls. */
    private void writeOutOfLine(
            FieldVector vector, long validityAddress, long dataAddress, int index, ConvertedRow row, int column) {
        if (row.nulls[column]) {
            vector.setNull(index);
            return;
        }
        long value = row.longs[column];
        switch (kind) {
            case BOOLEAN -> {
                setBit(validityAddress, index);
                if (value != 0) {
                    setBit(dataAddress, index);
                } else {
                    clearBit(dataAddress, index);
                }
            }
            case LONG_DECIMAL -> {
                // on a big-endian machine (little-endian ones store it inline)
                setBit(validityAddress, index);
                DecimalUtility.writeLongToArrowBuf(
                        value, ((DecimalVector) vector).getDataBuffer(), index, DecimalVector.TYPE_WIDTH);
            }
            case DECIMAL -> ((DecimalVector) vector).set(index, (BigDecimal) row.objects[column]);
            case UUID -> ((FixedSizeBinaryVector) vector).set(index, uuidBytes((UUID) row.objects[column]));
            case FIXED -> {
                setBit(validityAddress, index);
                MemoryUtil.copyToMemory(
                        (byte[]) row.objects[column],
                        row.offsets[column],
                        dataAddress + (long) index * fixedLength,
                        fixedLength);
            }
        }
    }

    /**
     * Writes {@code length} bytes of {@code bytes} from {@code offset} (or a null, if {@code bytes}
     * is null) at {@code index} of a variable-width vector. Rows are written in order from 0, so the
     * value starts where the previous one ended; writing the offsets of nulls too keeps that true and
     * leaves Arrow no holes to fill (its {@code setSafe} checks and fills per value).
     */
    private static void writeVariableWidth(
            BaseVariableWidthVector vector, int index, byte[] bytes, int offset, int length) {
        long offsetAddress = vector.getOffsetBufferAddress();
        int start = MemoryUtil.getInt(offsetAddress + (long) index * BaseVariableWidthVector.OFFSET_WIDTH);
        int end = start + length;
        if (bytes != null) {
            while (end > vector.getDataBuffer().capacity()) {
                vector.reallocDataBuffer();
            }
            MemoryUtil.copyToMemory(bytes, offset, vector.getDataBufferAddress() + start, length);
            setBit(vector.getValidityBufferAddress(), index);
        }
        MemoryUtil.putInt(offsetAddress + (long) (index + 1) * BaseVariableWidthVector.OFFSET_WIDTH, end);
        vector.setLastSet(index);
    }

    /** Sets bit {@code index} of the bitmap at {@code address} (Arrow's LSB-first bit order). */
    static void setBit(long address, int index) {
        long byteAddress = address + (index >>> 3);
        MemoryUtil.putByte(byteAddress, (byte) (MemoryUtil.getByte(byteAddress) | (1 << (index & 7))));
    }

    private static void clearBit(long address, int index) {
        long byteAddress = address + (index >>> 3);
        MemoryUtil.putByte(byteAddress, (byte) (MemoryUtil.getByte(byteAddress) & ~(1 << (index & 7))));
    }

    /** Iceberg's bucket hash of the converted non-null value, as {@link BucketFunction#hash} computes it. */
    int bucketHash(ConvertedRow row, int column) {
        return switch (kind) {
            case INTEGER, DATE -> BucketUtil.hash((int) row.longs[column]);
            case LONG, TIME, TIMESTAMP, TIMESTAMPTZ -> BucketUtil.hash(row.longs[column]);
            default -> otherBucketHash(row, column);
        };
    }

    private int otherBucketHash(ConvertedRow row, int column) {
        return switch (kind) {
            // the hash of the (UTF-8) bytes, as BucketFunction.hash of a byte[]
            case STRING, FIXED, BINARY ->
                BucketUtil.hash(
                        ByteBuffer.wrap((byte[]) row.objects[column], row.offsets[column], row.lengths[column]));
            default -> BucketFunction.hash(type, icebergValue(row, column));
        };
    }

    /** The converted value as Iceberg's generic value (null for a null). */
    Object icebergValue(ConvertedRow row, int column) {
        if (row.nulls[column]) {
            return null;
        }
        long value = row.longs[column];
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
                        (byte[]) row.objects[column], row.offsets[column], row.lengths[column], StandardCharsets.UTF_8);
            case FIXED, BINARY ->
                Arrays.copyOfRange(
                        (byte[]) row.objects[column], row.offsets[column], row.offsets[column] + row.lengths[column]);
            case DECIMAL, UUID -> row.objects[column];
        };
    }

    /** A decimal of precision 1 to 18 as its unscaled long at the column's scale. */
    private boolean longDecimal(Object value, long[] longs, int column) {
        long unscaled;
        int valueScale;
        int valuePrecision;
        if (value instanceof BigDecimal decimal) {
            valueScale = decimal.scale();
            if (valueScale > scale) {
                return false;
            }
            if (decimal.signum() == 0) {
                longs[column] = 0;
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
                longs[column] = 0;
                return true;
            }
            valuePrecision = digitCount(unscaled);
            if ((long) valuePrecision - valueScale > precision - scale) {
                return false;
            }
        }
        // fewer fraction digits than the column: scale up (at most 17 powers of ten, checked above)
        longs[column] = unscaled * POWERS_OF_TEN[scale - valueScale];
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
    private static boolean micros(long epochSecond, int nano, long[] longs, int column) {
        try {
            longs[column] = Math.addExact(Math.multiplyExact(epochSecond, 1_000_000L), nano / 1000);
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

    private static byte[] uuidBytes(UUID uuid) {
        return ByteBuffer.allocate(16)
                .putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits())
                .array();
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
            case DATE -> "LocalDate";
            case TIME -> "LocalTime";
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? "OffsetDateTime, ZonedDateTime or Instant"
                        : "LocalDateTime";
            case STRING -> "String";
            case UUID -> "UUID";
            case FIXED -> "byte[] or ByteBuffer of exactly %s bytes".formatted(((Types.FixedType) type).length());
            case BINARY -> "byte[] or ByteBuffer";
            default -> type.toString();
        };
    }
}
