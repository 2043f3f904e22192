package io.lakestream.trino;

import io.trino.spi.block.Block;
import io.trino.spi.block.SqlMap;
import io.trino.spi.block.SqlRow;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.MapType;
import io.trino.spi.type.RowType;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an array, map or row of a Trino block as the Java value the Lakestream writer takes for a list, map or
 * struct column: a {@code List}, a {@code Map}, and for a row a {@code Map} from field name to value (the
 * writer's struct by name); the values inside as {@link TrinoValueReader} reads them, nulls kept.
 */
final class TrinoNestedValueReader {
    private TrinoNestedValueReader() {}

    static TrinoValueReader forType(Type type) {
        return switch (type) {
            case ArrayType array -> {
                TrinoValueReader element = TrinoValueReader.forType(array.getElementType());
                yield (block, position) -> {
                    Block elements = array.getObject(block, position);
                    List<Object> values = new ArrayList<>(elements.getPositionCount());
                    for (int i = 0; i < elements.getPositionCount(); i++) {
                        values.add(elements.isNull(i) ? null : element.read(elements, i));
                    }
                    return values;
                };
            }
            case MapType map -> {
                TrinoValueReader key = TrinoValueReader.forType(map.getKeyType());
                TrinoValueReader value = TrinoValueReader.forType(map.getValueType());
                yield (block, position) -> {
                    SqlMap sqlMap = map.getObject(block, position);
                    Block keys = sqlMap.getRawKeyBlock();
                    Block values = sqlMap.getRawValueBlock();
                    int offset = sqlMap.getRawOffset();
                    Map<Object, Object> entries = new LinkedHashMap<>();
                    for (int i = offset; i < offset + sqlMap.getSize(); i++) {
                        entries.put(key.read(keys, i), values.isNull(i) ? null : value.read(values, i));
                    }
                    return entries;
                };
            }
            case RowType row -> {
                List<RowType.Field> fields = row.getFields();
                TrinoValueReader[] readers = fields.stream()
                        .map(field -> TrinoValueReader.forType(field.getType()))
                        .toArray(TrinoValueReader[]::new);
                yield (block, position) -> {
                    SqlRow sqlRow = row.getObject(block, position);
                    int index = sqlRow.getRawIndex();
                    Map<String, Object> values = new LinkedHashMap<>();
                    for (int i = 0; i < readers.length; i++) {
                        Block field = sqlRow.getRawFieldBlock(i);
                        values.put(
                                fields.get(i).getName().orElse("field" + i),
                                field.isNull(index) ? null : readers[i].read(field, index));
                    }
                    return values;
                };
            }
            default -> throw new IllegalArgumentException("not a nested type: " + type);
        };
    }
}
