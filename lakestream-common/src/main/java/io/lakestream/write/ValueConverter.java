package io.lakestream.write;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Converts the Java value a caller hands the writer into the canonical value the log stores, or
 * says why it does not fit. Canonical values are Iceberg's generic values, with {@code byte[]} for
 * fixed and binary and {@link OffsetDateTime} in UTC for timestamps with zone. Only lossless
 * conversions are made (e.g. int to long, a decimal with fewer fraction digits); time values are
 * truncated to microseconds, the precision of the table.
 */
final class ValueConverter {
    private ValueConverter() {}

    /** The canonical value, or null if {@code value} cannot be stored in a column of {@code type}. */
    static Object convert(Type type, Object value) {
        return switch (type.typeId()) {
            case BOOLEAN -> value instanceof Boolean ? value : null;
            case INTEGER ->
                switch (value) {
                    case Integer i -> i;
                    case Short s -> (int) s;
                    case Byte b -> (int) b;
                    default -> null;
                };
            case LONG ->
                switch (value) {
                    case Long l -> l;
                    case Integer i -> (long) i;
                    case Short s -> (long) s;
                    case Byte b -> (long) b;
                    default -> null;
                };
            case FLOAT -> value instanceof Float ? value : null;
            case DOUBLE ->
                switch (value) {
                    case Double d -> d;
                    case Float f -> (double) f;
                    default -> null;
                };
            case DECIMAL -> decimal((Types.DecimalType) type, value);
            case DATE -> value instanceof LocalDate ? value : null;
            case TIME ->
                value instanceof LocalTime time
                        ? (time.getNano() % 1000 == 0 ? time : time.truncatedTo(ChronoUnit.MICROS))
                        : null;
            case TIMESTAMP -> timestamp((Types.TimestampType) type, value);
            case STRING -> value instanceof CharSequence chars ? chars.toString() : null;
            case UUID -> value instanceof UUID ? value : null;
            case FIXED -> {
                byte[] bytes = bytes(value);
                yield bytes != null && bytes.length == ((Types.FixedType) type).length() ? bytes : null;
            }
            case BINARY -> bytes(value);
            default -> null;
        };
    }

    private static BigDecimal decimal(Types.DecimalType type, Object value) {
        BigDecimal decimal = switch (value) {
            case BigDecimal d -> d;
            case Integer i -> BigDecimal.valueOf(i);
            case Long l -> BigDecimal.valueOf(l);
            case BigInteger b -> new BigDecimal(b);
            default -> null;
        };
        if (decimal == null || decimal.scale() > type.scale()) {
            return null;
        }
        if (decimal.scale() == type.scale()) {
            return decimal.precision() <= type.precision() ? decimal : null;
        }
        BigDecimal scaled = decimal.setScale(type.scale());
        return scaled.precision() <= type.precision() ? scaled : null;
    }

    private static Object timestamp(Types.TimestampType type, Object value) {
        if (type.shouldAdjustToUTC()) {
            OffsetDateTime timestamp = switch (value) {
                case OffsetDateTime t -> t;
                case ZonedDateTime t -> t.toOffsetDateTime();
                case Instant t -> t.atOffset(ZoneOffset.UTC);
                default -> null;
            };
            return timestamp == null
                    ? null
                    : timestamp.withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
        }
        return value instanceof LocalDateTime timestamp ? timestamp.truncatedTo(ChronoUnit.MICROS) : null;
    }

    private static OffsetDateTime micros(OffsetDateTime timestamp) {
        return timestamp.getNano() % 1000 == 0 ? timestamp : timestamp.truncatedTo(ChronoUnit.MICROS);
    }

    private static LocalDateTime micros(LocalDateTime timestamp) {
        return timestamp.getNano() % 1000 == 0 ? timestamp : timestamp.truncatedTo(ChronoUnit.MICROS);
    }

    private static byte[] bytes(Object value) {
        return switch (value) {
            case byte[] bytes -> bytes;
            case ByteBuffer buffer -> {
                ByteBuffer copy = buffer.duplicate();
                byte[] bytes = new byte[copy.remaining()];
                copy.get(bytes);
                yield bytes;
            }
            default -> null;
        };
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
