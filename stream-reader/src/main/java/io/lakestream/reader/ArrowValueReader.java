package io.lakestream.reader;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
 * Reads one value of a log column as the Java value Iceberg's generic data model uses
 * ({@code LocalDate}, {@code OffsetDateTime}, {@code ByteBuffer} for binary, {@code byte[]} for
 * fixed, ...), so rows can go straight to Iceberg's generic writers. For the row path only; engines
 * read the vectors directly.
 */
@FunctionalInterface
public interface ArrowValueReader {
    Object read(FieldVector vector, int index);

    static ArrowValueReader forType(Type type) {
        ArrowValueReader nonNull = switch (type.typeId()) {
            case BOOLEAN -> (vector, index) -> ((BitVector) vector).get(index) != 0;
            case INTEGER -> (vector, index) -> ((IntVector) vector).get(index);
            case LONG -> (vector, index) -> ((BigIntVector) vector).get(index);
            case FLOAT -> (vector, index) -> ((Float4Vector) vector).get(index);
            case DOUBLE -> (vector, index) -> ((Float8Vector) vector).get(index);
            case DECIMAL ->
                (vector, index) -> {
                    BigDecimal value = ((DecimalVector) vector).getObject(index);
                    return value.setScale(((Types.DecimalType) type).scale());
                };
            case DATE -> (vector, index) -> DateTimeUtil.dateFromDays(((DateDayVector) vector).get(index));
            case TIME -> (vector, index) -> DateTimeUtil.timeFromMicros(((TimeMicroVector) vector).get(index));
            case TIMESTAMP ->
                ((Types.TimestampType) type).shouldAdjustToUTC()
                        ? (vector, index) ->
                                DateTimeUtil.timestamptzFromMicros(((TimeStampMicroTZVector) vector).get(index))
                        : (vector, index) ->
                                DateTimeUtil.timestampFromMicros(((TimeStampMicroVector) vector).get(index));
            case STRING -> (vector, index) -> new String(((VarCharVector) vector).get(index), StandardCharsets.UTF_8);
            case UUID ->
                (vector, index) -> {
                    ByteBuffer bytes = ByteBuffer.wrap(((FixedSizeBinaryVector) vector).get(index));
                    return new UUID(bytes.getLong(), bytes.getLong());
                };
            case FIXED -> (vector, index) -> ((FixedSizeBinaryVector) vector).get(index);
            case BINARY -> (vector, index) -> ByteBuffer.wrap(((VarBinaryVector) vector).get(index));
            case LIST, MAP, STRUCT -> ArrowNestedValueReader.nonNull(type);
            default -> throw new IllegalArgumentException("type %s is not supported in the log".formatted(type));
        };
        return (vector, index) -> vector.isNull(index) ? null : nonNull.read(vector, index);
    }
}
