package io.lakestream.testing;

import io.lakestream.log.LogSchema;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * Test support: writes Iceberg generic values of one column into a vector of the log's Arrow encoding
 * (see {@link LogSchema}), for tests that build log batches by hand. (The writer itself converts values
 * with {@code io.lakestream.write.ValueConverter}.)
 * Takes Iceberg's generic Java values; binary and fixed may be {@code byte[]} or {@code ByteBuffer}.
 * Chosen once per column, not per value.
 */
@FunctionalInterface
public interface LogVectorValues {
    void write(FieldVector vector, int index, Object value);

    static LogVectorValues forType(Type type) {
        LogVectorValues nonNull = switch (type.typeId()) {
            case BOOLEAN -> (vector, index, value) -> ((BitVector) vector).setSafe(index, (Boolean) value ? 1 : 0);
            case INTEGER -> (vector, index, value) -> ((IntVector) vector).setSafe(index, (Integer) value);
            case LONG -> (vector, index, value) -> ((BigIntVector) vector).setSafe(index, (Long) value);
            case FLOAT -> (vector, index, value) -> ((Float4Vector) vector).setSafe(index, (Float) value);
            case DOUBLE -> (vector, index, value) -> ((Float8Vector) vector).setSafe(index, (Double) value);
            case DECIMAL ->
                ((Types.DecimalType) type).precision() <= 18
                        // unscaled long: avoids BigInteger.toByteArray per value
                        ? (vector, index, value) -> ((DecimalVector) vector)
                                .setSafe(
                                        index,
                                        ((BigDecimal) value).unscaledValue().longValue())
                        : (vector, index, value) -> ((DecimalVector) vector).setSafe(index, (BigDecimal) value);
            case DATE ->
                (vector, index, value) ->
                        ((DateDayVector) vector).setSafe(index, DateTimeUtil.daysFromDate((LocalDate) value));
            case TIME ->
                (vector, index, value) ->
                        ((TimeMicroVector) vector).setSafe(index, DateTimeUtil.microsFromTime((LocalTime) value));
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? (vector, index, value) ->
                                ((TimeStampMicroTZVector) vector).setSafe(index, micros((OffsetDateTime) value))
                        : (vector, index, value) ->
                                ((TimeStampMicroVector) vector).setSafe(index, micros((LocalDateTime) value));
            case STRING ->
                (vector, index, value) ->
                        ((VarCharVector) vector).setSafe(index, ((String) value).getBytes(StandardCharsets.UTF_8));
            case UUID ->
                (vector, index, value) -> ((FixedSizeBinaryVector) vector).setSafe(index, uuidBytes((UUID) value));
            case FIXED -> (vector, index, value) -> ((FixedSizeBinaryVector) vector).setSafe(index, bytes(value));
            case BINARY -> (vector, index, value) -> ((VarBinaryVector) vector).setSafe(index, bytes(value));
            default -> throw new IllegalArgumentException("type %s is not supported in the log".formatted(type));
        };
        return (vector, index, value) -> {
            if (value == null) {
                vector.setNull(index);
            } else {
                nonNull.write(vector, index, value);
            }
        };
    }

    private static long micros(OffsetDateTime timestamp) {
        return Math.addExact(Math.multiplyExact(timestamp.toEpochSecond(), 1_000_000L), timestamp.getNano() / 1000);
    }

    private static long micros(LocalDateTime timestamp) {
        return Math.addExact(
                Math.multiplyExact(timestamp.toEpochSecond(java.time.ZoneOffset.UTC), 1_000_000L),
                timestamp.getNano() / 1000);
    }

    private static byte[] bytes(Object value) {
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    private static byte[] uuidBytes(UUID uuid) {
        return ByteBuffer.allocate(16)
                .putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits())
                .array();
    }
}
