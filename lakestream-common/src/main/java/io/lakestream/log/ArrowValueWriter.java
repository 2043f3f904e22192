package io.lakestream.log;

import io.lakestream.lake.NarrowedValues;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
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
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.apache.iceberg.util.UUIDUtil;

/**
 * Writes one Iceberg generic value ({@code List}, {@code Map}, {@link StructLike}, {@code LocalDate},
 * {@code OffsetDateTime}, {@code byte[]} or {@code ByteBuffer} for binary, ...) into a vector of the log's
 * Arrow layout ({@link LogSchema}), at any index, through Arrow's growing setters: the value path for nested
 * columns (the writer's flat columns have their own batch loops). Values must already have the column's type
 * (the writer converts and validates them first), except the wider values of a lake file's widened field read as of
 * a version before the widening, which are narrowed ({@link NarrowedValues}); a null struct also nulls its fields, so
 * every engine finds null children under a null parent.
 */
public final class ArrowValueWriter {
    private ArrowValueWriter() {}

    public static void write(FieldVector vector, int index, Type type, Object value) {
        if (value == null) {
            writeNull(vector, index, type);
            return;
        }
        switch (type.typeId()) {
            case LIST -> writeList((ListVector) vector, index, type.asListType(), (List<?>) value);
            case MAP -> writeMap((MapVector) vector, index, type.asMapType(), (Map<?, ?>) value);
            case STRUCT -> writeStruct((StructVector) vector, index, type.asStructType(), (StructLike) value);
            default -> writePrimitive(vector, index, type, value);
        }
    }

    private static void writeList(ListVector vector, int index, Types.ListType type, List<?> elements) {
        int start = vector.startNewValue(index);
        FieldVector data = vector.getDataVector();
        for (int i = 0; i < elements.size(); i++) {
            write(data, start + i, type.elementType(), elements.get(i));
        }
        vector.endValue(index, elements.size());
    }

    private static void writeMap(MapVector vector, int index, Types.MapType type, Map<?, ?> entries) {
        int start = vector.startNewValue(index);
        StructVector entryVector = (StructVector) vector.getDataVector();
        List<FieldVector> children = entryVector.getChildrenFromFields();
        int entry = start;
        for (Map.Entry<?, ?> value : entries.entrySet()) {
            entryVector.setIndexDefined(entry);
            write(children.get(0), entry, type.keyType(), value.getKey());
            write(children.get(1), entry, type.valueType(), value.getValue());
            entry++;
        }
        vector.endValue(index, entries.size());
    }

    private static void writeStruct(StructVector vector, int index, Types.StructType type, StructLike struct) {
        vector.setIndexDefined(index);
        List<FieldVector> children = vector.getChildrenFromFields();
        List<Types.NestedField> fields = type.fields();
        for (int i = 0; i < fields.size(); i++) {
            write(children.get(i), index, fields.get(i).type(), struct.get(i, Object.class));
        }
    }

    private static void writeNull(FieldVector vector, int index, Type type) {
        if (type.isStructType()) {
            List<FieldVector> children = ((StructVector) vector).getChildrenFromFields();
            List<Types.NestedField> fields = type.asStructType().fields();
            for (int i = 0; i < fields.size(); i++) {
                writeNull(children.get(i), index, fields.get(i).type());
            }
        }
        vector.setNull(index);
    }

    private static void writePrimitive(FieldVector vector, int index, Type type, Object value) {
        switch (type.typeId()) {
            case BOOLEAN -> ((BitVector) vector).setSafe(index, (Boolean) value ? 1 : 0);
            // a Long or Double: a lake file's field written after an ALTER widened it, read as of a version before
            case INTEGER ->
                ((IntVector) vector)
                        .setSafe(
                                index,
                                value instanceof Long wide ? NarrowedValues.toInt(wide) : ((Number) value).intValue());
            case LONG -> ((BigIntVector) vector).setSafe(index, ((Number) value).longValue());
            case FLOAT ->
                ((Float4Vector) vector)
                        .setSafe(
                                index,
                                value instanceof Double wide
                                        ? NarrowedValues.toFloat(wide)
                                        : ((Number) value).floatValue());
            case DOUBLE -> ((Float8Vector) vector).setSafe(index, ((Number) value).doubleValue());
            case DECIMAL ->
                ((DecimalVector) vector)
                        .setSafe(
                                index,
                                NarrowedValues.toDecimal((BigDecimal) value, ((Types.DecimalType) type).precision()));
            case DATE -> ((DateDayVector) vector).setSafe(index, Math.toIntExact(((LocalDate) value).toEpochDay()));
            case TIME -> ((TimeMicroVector) vector).setSafe(index, ((LocalTime) value).toNanoOfDay() / 1000);
            case TIMESTAMP -> {
                if (((Types.TimestampType) type).shouldAdjustToUTC()) {
                    ((TimeStampMicroTZVector) vector)
                            .setSafe(index, DateTimeUtil.microsFromTimestamptz((OffsetDateTime) value));
                } else {
                    ((TimeStampMicroVector) vector)
                            .setSafe(index, DateTimeUtil.microsFromTimestamp((LocalDateTime) value));
                }
            }
            case STRING ->
                ((VarCharVector) vector).setSafe(index, value.toString().getBytes(StandardCharsets.UTF_8));
            case UUID -> ((FixedSizeBinaryVector) vector).setSafe(index, UUIDUtil.convert((UUID) value));
            case FIXED -> ((FixedSizeBinaryVector) vector).setSafe(index, bytes(value));
            case BINARY -> ((VarBinaryVector) vector).setSafe(index, bytes(value));
            default -> throw new IllegalArgumentException("type %s is not supported in the log".formatted(type));
        }
    }

    private static byte[] bytes(Object value) {
        if (value instanceof ByteBuffer buffer) {
            ByteBuffer copy = buffer.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            return bytes;
        }
        return (byte[]) value;
    }
}
