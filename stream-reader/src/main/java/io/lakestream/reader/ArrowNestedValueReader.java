package io.lakestream.reader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.BaseRepeatedValueVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads a non-null value of a list, map or struct column of the log (Arrow lists, maps and structs, see {@code
 * NestedArrowFields}) as Iceberg's generic value: a {@code List}, a {@code Map} in entry order, a {@link
 * GenericRecord}; the values inside as {@link ArrowValueReader} reads them.
 */
final class ArrowNestedValueReader {
    private ArrowNestedValueReader() {}

    static ArrowValueReader nonNull(Type type) {
        return switch (type.typeId()) {
            case LIST -> {
                ArrowValueReader element =
                        ArrowValueReader.forType(type.asListType().elementType());
                yield (vector, index) -> {
                    ListVector list = (ListVector) vector;
                    int start = offset(list, index);
                    int end = offset(list, index + 1);
                    FieldVector data = list.getDataVector();
                    List<Object> values = new ArrayList<>(end - start);
                    for (int i = start; i < end; i++) {
                        values.add(element.read(data, i));
                    }
                    return values;
                };
            }
            case MAP -> {
                ArrowValueReader key = ArrowValueReader.forType(type.asMapType().keyType());
                ArrowValueReader value =
                        ArrowValueReader.forType(type.asMapType().valueType());
                yield (vector, index) -> {
                    ListVector map = (ListVector) vector;
                    int start = offset(map, index);
                    int end = offset(map, index + 1);
                    List<FieldVector> entries = ((StructVector) map.getDataVector()).getChildrenFromFields();
                    Map<Object, Object> values = new LinkedHashMap<>();
                    for (int i = start; i < end; i++) {
                        values.put(key.read(entries.get(0), i), value.read(entries.get(1), i));
                    }
                    return values;
                };
            }
            case STRUCT -> {
                Types.StructType struct = type.asStructType();
                ArrowValueReader[] fields = struct.fields().stream()
                        .map(field -> ArrowValueReader.forType(field.type()))
                        .toArray(ArrowValueReader[]::new);
                yield (vector, index) -> {
                    List<FieldVector> children = ((StructVector) vector).getChildrenFromFields();
                    GenericRecord record = GenericRecord.create(struct);
                    for (int i = 0; i < fields.length; i++) {
                        record.set(i, fields[i].read(children.get(i), index));
                    }
                    return record;
                };
            }
            default -> throw new IllegalArgumentException("type %s is not supported in the log".formatted(type));
        };
    }

    private static int offset(ListVector vector, int index) {
        return vector.getOffsetBuffer().getInt((long) index * BaseRepeatedValueVector.OFFSET_WIDTH);
    }
}
